#pragma once
// autoboot.txt: the file on the first FAT partition that sends the Pi 4/Pi 5
// bootloader to another partition (Raspberry Pi documentation, config_txt:
// autoboot.txt, https://www.raspberrypi.com/documentation/computers/config_txt.html#autoboot-txt).
// At most 512 bytes; only the filters [all], [none] and [tryboot];
// boot_partition=N (MBR partitions are 1 to 4, GPT the entry number; 0 = the
// first bootable FAT partition); tryboot_a_b=1 (A/B at partition level).
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/finding.hpp"

namespace piprov::boot {

inline constexpr const char* kAutobootTxt = "autoboot.txt";
/// The bootloader reads at most this many bytes of autoboot.txt.
inline constexpr std::size_t kAutobootLimit = 512;
inline constexpr const char* kAutobootSource =
    "Raspberry Pi documentation, config_txt: autoboot.txt "
    "(https://www.raspberrypi.com/documentation/computers/config_txt.html#autoboot-txt)";

/// autoboot.txt as the bootloader reads it. Lines are 1-based (0 = not set).
struct Autoboot {
  std::optional<int> partition;  ///< boot_partition in the preamble/[all] (0 = "default": first bootable FAT)
  std::size_t partition_line = 0;
  std::optional<int> tryboot_partition;  ///< boot_partition under [tryboot]
  std::size_t tryboot_line = 0;
  bool tryboot_a_b = false;  ///< tryboot_a_b=1 in the preamble/[all]
  std::size_t bytes = 0;     ///< file size; the bootloader reads at most kAutobootLimit
  /// Sections other than [all]/[none]/[tryboot]: (line, filter text). Their settings are ignored.
  std::vector<std::pair<std::size_t, std::string>> bad_sections;
  /// boot_partition values that are not a number 0..99: (line, value). They count as unset.
  std::vector<std::pair<std::size_t, std::string>> bad_values;
};

/// Parses autoboot.txt bytes (any bytes; CRLF accepted). Later settings of a
/// section win, as in config.txt. Never throws.
Autoboot parse_autoboot(std::string_view bytes);

/// autoboot.txt of `boot_dir`; nullopt when there is none.
std::optional<Autoboot> read_autoboot(const std::filesystem::path& boot_dir);

/// True when `boot_dir` holds autoboot.txt and no config.txt (a partition that
/// only sends the bootloader elsewhere, as rpi-image-gen's BOOTCONFIG).
bool autoboot_only(const std::filesystem::path& boot_dir);

/// The file's own findings: autoboot-too-large (error), autoboot-unknown-section
/// (warning), autoboot-bad-partition (error), autoboot-no-partition (error, only
/// when `required`: no config.txt beside it, so there is nothing to boot here).
Findings autoboot_lint(const Autoboot& a, bool required);

/// "partition 2 ([tryboot] partition 3, tryboot_a_b=1)"; "no boot_partition" when unset.
std::string autoboot_summary(const Autoboot& a);

}  // namespace piprov::boot
