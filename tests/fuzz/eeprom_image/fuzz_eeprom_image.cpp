// Fuzz target: an input of exactly 512 KiB or 2 MiB is an image as is (the
// real images in ../shared/data are seeds); any other input is a first byte
// then the start of an image whose rest up to 512 KiB is 0xff (erased flash),
// or, when the first byte is 0, the remaining bytes exactly (size check). Parse, extract every file, read the timestamp
// and, when bootconf.txt exists, rewrite it and check extract(set(x)) == x.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/error.hpp"
#include "eeprom/image.hpp"

using namespace piprov::eeprom;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const bool whole = size == kPi4ImageSize || size == kPi5ImageSize;
  std::string bytes = whole ? std::string(reinterpret_cast<const char*>(data), size)
                            : std::string(reinterpret_cast<const char*>(data + 1), size - 1);
  if (!whole && data[0] != 0) {
    if (bytes.size() > kPi4ImageSize) bytes.resize(kPi4ImageSize);
    bytes.resize(kPi4ImageSize, '\xff');
  }
  try {
    auto img = EepromImage::parse(bytes, "fuzz.bin");
    for (const auto& s : img.sections())
      if (s.is_file()) (void)img.file(s.filename);
    (void)img.build_timestamp();
    (void)img.version();
    if (img.find_file("bootconf.txt")) {
      std::string cfg = "[all]\nBOOT_ORDER=0xf14\n" + img.bootconf().substr(0, 64);
      try {
        auto out = EepromImage::parse(img.with_file("bootconf.txt", cfg), "out.bin");
        if (out.bootconf() != cfg) std::abort();
      } catch (const piprov::Error&) {
      }
    }
  } catch (const piprov::Error&) {
  }
  return 0;
}
