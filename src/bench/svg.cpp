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

}  // namespace

std::string render_svg(const Report& r) {
  auto rows = table_rows(r);
  const double W = 900, bar_h = 18, group_gap = 26, left = 230;
  std::size_t nt = r.targets.size();
  double bars_h = static_cast<double>(rows.size()) * (static_cast<double>(nt) * bar_h + group_gap) + 60;
  double plot_h = 320;
  double plots_top = bars_h + 40;
  double H = plots_top + static_cast<double>(nt) * (plot_h + 40) + 20;
  std::string s = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1:.0f}\" viewBox=\"0 0 {0} {1:.0f}\" "
      "font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
      W, H);
  s += "<text x=\"10\" y=\"20\" font-size=\"15\" font-weight=\"bold\">Bandwidth per test (MiB/s)</text>\n";
  for (std::size_t t = 0; t < nt; ++t)
    s += fmt::format(
        "<rect x=\"{}\" y=\"30\" width=\"12\" height=\"12\" fill=\"{}\"/><text x=\"{}\" y=\"41\">{}</text>\n",
        left + 220.0 * static_cast<double>(t), kColors[t % 8], left + 16 + 220.0 * static_cast<double>(t),
        esc(r.targets[t].label));
  double y = 60;
  for (const auto& row : rows) {
    double mx = 0;
    for (const auto* c : row.cells)
      if (c) mx = std::max(mx, c->bw_bytes / 1048576.0);
    s += fmt::format("<text x=\"10\" y=\"{:.0f}\">{}</text>\n", y + bar_h * static_cast<double>(nt) / 2 + 4,
                     esc(row.test));
    for (std::size_t t = 0; t < nt; ++t) {
      const DirStats* c = row.cells[t];
      double v = c ? c->bw_bytes / 1048576.0 : 0;
      double w = mx > 0 ? (W - left - 170) * v / mx : 0;
      s += fmt::format("<rect x=\"{}\" y=\"{:.0f}\" width=\"{:.1f}\" height=\"{}\" fill=\"{}\"/>", left, y, w,
                       bar_h - 3, kColors[t % 8]);
      s += fmt::format("<text x=\"{:.1f}\" y=\"{:.0f}\">{} MiB/s, {} IOPS</text>\n", left + w + 4, y + bar_h - 6,
                       c ? fmt_mib(v) : "-", c ? fmt_iops(c->iops) : "-");
      y += bar_h;
    }
    y += group_gap;
  }
  for (std::size_t t = 0; t < nt; ++t) {
    double top = plots_top + static_cast<double>(t) * (plot_h + 40), pl = 70, pw = W - pl - 200, ph = plot_h - 60;
    s += fmt::format(
        "<text x=\"10\" y=\"{:.0f}\" font-size=\"15\" font-weight=\"bold\">Latency percentiles: {}</text>\n", top,
        esc(r.targets[t].label));
    double lo = 1e300, hi = 0;
    for (const auto& j : r.targets[t].jobs)
      for (const auto* d : {j.read ? &*j.read : nullptr, j.write ? &*j.write : nullptr}) {
        if (!d) continue;
        const LatStats& l = d->lat.percentiles.empty() ? d->clat : d->lat;
        for (const auto& [p, v] : l.percentiles)
          if (v > 0) lo = std::min(lo, v / 1e6), hi = std::max(hi, v / 1e6);
      }
    if (hi <= 0) continue;
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
    for (const auto& j : r.targets[t].jobs)
      for (const auto& [name, d] :
           {std::pair{"read", j.read ? &*j.read : nullptr}, std::pair{"write", j.write ? &*j.write : nullptr}}) {
        if (!d) continue;
        const LatStats& l = d->lat.percentiles.empty() ? d->clat : d->lat;
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
  }
  s += "</svg>\n";
  return s;
}

}  // namespace piprov::bench
