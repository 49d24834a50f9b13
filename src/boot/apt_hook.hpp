#pragma once
// The apt hook that keeps vmlinux fresh on the Pi (apt-hooks/ in the source
// tree, embedded into piprov at build time) and the faults of the hand-made
// 999_decompress_rpi_kernel hook that Pi 4 USB-boot how-tos install, which it replaces.
// On the Pi: root fs at ROOT_DIR, boot partition at ROOT_DIR/boot/firmware.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace piprov::boot {

/// Paths relative to ROOT_DIR.
inline constexpr const char* kHookScriptRel = "usr/lib/piprov/piprov-kernel-sync";  ///< mode 0755
inline constexpr const char* kHookConfRel = "etc/apt/apt.conf.d/99-piprov-kernel";  ///< mode 0644
inline constexpr const char* kSeedHookConfRel = "etc/apt/apt.conf.d/999_decompress_rpi_kernel";
inline constexpr const char* kSeedHookScriptName = "auto_decompress_kernel";  ///< in /boot/firmware
inline constexpr const char* kSeedHookMd5Name = "check.md5";

/// The embedded files (byte-identical to apt-hooks/piprov-kernel-sync and apt-hooks/99-piprov-kernel).
std::string_view hook_script();
std::string_view hook_conf();

/// Installs (or, with dry_run, lists) the hook into ROOT_DIR: the script and
/// the apt.conf snippet, only where their content differs; removes the hand-made
/// 999_decompress_rpi_kernel snippet and its script/check.md5 in BOOT_DIR (or
/// ROOT_DIR/boot/firmware). Returns the file actions ("installed ...").
/// Throws Error{Usage} when ROOT_DIR has no etc/apt (not a Debian/Ubuntu root),
/// Error{Io} on write failures.
std::vector<std::string> install_hook(const std::filesystem::path& root_dir, const std::filesystem::path& boot_dir,
                                      bool dry_run);

/// The hand-made hook's faults found in its script text (unquoted heredoc,
/// dead `$?` checks under -e, first run fails, md5sum --ignore-missing, in-place
/// zcat, wrong message; numbered in that order), e.g. "3: first run fails: `mv $DKPATH $DKPATH.bak` with no vmlinux
/// yet".
std::vector<std::string> seed_hook_faults(std::string_view script_text);

/// State of the hooks under ROOT_DIR.
struct HookStatus {
  bool conf_installed = false;    ///< 99-piprov-kernel exists
  bool conf_current = false;      ///< ... and equals hook_conf()
  bool script_installed = false;  ///< usr/lib/piprov/piprov-kernel-sync exists
  bool script_current = false;    ///< ... and equals hook_script()
  bool seed_hook = false;         ///< 999_decompress_rpi_kernel (or another snippet running auto_decompress_kernel)
  std::string seed_hook_conf;     ///< its path
  std::string seed_script;        ///< path of auto_decompress_kernel, "" when missing
  std::vector<std::string> seed_faults;
};
HookStatus inspect_hooks(const std::filesystem::path& root_dir, const std::filesystem::path& boot_dir);

}  // namespace piprov::boot
