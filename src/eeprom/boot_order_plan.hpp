#pragma once
// `eeprom set-boot-order`: the new image for a BOOT_ORDER and what to tell the
// user about it. Rules (each a finding): the BOOT_ORDER structure rules on the
// new value (boot_order.hpp); bootloader-too-old-for-usb when the order
// names USB mass storage (version.hpp); bootconf-sig-stale when the new
// config says SIGNED_BOOT=1 and the image has a bootconf.sig, which still
// signs the old config (raspberrypi/rpi-eeprom rpi-eeprom-config: signed boot,
// --digest).
#include <filesystem>
#include <optional>
#include <string>

#include "core/finding.hpp"
#include "eeprom/board.hpp"
#include "eeprom/boot_order.hpp"
#include "eeprom/edit.hpp"
#include "eeprom/image.hpp"

namespace piprov::eeprom {

struct BootOrderPlan {
  Board board = Board::Pi4;
  BootOrder order;
  std::string value;      ///< "0xf14"
  BootOrderEdit edit;     ///< the new bootconf.txt, its BOOT_ORDER line and the old value
  std::string new_image;  ///< bytes of the new pieeprom.bin, read back and compared
  Findings findings;      ///< notes for the user (rules above), in that order
  /// Errors `eeprom check` gives the whole new config (also in findings):
  /// `eeprom set-boot-order` still writes the image, and exits 1 like check.
  Findings config_errors;
};

/// Plans the new image from `img`. `board`: --board (checked against the
/// chip, board_for_image). Throws Error{Usage} when the new config does not
/// fit (EepromImage::with_file), Error{Verify} when the new image does not
/// read back as written.
BootOrderPlan plan_boot_order(const EepromImage& img, const BootOrder& order, std::optional<Board> board);

/// Loads `image`, plans, and writes the new image atomically to `out`.
/// Throws Error{Usage} when `out` is `image` itself (the original is the
/// way back: rpi-eeprom-update -d -f IMAGE) and as plan_boot_order and
/// EepromImage::load do; Error{Io} on write failures.
BootOrderPlan write_boot_order(const std::filesystem::path& image, const std::filesystem::path& out,
                               const BootOrder& order, std::optional<Board> board);

}  // namespace piprov::eeprom
