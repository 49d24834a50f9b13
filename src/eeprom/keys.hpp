#pragma once
// The rule table: every bootloader key piprov knows, with type, limits,
// default, boards and source. Keys and limits: Raspberry Pi documentation,
// eeprom-bootloader: configuration properties; keys of type Any exist there
// but their values are not checked, so only their presence is known.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "core/finding.hpp"
#include "eeprom/board.hpp"

namespace piprov::eeprom {

enum class ValueType {
  Int,         ///< decimal integer within [min, max]
  BootOrder,   ///< checked by boot_order.hpp
  String,      ///< free text, at most `max` characters when max > 0
  VidPidList,  ///< up to 4 comma-separated 8-hex-digit VID:PID items
  Choice,      ///< one of the comma-separated `choices`
  Any,         ///< not checked
};

/// Which boards have the key.
enum BoardMask : unsigned { kPi4Family = 1, kPi5 = 2, kAllBoards = 3 };

struct KeyRule {
  std::string_view key;
  ValueType type;
  std::int64_t min;
  std::int64_t max;
  std::string_view default_value;  ///< "" when none / board dependent
  unsigned boards;                 ///< BoardMask bits
  std::string_view source;
  std::string_view choices = {};  ///< Choice: the accepted values, "9600,19200"
};

/// The whole table, in documentation order.
std::span<const KeyRule> key_rules();
/// Exact (case-sensitive) lookup.
const KeyRule* find_key(std::string_view key);
/// Lookup ignoring ASCII case ("boot_order" finds BOOT_ORDER): what a key written in another case
/// was meant to be. The bootloader itself matches keys exactly (find_key).
const KeyRule* find_key_any_case(std::string_view key);
/// Nearest known key by edit distance (case-insensitive), when close enough to
/// be a typo ("BOOT_ODER" -> "BOOT_ORDER"); nullopt otherwise.
std::optional<std::string_view> nearest_key(std::string_view key);
/// Whether the key exists on `board`.
bool key_on_board(const KeyRule& r, Board board);

/// Findings for one setting (`key` known or not) at `line` on `board`:
/// unknown-key, key-wrong-board, value-invalid, value-out-of-range.
/// BOOT_ORDER values are left to check_boot_order().
Findings check_setting(std::string_view key, std::string_view value, int line, Board board);

}  // namespace piprov::eeprom
