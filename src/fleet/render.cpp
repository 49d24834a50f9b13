#include "fleet/render.hpp"

#include <fmt/format.h>
#include <algorithm>

#include "bench/report.hpp"
#include "core/enum_names.hpp"
#include "core/error.hpp"
#include "core/finding.hpp"
#include "core/strings.hpp"

namespace piprov::fleet {
namespace {
using nlohmann::json;

struct Grid {
  std::vector<std::string> head;
  std::vector<std::vector<std::string>> body;
};

const Check* find_check(const Host& h, CheckKind kind) {
  for (const auto& c : h.checks)
    if (c.kind == kind) return &c;
  return nullptr;
}

std::string counts(const Check* c) {
  if (!c) return "-";
  if (!c->ran) return "failed";
  return fmt::format("{}/{}/{}", c->errors, c->warnings, c->infos);
}

std::string layout_cell(const Check* boot) {
  if (!boot || !boot->ran) return "-";
  if (boot->layout.empty()) return "-";
  return boot->release.empty() ? boot->layout : boot->layout + " " + boot->release;
}

std::string usb_cell(const Check* boot) {
  if (!boot || !boot->usb_boot) return "-";
  return *boot->usb_boot ? "yes" : "no";
}

/// "boot check: kernel-missing: vmlinuz does not exist" for the first check that has a problem.
std::string first_problem(const Host& h) {
  for (const auto& c : h.checks) {
    if (!c.first || c.exit_code == 0) continue;
    std::string what = c.first->rule.empty() ? c.first->message : c.first->rule + ": " + c.first->message;
    return std::string(check_kind_name(c.kind)) + ": " + what;
  }
  for (const auto& b : h.bench) {
    if (!b.error.empty()) return "bench " + b.label + ": " + b.error;
    if (!b.verdict_failure.empty()) return "bench " + b.label + ": " + b.verdict_failure;
    for (const auto& f : b.figures)
      if (!f.error.empty()) return "bench " + b.label + " " + f.test + ": " + f.error;
  }
  return "-";
}

Grid checks_grid(const Fleet& fleet) {
  Grid g{{"host", "status", "layout", "USB boot", "boot E/W/I", "BOOT_ORDER", "eeprom E/W/I", "first error"}, {}};
  for (const auto& h : fleet.hosts) {
    const Check* boot = find_check(h, CheckKind::BootCheck);
    const Check* eeprom = find_check(h, CheckKind::EepromCheck);
    std::string order = eeprom && !eeprom->boot_order.empty() ? eeprom->boot_order : "-";
    g.body.push_back({h.name, h.failed() ? "FAILED" : "ok", layout_cell(boot), usb_cell(boot), counts(boot), order,
                      counts(eeprom), first_problem(h)});
  }
  return g;
}

/// Column titles: every test in order of first appearance, with its unit.
std::vector<std::pair<std::string, std::string>> bench_columns(const Fleet& fleet) {
  std::vector<std::pair<std::string, std::string>> cols;
  for (const auto& h : fleet.hosts)
    for (const auto& b : h.bench)
      for (const auto& f : b.figures)
        if (std::find(cols.begin(), cols.end(), std::pair{f.test, f.unit}) == cols.end())
          cols.emplace_back(f.test, f.unit);
  return cols;
}

std::string figure_cell(const Figure& f) {
  if (!f.error.empty()) return "failed";
  if (f.value < 0) return "-";
  return f.unit == "IOPS" ? bench::fmt_iops(f.value) : bench::fmt_mib(f.value);
}

Grid bench_grid(const Fleet& fleet) {
  auto cols = bench_columns(fleet);
  Grid g{{"host", "target"}, {}};
  for (const auto& [test, unit] : cols) g.head.push_back(test + " " + unit);
  for (const auto& h : fleet.hosts)
    for (const auto& b : h.bench) {
      std::vector<std::string> line{h.name, b.label};
      for (const auto& col : cols) {
        auto it = std::find_if(b.figures.begin(), b.figures.end(),
                               [&](const Figure& f) { return f.test == col.first && f.unit == col.second; });
        line.push_back(it == b.figures.end() ? (b.error.empty() ? "-" : "failed") : figure_cell(*it));
      }
      g.body.push_back(std::move(line));
    }
  return g;
}

std::string text_grid(const Grid& g) {
  std::vector<std::size_t> w(g.head.size());
  for (std::size_t c = 0; c < g.head.size(); ++c) {
    w[c] = g.head[c].size();
    for (const auto& l : g.body) w[c] = std::max(w[c], l[c].size());
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string s;
    for (std::size_t c = 0; c < cells.size(); ++c)
      s += c + 1 == cells.size() ? cells[c] : fmt::format("{:<{}}  ", cells[c], w[c]);
    return s + "\n";
  };
  std::string out = line(g.head);
  for (const auto& l : g.body) out += line(l);
  return out;
}

std::string markdown_grid(const Grid& g) {
  auto line = [](const std::vector<std::string>& cells) {
    std::string s = "|";
    for (const auto& c : cells) s += " " + c + " |";
    return s + "\n";
  };
  std::string out = line(g.head) + "|";
  for (std::size_t c = 0; c < g.head.size(); ++c) out += "---|";
  out += "\n";
  for (const auto& l : g.body) out += line(l);
  return out;
}

std::string summary_line(const Fleet& fleet) {
  std::vector<std::string> failed;
  for (const auto& h : fleet.hosts)
    if (h.failed()) failed.push_back(h.name);
  if (failed.empty()) return fmt::format("report: {} host(s), all ok", fleet.hosts.size());
  return fmt::format("report: {} host(s), {} failed: {}", fleet.hosts.size(), failed.size(), join(failed, ", "));
}

std::string render_grids(const Fleet& fleet, std::string (*grid)(const Grid&)) {
  std::string out = grid(checks_grid(fleet));
  Grid b = bench_grid(fleet);
  if (!b.body.empty()) out += "\n" + grid(b);
  return out + "\n" + summary_line(fleet) + "\n";
}

json problem_json(const std::optional<Problem>& p) {
  if (!p) return nullptr;
  return {{"rule", p->rule.empty() ? json(nullptr) : json(p->rule)}, {"message", p->message}};
}

json opt_str(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }

json check_json(const Check& c) {
  json j = {{"check", check_kind_name(c.kind)},
            {"file", c.path},
            {"schema", c.schema},
            {"ran", c.ran},
            {"exit_code", c.exit_code},
            {"errors", c.errors},
            {"warnings", c.warnings},
            {"infos", c.infos},
            {"first_problem", problem_json(c.first)}};
  if (c.kind == CheckKind::BootCheck)
    j["layout"] = {{"id", opt_str(c.layout)},
                   {"release", opt_str(c.release)},
                   {"board", opt_str(c.board)},
                   {"usb_boot", c.usb_boot ? json(*c.usb_boot) : json(nullptr)}};
  if (c.kind == CheckKind::EepromCheck)
    j["boot_order"] = {{"value", opt_str(c.boot_order)}, {"words", opt_str(c.boot_order_words)}};
  return j;
}

json num_or_null(double v) { return v < 0 ? json(nullptr) : json(v); }

json bench_json(const BenchTarget& b) {
  json figures = json::array();
  for (const auto& f : b.figures)
    figures.push_back({{"test", f.test},
                       {"unit", f.unit},
                       {"value", num_or_null(f.value)},
                       {"iops", num_or_null(f.iops)},
                       {"mib_s", num_or_null(f.mib_s)},
                       {"error", opt_str(f.error)}});
  return {{"target", b.label},
          {"file", b.path},
          {"error", opt_str(b.error)},
          {"verdict_failure", opt_str(b.verdict_failure)},
          {"figures", figures}};
}

}  // namespace

namespace {
// "md" is accepted for markdown and "table" for text, as `bench` names them.
constexpr EnumName<Format> kFleetFormatNames[] = {
    {Format::Text, "text"}, {Format::Markdown, "markdown"}, {Format::Json, "json"}};
}  // namespace

Format parse_format(const std::string& name) {
  const std::string n = name == "md" ? "markdown" : name == "table" ? "text" : name;
  if (auto f = parse_enum(kFleetFormatNames, n)) return *f;
  throw Error(ErrorKind::Usage,
              "unknown --format '" + name + "': use " + enum_choices(kFleetFormatNames, ", ", " or "));
}

std::string format_choices() { return enum_choices(kFleetFormatNames, " | "); }

json fleet_json(const Fleet& fleet) {
  json hosts = json::array();
  for (const auto& h : fleet.hosts) {
    json checks = json::array(), bench = json::array();
    for (const auto& c : h.checks) checks.push_back(check_json(c));
    for (const auto& b : h.bench) bench.push_back(bench_json(b));
    std::string first = first_problem(h);
    hosts.push_back({{"host", h.name},
                     {"status", h.failed() ? "failed" : "ok"},
                     {"first_error", first == "-" ? json(nullptr) : json(first)},
                     {"checks", checks},
                     {"bench", bench}});
  }
  return {{"schema", "piprov.report/1"},
          {"hosts", hosts},
          {"summary",
           {{"hosts", fleet.hosts.size()}, {"failed", fleet.failed_count()}, {"exit_code", fleet_exit_code(fleet)}}}};
}

std::string render(const Fleet& fleet, Format format) {
  switch (format) {
    case Format::Text: return render_grids(fleet, text_grid);
    case Format::Markdown: return render_grids(fleet, markdown_grid);
    case Format::Json: return dump_json(fleet_json(fleet)) + "\n";
  }
  return {};
}

}  // namespace piprov::fleet
