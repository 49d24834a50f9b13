#pragma once
// BOOT_ORDER: one boot mode per hex nibble, read from the least significant
// nibble, at most 8 nibbles; 0xe (STOP) and 0xf (RESTART) end the walk.
// Source: Raspberry Pi documentation, eeprom-bootloader: BOOT_ORDER.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/finding.hpp"
#include "eeprom/board.hpp"

namespace piprov::eeprom {

/// What the user wants the Pi to boot from (`--want`).
enum class Want { Usb, Nvme, Sd, Network };
std::optional<Want> parse_want(std::string_view s);  ///< "usb"|"nvme"|"sd"|"network"
std::string_view want_name(Want w);
/// The boot-mode nibble that satisfies `w`: usb 4, nvme 6, sd 1, network 2.
int want_mode(Want w);
/// Whether boot mode `nibble` satisfies `w`: network is NETWORK (2, TFTP) or
/// HTTP (7); the others only their want_mode(). Source: Raspberry Pi
/// documentation, eeprom-bootloader: BOOT_ORDER.
bool want_satisfied_by(Want w, int nibble);

/// A parsed BOOT_ORDER value.
struct BootOrder {
  std::uint32_t value = 0;
  std::vector<int> modes;  ///< nibbles in the order tried (least significant first)
};

/// Result of parse_boot_order: `order` or a one-line `error`.
struct BootOrderParse {
  std::optional<BootOrder> order;
  std::string error;
};

/// Parses "0xf41": `0x`/`0X` then 1..8 hex digits, value != 0. Never throws.
BootOrderParse parse_boot_order(std::string_view text);
/// Builds a BootOrder from a number (e.g. a board default).
BootOrder boot_order_from_value(std::uint32_t value);
/// "0xf41" (lower-case hex).
std::string format_boot_order(std::uint32_t value);

/// Short name of a mode: "SD card", "USB mass storage", "restart from the top"...
/// "unknown mode 0x9" for nibbles 8..d.
std::string mode_name(int nibble);
/// Whether `nibble` is a defined mode (0..7, e, f).
bool mode_known(int nibble);
/// Number of modes actually tried: up to and including the first STOP/RESTART.
std::size_t reachable_count(const BootOrder& o);

/// The order in words: "SD card, then USB mass storage, then restart from the top".
/// Modes the board lacks get "(not on <board>: skipped)", nibbles after STOP/RESTART
/// are listed as never reached. When the board has none of the modes tried: "no mode a
/// Raspberry Pi 5 has (it skips USB mass storage on the USB-C port (BCM-USB-MSD)), then ...".
std::string boot_order_words(const BootOrder& o, std::optional<Board> board = std::nullopt);

/// True when a mode `board` has is among the modes `o` tries (before STOP/RESTART): false for
/// 0xf5 on a Pi 5 (mode 5, BCM-USB-MSD, is Pi 4 only: eeprom-bootloader BOOT_ORDER) or 0xf.
bool boot_order_tries_board_mode(const BootOrder& o, Board board);

/// A BOOT_ORDER with the wanted mode first, the other reachable modes the board
/// has after it, ending in RESTART: 0x1 + usb -> 0xf14, 0x21 + usb -> 0xf214.
std::uint32_t suggest_boot_order(const BootOrder& o, Want want, Board board);

/// Findings about one BOOT_ORDER value (structure, board, wanted mode).
/// `line` 0 means the board default. `conditional` names the section
/// ("[gpio3=1]") when the value only applies under it ("" = unconditional);
/// missing-mode is an error only for the unconditional order. `section` names the filters the
/// value is set under when not [all] ("[pi4]"; "" = `conditional`): missing-mode's fix edits the
/// value there (set-boot-order changes only the [all] one).
/// `image`: the EEPROM image checked (--image), named in the set-boot-order fix ("" = pieeprom.bin).
Findings check_boot_order(const BootOrder& o, int line, Board board, std::optional<Want> want,
                          const std::string& conditional = "", const std::string& section = "",
                          const std::string& image = "");

/// The set-boot-order command a fix suggests: "piprov eeprom set-boot-order VALUE --image IMAGE
/// --out new.bin", IMAGE being `image` shell-quoted, or pieeprom.bin when `image` is "" (a config
/// file or --live was checked).
std::string set_boot_order_command(std::string_view value, const std::string& image);

}  // namespace piprov::eeprom
