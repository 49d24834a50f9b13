#pragma once
// `piprov boot check`: the re-check users run after updates.
// Everything that keeps a Pi 4 booting Ubuntu from USB: vmlinux present,
// valid and fresh; the effective [pi4] kernel=/initramfs name existing files;
// config.txt lint; cmdline.txt one line with root=; the apt hook installed;
// UAS quirks for known USB-SATA bridges (cmdline_txt.hpp).
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "boot/sync.hpp"
#include "core/finding.hpp"

namespace piprov::boot {

/// What fails `boot check` (and `provision`): errors and warnings.
inline constexpr FailOn kCheckFailOn = FailOn::Warning;

struct CheckOptions {
  std::filesystem::path boot_dir;
  std::optional<std::filesystem::path> root_dir;  ///< check the apt hook there
  std::vector<std::string> usb_ids;               ///< "VID:PID" given with --usb-id
  /// Scan /sys/bus/usb for known bridges: nullopt = only when running on a Pi.
  std::optional<bool> scan_usb;
};

struct CheckReport {
  /// In check order (kernel, initramfs, config lint, cmdline, apt hook, USB,
  /// firmware); rule ids in docs/boot.md. line is in the file the message names.
  Findings findings;
  KernelStatus kernel;       ///< state of vmlinux
  std::string kernel_file;   ///< effective [pi4] kernel= ("" = firmware default)
  std::string initramfs;     ///< effective [pi4] initramfs arguments
  std::string cmdline_file;  ///< the cmdline file in use
  std::string firmware;      ///< firmware summary
  /// True when no finding fails under kCheckFailOn (exit 0).
  bool ok() const;
};

/// Runs every check. Throws Error{Usage} only when BOOT_DIR is not a directory
/// or has no config.txt; everything else is a finding.
CheckReport check_boot(const CheckOptions& opts);

/// `boot check --json` (schema "piprov.boot.check/2", docs/boot.md).
nlohmann::json check_json(const CheckOptions& o, const CheckReport& r);

}  // namespace piprov::boot
