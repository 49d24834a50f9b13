#pragma once
// SVG charts of a Report (--svg FILE): a grouped bar chart per test (MiB/s,
// one bar per target, value labels) and a latency-percentile plot per target
// (x: percentile on a "nines" scale 0..99.99, y: latency ms, log scale).
#include <string>

#include "bench/result.hpp"

namespace piprov::bench {

/// The whole SVG document.
std::string render_svg(const Report& r);

}  // namespace piprov::bench
