// Fuzz `piprov bench import`: any bytes must either parse or throw piprov::Error,
// and whatever parses must render in every format.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "bench/fio/import.hpp"
#include "bench/report.hpp"
#include "core/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    auto jobs = piprov::bench::parse_fio_output(text, "fuzz");
    auto rep = piprov::bench::group_imported(jobs);
    for (auto f : {piprov::bench::Format::Table, piprov::bench::Format::Csv, piprov::bench::Format::Json})
      (void)piprov::bench::render(rep, f);
  } catch (const piprov::Error&) {
  }
  return 0;
}
