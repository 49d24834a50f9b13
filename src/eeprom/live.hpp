#pragma once
// `--live`: read the running bootloader's config and version on a Pi 4/5.
// Config: `vcgencmd bootloader_config`; version: `vcgencmd bootloader_version`
// ("timestamp N", "version HASH"), else /proc/device-tree/chosen/bootloader/
// {build-timestamp (big-endian u32), version}; channel: FIRMWARE_RELEASE_STATUS
// in /etc/default/rpi-eeprom-update. Board: /proc/device-tree/compatible
// (bcm2711 = Pi 4 family, bcm2712 = Pi 5), as rpi-eeprom-config's rpi4()/rpi5().
#include <optional>
#include <string>

#include "core/board.hpp"
#include "core/sysroot.hpp"
#include "eeprom/board.hpp"
#include "eeprom/version.hpp"

namespace piprov::eeprom {

struct LiveOptions {
  SysRoot root;                       ///< where /proc, /sys and /etc are (tests use a fake tree)
  std::string vcgencmd = "vcgencmd";  ///< program to run (PATH lookup)
};

struct LiveData {
  Board board = Board::Pi4;
  std::string compatible;   ///< device-tree compatible, NULs as ", "
  std::string config_text;  ///< `vcgencmd bootloader_config` output
  BootloaderInfo bootloader;
  std::optional<std::string> release_channel;  ///< nullopt when not set
  std::string release_channel_file;            ///< path that was read
};

using piprov::board_from_compatible;

/// Parses `vcgencmd bootloader_version` output into a BootloaderInfo.
BootloaderInfo parse_bootloader_version(std::string_view text);

/// Reads everything. Throws Error{Usage} "this is not a Raspberry Pi 4/5" when
/// the device tree does not say bcm2711/bcm2712, Error{Io} when vcgencmd fails.
LiveData read_live(const LiveOptions& opt = {});

}  // namespace piprov::eeprom
