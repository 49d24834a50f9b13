#pragma once
// One finding of `piprov eeprom check`: a rule id (kebab-case, stable, listed
// in docs/eeprom.md), a severity, the 1-based config line (0 = the config as
// a whole or a board default), what is wrong, how to fix it and where the
// rule comes from.
#include <string>
#include <string_view>
#include <vector>

namespace piprov::eeprom {

enum class Severity { Error, Warning, Info };

/// "error" / "warning" / "info".
std::string_view severity_name(Severity s);

struct Finding {
  std::string rule;  ///< stable id, e.g. "boot-order-missing-mode"
  Severity severity = Severity::Info;
  int line = 0;         ///< 1-based line in the config text; 0 = whole config / default
  std::string key;      ///< bootloader key concerned ("" when none)
  std::string message;  ///< what is wrong, one sentence
  std::string fix;      ///< a concrete change that resolves it
  std::string source;   ///< where the rule comes from (doc, tool, spec)
};

using Findings = std::vector<Finding>;

}  // namespace piprov::eeprom
