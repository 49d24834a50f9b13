#pragma once
// `piprov eeprom check`: runs every rule over one bootloader config (plus the
// bootloader version and release channel when known) and works out the
// effective BOOT_ORDER. Rule ids: docs/eeprom.md; the Finding shape and exit
// policy: core/finding.hpp.
#include <optional>
#include <string>
#include <vector>

#include "core/finding.hpp"
#include "eeprom/board.hpp"
#include "eeprom/boot_order.hpp"
#include "eeprom/config.hpp"
#include "eeprom/version.hpp"

namespace piprov::eeprom {

struct CheckOptions {
  Board board = Board::Pi4;
  std::optional<Want> want = Want::Usb;  ///< nullopt: no wanted mode
};

struct CheckInput {
  std::string config_text;
  std::optional<BootloaderInfo> bootloader;    ///< from --image or --live
  std::optional<std::string> release_channel;  ///< FIRMWARE_RELEASE_STATUS, --live only
};

/// A BOOT_ORDER that only applies under a conditional section.
struct ConditionalBootOrder {
  std::string section;  ///< "[gpio3=1]"
  int line = 0;
  std::string text;                ///< value as written
  std::optional<BootOrder> order;  ///< nullopt when invalid
};

/// What the bootloader uses when no conditional section matches.
struct EffectiveBootOrder {
  std::optional<BootOrder> order;  ///< nullopt when the value set is invalid
  std::string text;                ///< as written, or the board default ("0xf41")
  int line = 0;                    ///< 0 = board default (BOOT_ORDER not set)
  std::vector<ConditionalBootOrder> conditional;
  bool is_default() const { return line == 0; }
};

/// Last BOOT_ORDER in sections that always apply ([all] or none), else the
/// board default; [none]/unknown sections are ignored; [gpio..]/[0xSERIAL]
/// values are listed as conditional.
EffectiveBootOrder effective_boot_order(const Config& cfg, Board board);

struct CheckReport {
  Config config;
  EffectiveBootOrder boot_order;
  Findings findings;  ///< sorted by line (whole-config findings last)
};

/// Parses and checks: check_syntax, then the rules of docs/eeprom.md "Rules"
/// in order. Never throws on any input text.
CheckReport check_config(const CheckInput& in, const CheckOptions& opt);

/// What fails `eeprom check`: errors; with `strict` (--strict) warnings too.
/// Exit code: findings_exit_code(report.findings, check_fail_on(strict)).
FailOn check_fail_on(bool strict);

}  // namespace piprov::eeprom
