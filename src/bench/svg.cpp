#include "bench/svg.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>

#include "bench/report.hpp"

namespace piprov::bench {
namespace {

const char* kColors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"};

std::string esc(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '<')
      o += "&lt;";
    else if (c == '>')
      o += "&gt;";
    else if (c == '&')
      o += "&amp;";
    else if (c == '"')
      o += "&quot;";
    else
      o += c;
  }
  return o;
}

double nines(double p) { return -std::log10(std::max(1e-4, 1.0 - p / 100.0)); }  // 0 at p=0, 4 at 99.99

/// Sizes of the document, in SVG user units.
struct SvgLayout {
  double width = 900, bar_h = 18, group_gap = 26, left = 230, plot_h = 320;
};

/// The bandwidth chart: title, legend (a colour per target), then per table
/// row a group of bars, one per target, with "MiB/s, IOPS" labels. Starts at y 0.
std::string svg_bar_chart(const Report& r, const std::vector<Row>& rows, const SvgLayout& L) {
  const std::size_t nt = r.targets.size();
  std::string s = "<text x=\"10\" y=\"20\" font-size=\"15\" font-weight=\"bold\">Bandwidth per test (MiB/s)</text>\n";
  for (std::size_t t = 0; t < nt; ++t)
    s += fmt::format(
        "<rect x=\"{}\" y=\"30\" width=\"12\" height=\"12\" fill=\"{}\"/><text x=\"{}\" y=\"41\">{}</text>\n",
        L.left + 220.0 * static_cast<double>(t), kColors[t % 8], L.left + 16 + 220.0 * static_cast<double>(t),
        esc(r.targets[t].label));
  double y = 60;
  for (const auto& row : rows) {
    double mx = 0;
    for (const auto* c : row.cells)
      if (c) mx = std::max(mx, c->bw_bytes / 1048576.0);
    s += fmt::format("<text x=\"10\" y=\"{:.0f}\">{}</text>\n", y + L.bar_h * static_cast<double>(nt) / 2 + 4,
                     esc(row.test));
    for (std::size_t t = 0; t < nt; ++t) {
      const DirStats* c = row.cells[t];
      double v = c ? c->bw_bytes / 1048576.0 : 0;
      double w = mx > 0 ? (L.width - L.left - 170) * v / mx : 0;
      s += fmt::format("<rect x=\"{}\" y=\"{:.0f}\" width=\"{:.1f}\" height=\"{}\" fill=\"{}\"/>", L.left, y, w,
                       L.bar_h - 3, kColors[t % 8]);
      s += fmt::format("<text x=\"{:.1f}\" y=\"{:.0f}\">{} MiB/s, {} IOPS</text>\n", L.left + w + 4, y + L.bar_h - 6,
                       c ? fmt_mib(v) : "-", c ? fmt_iops(c->iops) : "-");
      y += L.bar_h;
    }
    y += L.group_gap;
  }
  return s;
}

/// The latency percentiles a direction has (lat, else fio's clat).
const LatStats& svg_percentiles_of(const DirStats& d) { return d.lat.percentiles.empty() ? d.clat : d.lat; }

/// One target's latency-percentile plot with its top at `top`: a line per job
/// direction (x: nines scale p0..p99.99, y: ms, log scale). "" when the target
/// has no percentiles.
std::string svg_latency_plot(const TargetResult& target, double top, const SvgLayout& L) {
  const double pl = 70, pw = L.width - pl - 200, ph = L.plot_h - 60;
  std::string s =
      fmt::format("<text x=\"10\" y=\"{:.0f}\" font-size=\"15\" font-weight=\"bold\">Latency percentiles: {}</text>\n",
                  top, esc(target.label));
  double lo = 1e300, hi = 0;
  for (const auto& j : target.jobs)
    for (const auto* d : {j.read ? &*j.read : nullptr, j.write ? &*j.write : nullptr}) {
      if (!d) continue;
      for (const auto& [p, v] : svg_percentiles_of(*d).percentiles)
        if (v > 0) lo = std::min(lo, v / 1e6), hi = std::max(hi, v / 1e6);
    }
  if (hi <= 0) return s;
  double llo = std::floor(std::log10(lo)), lhi = std::ceil(std::log10(hi));
  if (lhi <= llo) lhi = llo + 1;
  double y0 = top + 20 + ph;
  auto X = [&](double p) { return pl + pw * nines(p) / 4.0; };
  auto Y = [&](double ms) { return y0 - ph * (std::log10(ms) - llo) / (lhi - llo); };
  s += fmt::format("<rect x=\"{}\" y=\"{:.0f}\" width=\"{:.0f}\" height=\"{:.0f}\" fill=\"none\" stroke=\"#999\"/>\n",
                   pl, top + 20, pw, ph);
  for (double e = llo; e <= lhi; ++e)
    s += fmt::format("<text x=\"{}\" y=\"{:.0f}\" text-anchor=\"end\">{} ms</text>\n", pl - 4, Y(std::pow(10, e)) + 4,
                     fmt_ms(std::pow(10, e)));
  for (double p : {0.0, 90.0, 99.0, 99.9, 99.99})
    s += fmt::format("<text x=\"{:.0f}\" y=\"{:.0f}\" text-anchor=\"middle\">p{}</text>\n", X(p), y0 + 16, p);
  std::size_t k = 0;
  for (const auto& j : target.jobs)
    for (const auto& [name, d] :
         {std::pair{"read", j.read ? &*j.read : nullptr}, std::pair{"write", j.write ? &*j.write : nullptr}}) {
      if (!d) continue;
      const LatStats& l = svg_percentiles_of(*d);
      if (l.percentiles.empty()) continue;
      std::string pts;
      for (const auto& [p, v] : l.percentiles)
        if (v > 0) pts += fmt::format("{:.1f},{:.1f} ", X(p), Y(v / 1e6));
      const char* col = kColors[k % 8];
      s += fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"2\" points=\"{}\"/>\n", col, pts);
      std::string lab = j.test_label() + (j.read && j.write ? std::string(" ") + name : "");
      s += fmt::format("<text x=\"{:.0f}\" y=\"{:.0f}\" fill=\"{}\">{}</text>\n", pl + pw + 8,
                       top + 34 + 16.0 * static_cast<double>(k), col, esc(lab));
      ++k;
    }
  return s;
}

}  // namespace

std::string render_svg(const Report& r) {
  const SvgLayout L;
  auto rows = table_rows(r);
  const std::size_t nt = r.targets.size();
  double bars_h = static_cast<double>(rows.size()) * (static_cast<double>(nt) * L.bar_h + L.group_gap) + 60;
  double plots_top = bars_h + 40;
  double H = plots_top + static_cast<double>(nt) * (L.plot_h + 40) + 20;
  std::string s = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1:.0f}\" viewBox=\"0 0 {0} {1:.0f}\" "
      "font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
      L.width, H);
  s += svg_bar_chart(r, rows, L);
  for (std::size_t t = 0; t < nt; ++t)
    s += svg_latency_plot(r.targets[t], plots_top + static_cast<double>(t) * (L.plot_h + 40), L);
  s += "</svg>\n";
  return s;
}

}  // namespace piprov::bench
