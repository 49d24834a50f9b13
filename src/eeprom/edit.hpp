#pragma once
// Edits of a bootloader config that keep every other byte as it was.
#include <string>
#include <string_view>

namespace piprov::eeprom {

struct BootOrderEdit {
  std::string text;       ///< the new config
  int line = 0;           ///< line now holding BOOT_ORDER (1-based)
  std::string old_value;  ///< the unconditional value replaced ("" when it was not set)
};

/// Sets the unconditional BOOT_ORDER to `value` (already validated, e.g. "0xf14"):
/// replaces the last BOOT_ORDER line outside conditional/[none] sections, else
/// appends "BOOT_ORDER=value" at the end (after a new "[all]" line when the
/// config ends inside another section). Line endings (LF/CRLF) are kept.
BootOrderEdit set_boot_order(std::string_view config_text, std::string_view value);

}  // namespace piprov::eeprom
