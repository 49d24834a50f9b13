#pragma once
// The one findings model of every checker (`boot check`, `eeprom check`,
// `provision`, config.txt and cmdline.txt lint): a Finding names a stable rule
// id, a severity, where it is, what is wrong, how to fix it and the public
// source of the rule. One exit-code policy, one text and one JSON rendering.
// Shape of the JSON finding: docs/findings.md.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace piprov {

/// error = the thing will not work as the user wants; warning = probably not
/// what was meant; info = worth knowing.
enum class Severity { Error, Warning, Info };

/// "error" / "warning" / "info".
std::string_view severity_name(Severity s);

struct Finding {
  std::string rule;  ///< stable kebab-case id, e.g. "boot-order-missing-mode", "kernel-uboot"
  Severity severity = Severity::Info;
  int line = 0;         ///< 1-based line in the file the finding is about; 0 = not about one line
  std::string key;      ///< setting concerned ("BOOT_ORDER", "kernel"); "" when none
  std::string message;  ///< what is wrong, one sentence
  std::string fix;      ///< a concrete change or command that resolves it; "" when nothing to do
  std::string source;   ///< public source of the rule (document, tool); "" when none
};

using Findings = std::vector<Finding>;

/// Number of findings of each severity.
struct FindingCounts {
  int errors = 0, warnings = 0, infos = 0;
};
FindingCounts count_findings(const Findings& f);

/// Which findings fail a command. FailOn::Error: only errors (`eeprom check`);
/// FailOn::Warning: errors and warnings (`boot check`, `provision`,
/// `eeprom check --strict`). Infos never fail.
enum class FailOn { Error, Warning };

/// Exit code of a checking command: static_cast<int>(ErrorKind::Check) (1)
/// when a finding fails under `fail_on`, else 0.
int findings_exit_code(const Findings& f, FailOn fail_on);

/// One block per finding, in the given order:
///   "line 3   error    rule: message\n"
///   "                 fix: ...\n"          (when fix is not empty)
///   "                 source: ...\n"       (when source is not empty)
/// "-" instead of "line N" when line is 0. "" for no findings.
std::string findings_text(const Findings& f);

/// "1 error(s), 2 warning(s), 0 info", plus " — OK" when the exit code is 0.
std::string findings_summary_text(const Findings& f, FailOn fail_on);

/// {"rule", "severity", "line" (null for 0), "key" (null for ""), "message", "fix", "source"}.
nlohmann::json finding_json(const Finding& f);
/// Array of finding_json, in the given order.
nlohmann::json findings_json(const Findings& f);
/// {"errors", "warnings", "infos", "exit_code"}.
nlohmann::json findings_summary_json(const Findings& f, FailOn fail_on);

/// The one JSON printer: serialises with an `indent`-space indent (-1: one line, no spaces);
/// bytes that are not UTF-8 (configs, file names and paths may hold any bytes) become U+FFFD
/// instead of throwing, so no --json output can fail after the disks were written.
std::string dump_json(const nlohmann::json& j, int indent = 2);

}  // namespace piprov
