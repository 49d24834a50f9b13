#pragma once
// Rendering of `eeprom check` / `eeprom explain` / `eeprom set-boot-order`
// results as text (for people) and JSON (schemas "piprov.eeprom.check/1" and
// "piprov.eeprom.set-boot-order/1", docs/eeprom.md). Findings are rendered by
// core/finding.hpp.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "eeprom/boot_order_plan.hpp"
#include "eeprom/check.hpp"
#include "eeprom/input.hpp"

namespace piprov::eeprom {

/// The whole check result (see docs/eeprom.md "JSON schema").
nlohmann::json check_json(const CheckReport& r, const CheckOptions& opt, const CheckContext& ctx);
/// Text report: header, effective BOOT_ORDER, one block per finding, summary line.
std::string check_text(const CheckReport& r, const CheckOptions& opt, const CheckContext& ctx);

/// JSON for `eeprom explain` (schema "piprov.eeprom.explain/1"): boot_order, value, modes[], words, board.
nlohmann::json explain_json(const BootOrder& o, std::optional<Board> board);

/// JSON for `eeprom set-boot-order` (docs/eeprom.md "set-boot-order").
nlohmann::json boot_order_plan_json(const BootOrderPlan& p, const std::string& image, const std::string& out);

}  // namespace piprov::eeprom
