#pragma once
// `piprov boot patch`: make a mounted Ubuntu boot partition boot a Pi 4 from
// USB (Ubuntu 20.04's U-Boot cannot boot from USB mass storage): vmlinuz ->
// vmlinux, and in config.txt's [pi4] `kernel=vmlinux` + `initramfs initrd.img
// followkernel` (Raspberry Pi documentation, config_txt: kernel, initramfs);
// optionally the usual Pi 4 USB-boot [pi4] settings and the UAS quirk in cmdline.txt; with a root
// fs, the apt hook. Idempotent: a second run changes no byte.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "boot/config_txt.hpp"

namespace piprov::boot {

inline constexpr const char* kConfigTxt = "config.txt";
inline constexpr const char* kConfigBackup = "config.txt.piprov-orig";  ///< one-time backup of the original
inline constexpr const char* kCmdlineBackupSuffix = ".piprov-orig";

struct PatchOptions {
  std::filesystem::path boot_dir;
  std::optional<std::filesystem::path> root_dir;  ///< install the apt hook there
  bool dry_run = false;
  // Optional [pi4] settings (Raspberry Pi documentation, config_txt); unset = leave alone.
  std::optional<int> gpu_mem;           ///< gpu_mem=N (MiB)
  std::optional<int> max_framebuffers;  ///< max_framebuffers=N
  std::optional<int> boot_delay;        ///< boot_delay=N (seconds; a bare boot_delay is invalid)
  bool fkms = false;                    ///< dtoverlay=vc4-fkms-v3d
  std::vector<std::string> uas_quirks;  ///< "VID:PID" -> usb-storage.quirks=VID:PID:u in cmdline.txt
};

struct PatchReport {
  std::vector<std::string> actions;  ///< file actions done (or planned with dry_run), in order
  std::string config_diff;           ///< unified diff of config.txt ("" when unchanged)
  std::string cmdline_diff;          ///< unified diff of the cmdline file ("" when unchanged)
  std::vector<std::string> notes;    ///< information (firmware)
  bool changed() const { return !actions.empty(); }
};

/// Patches (or with dry_run plans) BOOT_DIR. Throws Error{Usage} when BOOT_DIR
/// lacks config.txt/vmlinuz/initrd.img or ROOT_DIR is not a root fs;
/// Error{Verify} when vmlinuz cannot be turned into a valid vmlinux (config.txt
/// is then left unchanged); Error{Io} on write failures.
PatchReport patch_boot(const PatchOptions& opts);

/// Loads `include`d config files from BOOT_DIR.
IncludeLoader include_loader(const std::filesystem::path& boot_dir);

/// The cmdline file the firmware uses on a Pi 4: effective `cmdline=` ([pi4]), default "cmdline.txt".
std::string effective_cmdline_name(const ConfigTxt& config, const std::filesystem::path& boot_dir);

}  // namespace piprov::boot
