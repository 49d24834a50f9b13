#pragma once
// Which Raspberry Pi this is, from the device tree the firmware passes to
// the kernel: /proc/device-tree/model ("Raspberry Pi 4 Model B Rev 1.4") and
// /proc/device-tree/compatible ("raspberrypi,4-model-b\0brcm,bcm2711\0"),
// as rpi-eeprom-config's rpi4()/rpi5() read it (raspberrypi/rpi-eeprom,
// rpi-eeprom-config). Rules that depend on the board live with their module.
#include <optional>
#include <string>
#include <string_view>

#include "core/sysroot.hpp"

namespace piprov {

/// The boards piprov knows by SoC: BCM2711 (Pi 4B, Pi 400, CM4) and BCM2712
/// (Pi 5, Pi 500, CM5). The one board model of every module.
enum class PiBoard { Pi4, Pi400, Cm4, Pi5, Pi500, Cm5 };

/// "pi4" | "pi400" | "cm4" | "pi5" | "pi500" | "cm5" (case-insensitive); nullopt otherwise.
std::optional<PiBoard> parse_board(std::string_view name);
/// "pi4", "pi400", "cm4", "pi5", "pi500", "cm5".
std::string_view board_name(PiBoard b);
/// Human name: "Raspberry Pi 4B", "Raspberry Pi 400", "Compute Module 4",
/// "Raspberry Pi 5", "Raspberry Pi 500", "Compute Module 5".
std::string_view board_title(PiBoard b);
/// true for the BCM2712 family (Pi 5, Pi 500, CM5), false for the BCM2711 one (Pi 4B, Pi 400, CM4).
bool is_bcm2712(PiBoard b);
/// "pi4|pi400|cm4|pi5|pi500|cm5": the accepted --board values, for help and errors.
std::string_view board_choices();

/// What the device tree says about the machine.
struct BoardId {
  std::string model;                      ///< device-tree model, "" when absent
  std::optional<std::string> compatible;  ///< raw compatible list (NUL-separated); nullopt when absent
  std::optional<PiBoard> board;           ///< a Pi 4 family or Pi 5 board; nullopt otherwise
  /// True when the model names a Raspberry Pi (any model, also Pi 3 and older).
  bool raspberry_pi() const;
  /// The compatible list for messages: entries joined by ",", "" when absent.
  std::string compatible_text() const;
};

/// The board from a device-tree compatible string (Linux
/// Documentation/devicetree/bindings/arm/bcm/bcm2835.yaml): bcm2712 -> Cm5
/// ("raspberrypi,5-compute-module"), Pi500 ("raspberrypi,500") or Pi5; bcm2711 ->
/// Cm4 ("raspberrypi,4-compute-module"), Pi400 ("raspberrypi,400") or Pi4;
/// nullopt for anything else.
std::optional<PiBoard> board_from_compatible(std::string_view compatible);

/// Reads model and compatible from ROOT/proc/device-tree (falling back to
/// ROOT/sys/firmware/devicetree/base). Never throws: a machine without a
/// device tree is simply not a Pi.
BoardId detect_board(const SysRoot& root = SysRoot::host());

}  // namespace piprov
