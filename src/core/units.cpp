#include "core/units.hpp"

#include <fmt/format.h>
#include <cctype>
#include <cmath>
#include <limits>

#include "core/error.hpp"

namespace piprov {

std::uint64_t parse_size(std::string_view text, std::string_view what) {
  auto bad = [&] {
    return Error(ErrorKind::Usage,
                 fmt::format("invalid {} '{}': use a number with an optional k/M/G/T suffix (binary, e.g. 4k = 4096)",
                             what, text));
  };
  std::size_t i = 0;
  std::uint64_t value = 0;
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) throw bad();
  for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) {
    if (value > (std::numeric_limits<std::uint64_t>::max() - 9) / 10) throw bad();
    value = value * 10 + static_cast<unsigned>(text[i] - '0');
  }
  std::string suffix;
  for (; i < text.size(); ++i) suffix += static_cast<char>(std::tolower(static_cast<unsigned char>(text[i])));
  std::uint64_t mult = 1;
  if (suffix.empty() || suffix == "b")
    mult = 1;
  else {
    const char unit = suffix[0];
    const std::string rest = suffix.substr(1);
    int power = 0;
    switch (unit) {
      case 'k': power = 1; break;
      case 'm': power = 2; break;
      case 'g': power = 3; break;
      case 't': power = 4; break;
      default: throw bad();
    }
    std::uint64_t base = 1024;
    if (rest.empty() || rest == "ib")
      base = 1024;
    else if (rest == "b")
      base = 1000;
    else
      throw bad();
    for (int p = 0; p < power; ++p) mult *= base;
  }
  if (mult != 0 && value > std::numeric_limits<std::uint64_t>::max() / mult) throw bad();
  return value * mult;
}

std::string format_bytes(std::uint64_t bytes) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024.0 && u < 5) {
    v /= 1024.0;
    ++u;
  }
  if (u == 0) return fmt::format("{} B", bytes);
  return fmt::format("{:.1f} {}", v, units[u]);
}

std::string format_mib_s(double bps) { return fmt::format("{:.1f} MiB/s", bps / 1048576.0); }
std::string format_mb_s(double bps) { return fmt::format("{:.1f} MB/s", bps / 1e6); }

std::string format_duration(double s) {
  if (!std::isfinite(s) || s < 0) return "?";
  if (s < 10) return fmt::format("{:.2f} s", s);
  if (s < 60) return fmt::format("{:.1f} s", s);
  auto total = static_cast<long long>(std::llround(s));
  if (total < 3600) return fmt::format("{}m{:02}s", total / 60, total % 60);
  return fmt::format("{}h{:02}m", total / 3600, (total % 3600) / 60);
}

}  // namespace piprov
