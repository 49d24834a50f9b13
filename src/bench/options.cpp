#include "bench/options.hpp"

#include <fmt/format.h>
#include <array>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "core/error.hpp"

namespace piprov::bench {
namespace {

constexpr std::array kLimits{
    OptionLimit{"--bs", 1, 1024.0 * 1024 * 1024, "bytes", true},
    OptionLimit{"--iodepth", 1, 4096, "", true},
    OptionLimit{"--numjobs", 1, 256, "", true},
    OptionLimit{"--runtime", 0.01, 86400, "seconds", false},
    OptionLimit{"--ramp", 0, 3600, "seconds", false},
    OptionLimit{"--rwmixread", 0, 100, "", true},
};

}  // namespace

std::span<const OptionLimit> option_limits() { return kLimits; }

const OptionLimit& option_limit(std::string_view option) {
  for (const auto& l : kLimits)
    if (l.option == option) return l;
  throw std::out_of_range(fmt::format("no bench option limit for {}", option));
}

namespace {
bool within(const OptionLimit& l, double v) {
  return std::isfinite(v) && v >= l.min && v <= l.max && (!l.integer || v == std::floor(v));
}
std::string range(const OptionLimit& l) {
  return fmt::format("must be a {}number{} from {} to {}", l.integer ? "whole " : "",
                     l.unit.empty() ? "" : fmt::format(" of {}", l.unit), l.min, l.max);
}
}  // namespace

std::string limit_error(const OptionLimit& l, double v) {
  return within(l, v) ? std::string() : fmt::format("{}, got {}", range(l), v);
}

std::string limit_error(const OptionLimit& l, std::string_view text) {
  std::string s(text);
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  bool parsed = !s.empty() && end == s.c_str() + s.size();
  return parsed && within(l, v) ? std::string() : fmt::format("{}, got '{}'", range(l), text);
}

void check_limit(const OptionLimit& l, double v) {
  if (auto m = limit_error(l, v); !m.empty()) throw Error(ErrorKind::Usage, fmt::format("{}: {}", l.option, m));
}

}  // namespace piprov::bench
