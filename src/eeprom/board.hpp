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

// Names, titles and the SoC family are core's (core/board.hpp).
using piprov::board_name;
using piprov::board_title;
using piprov::is_bcm2712;
using piprov::parse_board;

/// The bootloader's BOOT_ORDER when the key is absent: Pi 4B/400 0xf41,
/// CM4 0xf641, Pi 5 family 0xf461 (Raspberry Pi documentation, eeprom-bootloader: BOOT_ORDER;
/// raspberrypi/usbboot recovery5/boot.conf).
std::uint32_t default_boot_order(Board b);
/// Whether boot mode `nibble` exists on the board: 5 (BCM-USB-MSD) not on the Pi 5 family,
/// 6 (NVMe) only on CM4 and the Pi 5 family (Raspberry Pi documentation, eeprom-bootloader: BOOT_ORDER).
bool board_has_mode(Board b, int nibble);

/// How many GPIOs a `[gpioN=v]` filter can name on the board (N from 0 to this minus 1): 58 on
/// the BCM2711 of the Pi 4 family (BCM2711 ARM Peripherals, GPIO: GPIO0-57 in three banks), 28
/// on the Pi 5 family, whose 40-pin header GPIOs are RP1's bank 0 (RP1 Peripherals, GPIO: bank 0,
/// GPIO0-27; Raspberry Pi documentation, raspberry-pi: GPIO).
int gpio_count(Board b);

}  // namespace piprov::eeprom
