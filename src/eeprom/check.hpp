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
  /// `eeprom check` without --want: ignore `want` and take default_want() of the board and config.
  bool want_from_board = false;
  /// The EEPROM image checked (--image), named in the set-boot-order commands fixes suggest;
  /// "" (config text, --live): they say pieeprom.bin.
  std::string image;
};

struct CheckInput {
  std::string config_text;
  std::optional<BootloaderInfo> bootloader;    ///< from --image or --live
  std::optional<std::string> release_channel;  ///< FIRMWARE_RELEASE_STATUS, --live only
};

/// A BOOT_ORDER that only applies under a conditional section (or, in `overridden`, one a later
/// value replaces).
struct ConditionalBootOrder {
  std::string section;  ///< every active filter: "[gpio3=1]", "[pi4] then [gpio4=1]"
  int line = 0;
  std::string text;                ///< value as written
  std::optional<BootOrder> order;  ///< nullopt when invalid
  int overridden_by = 0;           ///< the later line that always applies and replaces it; 0 = none
};

/// What the bootloader uses when no conditional section matches.
struct EffectiveBootOrder {
  std::optional<BootOrder> order;  ///< nullopt when the value set is invalid
  std::string text;                ///< as written, or the board default ("0xf41")
  int line = 0;                    ///< 0 = board default (BOOT_ORDER not set)
  std::string section;             ///< the model filter it is set under ("[pi4]"), "" for [all] / none
  /// Values that apply only under conditional filters and are not replaced by a later value.
  std::vector<ConditionalBootOrder> conditional;
  /// Values a later one that always applies replaces (never take effect on the board): conditional
  /// ones and those under a model filter, by line (rule boot-order-overridden).
  std::vector<ConditionalBootOrder> overridden;
  /// "21" when [gpio21=0] and [gpio21=1] both set BOOT_ORDER: one of them always
  /// applies and the value above never does; "" otherwise.
  std::string always_gpio;
  bool is_default() const { return line == 0; }
};

/// Last BOOT_ORDER in sections that always apply ([all], none, a matching model filter), else the
/// board default; [none]/[tryboot]/unknown sections are ignored;
/// [gpio..]/[partition=N]/[0xSERIAL] values after it are listed as conditional, those before it
/// as overridden (the last value that applies wins: Raspberry Pi documentation, config_txt:
/// conditional filters).
EffectiveBootOrder effective_boot_order(const Config& cfg, Board board);

/// The wanted mode when the user names none: a Pi 4B/400 wants USB (4), its only drive mode;
/// a board with NVMe (CM4, Pi 5, Pi 500, CM5) wants the first of USB (4) / NVMe (6) tried by
/// the BOOT_ORDER that applies (the effective one, the board default when unset; when a
/// [gpioN=0]/[gpioN=1] pair replaces it, the pair's values in line order). When none tries
/// either (0x1, 0xf1, 0xf2): nothing (nullopt), and check_config warns boot-order-no-drive.
/// Source: Raspberry Pi documentation, eeprom-bootloader: BOOT_ORDER.
std::optional<Want> default_want(Board board, const EffectiveBootOrder& eff);

struct CheckReport {
  Config config;
  EffectiveBootOrder boot_order;
  std::optional<Want> want;  ///< the wanted mode checked (given, or default_want())
  Findings findings;         ///< sorted by line (whole-config findings last)
};

/// Parses and checks: check_syntax, then the rules of docs/eeprom.md "Rules"
/// in order. Never throws on any input text.
CheckReport check_config(const CheckInput& in, const CheckOptions& opt);

/// What fails `eeprom check`: errors; with `strict` (--strict) warnings too.
/// Exit code: findings_exit_code(report.findings, check_fail_on(strict)).
FailOn check_fail_on(bool strict);

}  // namespace piprov::eeprom
