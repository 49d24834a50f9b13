#include "fleet/fleet.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <nlohmann/json.hpp>

#include "bench/report.hpp"
#include "bench/verdict.hpp"
#include "core/enum_names.hpp"
#include "core/error.hpp"
#include "core/file.hpp"

namespace piprov::fleet {
namespace {
using nlohmann::json;

constexpr EnumName<CheckKind> kCheckKindNames[] = {{CheckKind::BootCheck, "boot check"},
                                                   {CheckKind::EepromCheck, "eeprom check"},
                                                   {CheckKind::Bench, "bench"},
                                                   {CheckKind::Other, "piprov"}};

constexpr const char* kAccepted =
    "piprov report reads the --json output of boot check (piprov.boot.check/2 to /5), eeprom check "
    "(piprov.eeprom.check/1) and bench (piprov.bench/2, or the older \"piprov_bench\": 1), and "
    "piprov.report.failed/1";

std::string str(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

int num(const json& j, const char* key, int fallback = 0) {
  auto it = j.find(key);
  return it != j.end() && it->is_number_integer() ? it->get<int>() : fallback;
}

Host& host_of(Fleet& f, const std::string& name) {
  for (auto& h : f.hosts)
    if (h.name == name) return h;
  f.hosts.push_back(Host{name, {}, {}});
  return f.hosts.back();
}

/// First finding of `severity` in the "findings" array.
std::optional<Problem> first_of(const json& doc, std::string_view severity) {
  auto it = doc.find("findings");
  if (it == doc.end() || !it->is_array()) return std::nullopt;
  for (const auto& f : *it)
    if (f.is_object() && str(f, "severity") == severity) return Problem{str(f, "rule"), str(f, "message")};
  return std::nullopt;
}

/// Counts, exit code and first problem of a findings report (docs/findings.md).
Check findings_check(const json& doc, const InputFile& file, CheckKind kind) {
  Check c;
  c.kind = kind;
  c.path = file.path;
  c.schema = str(doc, "schema");
  json summary = doc.value("summary", json::object());
  if (!summary.is_object()) summary = json::object();
  c.errors = num(summary, "errors"), c.warnings = num(summary, "warnings"), c.infos = num(summary, "infos");
  c.exit_code = num(summary, "exit_code");
  c.first = first_of(doc, "error");
  if (!c.first && c.exit_code != 0) c.first = first_of(doc, "warning");
  return c;
}

/// boot check: the layout object is in schemas 3 and 4 (docs/boot.md).
Check boot_check(const json& doc, const InputFile& file) {
  Check c = findings_check(doc, file, CheckKind::BootCheck);
  auto it = doc.find("layout");
  if (it != doc.end() && it->is_object()) {
    c.layout = str(*it, "id"), c.release = str(*it, "release"), c.board = str(*it, "board");
    auto usb = it->find("usb_boot");
    if (usb != it->end() && usb->is_boolean()) c.usb_boot = usb->get<bool>();
  }
  return c;
}

Check eeprom_check(const json& doc, const InputFile& file) {
  Check c = findings_check(doc, file, CheckKind::EepromCheck);
  c.board = str(doc, "board");
  if (auto bo = doc.find("boot_order"); bo != doc.end() && bo->is_object())
    c.boot_order = str(*bo, "value"), c.boot_order_words = str(*bo, "words");
  return c;
}

Check failed_run(const json& doc, const InputFile& file) {
  Check c;
  c.kind = parse_enum(kCheckKindNames, str(doc, "check")).value_or(CheckKind::Other);
  c.path = file.path;
  c.schema = str(doc, "schema");
  c.ran = false;
  c.exit_code = num(doc, "exit_code", 3);
  if (c.exit_code == 0) c.exit_code = 3;  // a failed run is never ok
  c.first = Problem{"", str(doc, "error")};
  return c;
}

/// IOPS for random tests, MiB/s otherwise.
const char* unit_of(const bench::JobResult& j) {
  const auto rw = j.rw_mode();
  return rw && bench::rw_random(*rw) ? "IOPS" : "MiB/s";
}

/// The job's error line, "failed: EIO" when it has only an errno, "" when it ran.
std::string job_error(const bench::JobResult& j) {
  if (!j.error.empty()) return j.error;
  return j.err ? "failed: " + errno_name(j.err) : std::string();
}

Figure figure_of(const bench::Row& row, std::size_t t) {
  Figure f;
  f.test = row.test;
  const bench::JobResult* job = row.jobs[t];
  f.unit = job ? unit_of(*job) : "MiB/s";
  if (job) f.error = job_error(*job);
  if (const bench::DirStats* d = row.cells[t]; d && f.error.empty()) {
    f.iops = d->iops, f.mib_s = d->bw_bytes / 1048576.0;
    f.value = f.unit == "IOPS" ? f.iops : f.mib_s;
  }
  return f;
}

/// The first line of the target's agnostics verdict that failed a threshold,
/// without the label sdtest.sh puts first; "" when none failed.
std::string verdict_failure(const bench::TargetResult& t) {
  auto v = bench::agnostics_verdict(t);
  if (!v || v->overall != bench::AgnosticsResult::Fail) return "";
  for (std::size_t i = 0; i < v->lines.size(); ++i) {
    if (v->lines[i].measured < 0 || v->lines[i].pass()) continue;
    std::string line = v->text[i];  // "<label>: Random write speed 499 IOPS (target 500) - FAIL"
    if (line.rfind(t.label + ": ", 0) == 0) line.erase(0, t.label.size() + 2);
    return "agnostics: " + line;
  }
  return "";
}

void add_bench(Host& h, std::string_view text, const InputFile& file) {
  bench::Report r = bench::report_from_json(text, file.path);
  auto rows = bench::table_rows(r);
  for (std::size_t t = 0; t < r.targets.size(); ++t) {
    const bench::TargetResult& target = r.targets[t];
    BenchTarget bt{target.label, file.path, target.error, verdict_failure(target), {}};
    if (target.err && bt.error.empty()) bt.error = "failed: " + errno_name(target.err);
    for (const auto& row : rows)
      if (row.jobs[t]) bt.figures.push_back(figure_of(row, t));
    for (const auto& j : target.jobs)  // a job that failed before it measured anything has no row
      if (!job_error(j).empty() && !j.read && !j.write) {
        Figure f;
        f.test = j.test_label(), f.unit = unit_of(j), f.error = job_error(j);
        bt.figures.push_back(std::move(f));
      }
    h.bench.push_back(std::move(bt));
  }
}

}  // namespace

std::string_view check_kind_name(CheckKind k) { return enum_name(kCheckKindNames, k); }

bool Host::failed() const {
  bool check_failed = std::any_of(checks.begin(), checks.end(), [](const Check& c) { return c.exit_code != 0; });
  bool bench_failed = std::any_of(bench.begin(), bench.end(), [](const BenchTarget& b) {
    return !b.error.empty() || !b.verdict_failure.empty() ||
           std::any_of(b.figures.begin(), b.figures.end(), [](const Figure& f) { return !f.error.empty(); });
  });
  return check_failed || bench_failed;
}

std::size_t Fleet::failed_count() const {
  return static_cast<std::size_t>(std::count_if(hosts.begin(), hosts.end(), [](const Host& h) { return h.failed(); }));
}

void add_document(Fleet& fleet, const InputFile& file, std::string_view text) {
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object())
    throw Error(ErrorKind::Usage, fmt::format("{}: not a JSON object ({})", file.path, kAccepted));
  Host& h = host_of(fleet, file.host);
  if (bench::is_bench_report(doc)) return add_bench(h, text, file);
  std::string schema = str(doc, "schema");
  Check c;
  if (schema == "piprov.boot.check/2" || schema == "piprov.boot.check/3" || schema == "piprov.boot.check/4" ||
      schema == "piprov.boot.check/5")
    c = boot_check(doc, file);
  else if (schema == "piprov.eeprom.check/1")
    c = eeprom_check(doc, file);
  else if (schema == "piprov.report.failed/1")
    c = failed_run(doc, file);
  else
    throw Error(ErrorKind::Usage, fmt::format("{}: unknown schema '{}' ({})", file.path,
                                              schema.empty() ? std::string("none") : schema, kAccepted));
  for (const auto& old : h.checks)
    if (old.kind == c.kind)
      throw Error(ErrorKind::Usage,
                  fmt::format("{}: two {} results ({} and {}): give one per host (HOST=FILE names the host)", h.name,
                              check_kind_name(c.kind), old.path, file.path));
  h.checks.push_back(std::move(c));
}

Fleet load_fleet(const std::vector<InputFile>& files) {
  Fleet f;
  for (const auto& file : files) {
    // piprov's JSON results are kilobytes (a bench run with histograms, a few MiB).
    auto text = read_file_capped(file.path, 64u << 20, "piprov JSON result");
    if (!text) throw Error(ErrorKind::Usage, file.path + " is over 64 MiB: not a piprov --json result");
    add_document(f, file, *text);
  }
  return f;
}

int fleet_exit_code(const Fleet& fleet) { return fleet.failed_count() > 0 ? static_cast<int>(ErrorKind::Check) : 0; }

}  // namespace piprov::fleet
