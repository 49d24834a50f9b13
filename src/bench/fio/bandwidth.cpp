// fio's misprinted bandwidth figures (see check_printed_bw in util.hpp).
#include <cctype>
#include <cmath>
#include <cstdlib>

#include "bench/fio/util.hpp"

namespace piprov::bench {
namespace {

using Range = std::pair<double, double>;

bool usable(const PrintedFigure& f) {
  return unit_bytes(f.unit) > 0 && !f.num.empty() && std::isdigit(static_cast<unsigned char>(f.num.back()));
}

// One unit of the last digit: "13.0" -> 0.1, "420" -> 1.
double last_digit(const std::string& s) {
  auto dot = s.find('.');
  return dot == std::string::npos ? 1.0 : std::pow(10.0, -static_cast<double>(s.size() - dot - 1));
}

Range range(const PrintedFigure& f) {
  double v = std::strtod(f.num.c_str(), nullptr), u = last_digit(f.num), b = unit_bytes(f.unit);
  return {(v - u) * b, (v + u) * b};
}

bool overlap(Range a, Range b) { return a.first <= b.second && b.first <= a.second; }

}  // namespace

void check_printed_bw(DirStats& d, const PrintedFigure& bw, const PrintedFigure& dec, const PrintedFigure& io,
                      double runtime_ms) {
  if (runtime_ms <= 0 || d.bytes == 0 || !usable(bw) || !usable(dec) || !usable(io)) return;
  auto [io_lo, io_hi] = range(io);
  Range per_s{io_lo / ((runtime_ms + 1) / 1000.0), io_hi / (runtime_ms / 1000.0)};  // runtime is whole ms
  if (overlap(range(bw), per_s) || overlap(range(bw), range(dec)) || !overlap(range(dec), per_s)) return;
  d.bw_printed = d.bw_bytes;
  d.bw_printed_text = bw.num + bw.unit;
  d.bw_bytes = static_cast<double>(d.bytes) / (runtime_ms / 1000.0);
}

}  // namespace piprov::bench
