#pragma once
// Boards whose bootloader lives in an SPI EEPROM, and what differs between
// them: BOOT_ORDER defaults and the boot modes each one has.
// Source: Raspberry Pi documentation, eeprom-bootloader: BOOT_ORDER.
#include <cstdint>
#include <optional>
#include <string_view>

#include "core/board.hpp"

namespace piprov::eeprom {

/// The boards with an SPI EEPROM bootloader; detection is core/board.hpp.
using Board = piprov::PiBoard;

/// "pi4" | "pi400" | "cm4" | "pi5" (case-insensitive); nullopt otherwise.
std::optional<Board> parse_board(std::string_view name);
/// "pi4", "pi400", "cm4", "pi5".
std::string_view board_name(Board b);
/// Human name: "Raspberry Pi 4B", "Raspberry Pi 400", "Compute Module 4", "Raspberry Pi 5".
std::string_view board_title(Board b);
/// true for the BCM2712 (Pi 5), false for the BCM2711 family (Pi 4B, Pi 400, CM4).
bool is_bcm2712(Board b);
/// The bootloader's BOOT_ORDER when the key is absent: Pi 4B/400 0xf41,
/// CM4 0xf641, Pi 5 0xf461 (Raspberry Pi documentation, eeprom-bootloader: BOOT_ORDER;
/// raspberrypi/usbboot recovery5/boot.conf).
std::uint32_t default_boot_order(Board b);
/// Whether boot mode `nibble` exists on the board: 5 (BCM-USB-MSD) not on Pi 5,
/// 6 (NVMe) only on CM4 and Pi 5 (Raspberry Pi documentation, eeprom-bootloader: BOOT_ORDER).
bool board_has_mode(Board b, int nibble);

}  // namespace piprov::eeprom
