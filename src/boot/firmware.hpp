#pragma once
// What the Pi firmware on a boot partition can do, as far as the boot files
// tell. Source: raspberrypi/firmware commit 086d9d9 (September 2020) added
// gzip decompression of arm64 kernels ("64-bit kernel decompression has been
// supported since September 2020", pelwell, raspberrypi/documentation issue 1858). The EEPROM/firmware actually running
// on a Pi cannot be known from the boot directory alone.
#include <filesystem>
#include <optional>
#include <string>

namespace piprov::boot {

/// The first firmware build date known to decompress gzip arm64 kernels.
inline constexpr const char* kGzipKernelFirmwareDate = "2020-09-14";

struct FirmwareInfo {
  bool start4_present = false;  ///< BOOT_DIR/start4.elf exists
  std::string build_date;       ///< "2020-09-03" from the build date string inside start4.elf, "" when unknown
  std::optional<bool> decompresses_gzip;  ///< by build_date; nullopt when unknown
  std::string summary;                    ///< one sentence for the user
};

/// Looks at BOOT_DIR/start4.elf (Pi 4 firmware). `kernel`, when given, is the kernel= file the
/// firmware loads (relative to BOOT_DIR, "kernel8.img"); the summary names it. Never throws.
FirmwareInfo firmware_info(const std::filesystem::path& boot_dir, const std::string& kernel = "");

}  // namespace piprov::boot
