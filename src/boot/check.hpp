#pragma once
// `piprov boot check`: the re-check users run after updates.
// Everything that keeps a Pi 4 booting Ubuntu from USB: vmlinux present,
// valid and fresh; the effective [pi4] kernel=/initramfs name existing files;
// config.txt lint; cmdline.txt one line with root=; the apt hook installed;
// UAS quirks for known USB-SATA bridges (cmdline_txt.hpp).
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "boot/sync.hpp"

namespace piprov::boot {

enum class Severity { Error, Warning, Info };
const char* to_string(Severity s);

/// One finding: one line for the user plus the fix. code is stable for scripts.
struct Finding {
  Severity severity = Severity::Error;
  std::string code;
  std::string message;
  std::string fix;  ///< "" for Info
};

struct CheckOptions {
  std::filesystem::path boot_dir;
  std::optional<std::filesystem::path> root_dir;  ///< check the apt hook there
  std::vector<std::string> usb_ids;               ///< "VID:PID" given with --usb-id
  /// Scan /sys/bus/usb for known bridges: nullopt = only when running on a Pi.
  std::optional<bool> scan_usb;
};

struct CheckReport {
  std::vector<Finding> findings;
  KernelStatus kernel;       ///< state of vmlinux
  std::string kernel_file;   ///< effective [pi4] kernel= ("" = firmware default)
  std::string initramfs;     ///< effective [pi4] initramfs arguments
  std::string cmdline_file;  ///< the cmdline file in use
  std::string firmware;      ///< firmware summary
  /// True when no finding is an Error or Warning (exit 0).
  bool ok() const;
};

/// Runs every check. Throws Error{Usage} only when BOOT_DIR is not a directory
/// or has no config.txt; everything else is a finding.
CheckReport check_boot(const CheckOptions& opts);

}  // namespace piprov::boot
