#include "core/finding.hpp"

#include <fmt/format.h>

#include "core/enum_names.hpp"
#include "core/error.hpp"

namespace piprov {

namespace {
constexpr EnumName<Severity> kSeverityNames[] = {
    {Severity::Error, "error"}, {Severity::Warning, "warning"}, {Severity::Info, "info"}};
}  // namespace

std::string_view severity_name(Severity s) { return enum_name(kSeverityNames, s); }

FindingCounts count_findings(const Findings& f) {
  FindingCounts c;
  for (const auto& x : f) {
    if (x.severity == Severity::Error) ++c.errors;
    if (x.severity == Severity::Warning) ++c.warnings;
    if (x.severity == Severity::Info) ++c.infos;
  }
  return c;
}

int findings_exit_code(const Findings& f, FailOn fail_on) {
  auto c = count_findings(f);
  bool fails = c.errors > 0 || (fail_on == FailOn::Warning && c.warnings > 0);
  return fails ? static_cast<int>(ErrorKind::Check) : 0;
}

// Output renderer.
std::string findings_text(const Findings& f) {
  std::string out;
  for (const auto& x : f) {
    out += fmt::format("{:<8} {:<7}  {}: {}\n", x.line == 0 ? std::string("-") : fmt::format("line {}", x.line),
                       severity_name(x.severity), x.rule, x.message);
    if (!x.fix.empty()) out += fmt::format("{:<17}fix: {}\n", "", x.fix);
    if (!x.source.empty()) out += fmt::format("{:<17}source: {}\n", "", x.source);
  }
  return out;
}

std::string findings_summary_text(const Findings& f, FailOn fail_on) {
  auto c = count_findings(f);
  return fmt::format("{} error(s), {} warning(s), {} info{}", c.errors, c.warnings, c.infos,
                     findings_exit_code(f, fail_on) == 0 ? " — OK" : "");
}

nlohmann::json finding_json(const Finding& f) {
  return {{"rule", f.rule},
          {"severity", std::string(severity_name(f.severity))},
          {"line", f.line == 0 ? nlohmann::json(nullptr) : nlohmann::json(f.line)},
          {"key", f.key.empty() ? nlohmann::json(nullptr) : nlohmann::json(f.key)},
          {"message", f.message},
          {"fix", f.fix},
          {"source", f.source}};
}

nlohmann::json findings_json(const Findings& f) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& x : f) a.push_back(finding_json(x));
  return a;
}

nlohmann::json findings_summary_json(const Findings& f, FailOn fail_on) {
  auto c = count_findings(f);
  return {{"errors", c.errors},
          {"warnings", c.warnings},
          {"infos", c.infos},
          {"exit_code", findings_exit_code(f, fail_on)}};
}

std::string dump_json(const nlohmann::json& j, int indent) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace piprov
