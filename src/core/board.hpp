#pragma once
// Which Raspberry Pi this is, from the device tree the firmware passes to
// the kernel: /proc/device-tree/model ("Raspberry Pi 4 Model B Rev 1.4") and
// /proc/device-tree/compatible ("raspberrypi,4-model-b\0brcm,bcm2711\0"),
// as rpi-eeprom-config's rpi4()/rpi5() read it (raspberrypi/rpi-eeprom,
// rpi-eeprom-config). Rules that depend on the board live with their module.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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
/// The device-tree blobs the firmware loads for the board (from os_prefix, on the boot
/// partition), any one of which boots it; the first is the board's own name for messages:
/// Pi 4B bcm2711-rpi-4-b.dtb, Pi 400 bcm2711-rpi-400.dtb, CM4 bcm2711-rpi-cm4.dtb (upstream
/// Linux: bcm2711-rpi-cm4-io.dtb), Pi 5 bcm2712-rpi-5-b.dtb, Pi 500 bcm2712-rpi-500.dtb, CM5
/// bcm2712-rpi-cm5-cm5io.dtb (or the cm4io carrier, or the Lite's cm5l). Sources: Raspberry Pi
/// documentation, config_txt (device_tree, upstream_kernel: upstream names preferred, downstream
/// ones as fallback); the dtb lists of raspberrypi/linux arch/arm64/boot/dts/broadcom/Makefile.
std::vector<std::string_view> board_dtbs(PiBoard b);
/// True for a config.txt model filter name ("pi4", "pi5", "cm4", "pi400", "pi0w", ... and "none"),
/// case-insensitive. Raspberry Pi documentation, config_txt: conditional filters (model filters).
bool is_model_filter(std::string_view filter);
/// Whether the model filter `filter` ("pi4", case-insensitive) applies on the board `model`
/// (a filter name: "pi4", "pi400", "cm4", "pi5", "pi3+", ...): [pi4] covers Pi 4B, Pi 400, CM4
/// and CM4S, [pi5] Pi 5, Pi 500 and CM5, [pi400] only the Pi 400, ... (same source). "none" and
/// anything else match nothing.
bool model_filter_matches(std::string_view filter, std::string_view model);
/// The board's type code in its revision code (the `[board-type=0xNN]` filter): Pi 4B 0x11,
/// Pi 400 0x13, CM4 0x14, Pi 5 0x17, CM5 0x18, Pi 500 0x19 (Raspberry Pi documentation,
/// raspberry-pi: revision codes).
unsigned board_type_code(PiBoard b);
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
