#pragma once
// The apt hook that keeps vmlinux fresh on the Pi (apt-hooks/ in the source
// tree, embedded into piprov at build time), the systemd path unit that runs
// the same sync when vmlinuz changes without apt (a `dpkg -i`, a manual
// `flash-kernel`; systemd.path(5) PathChanged=), and the faults of the hand-made
// 999_decompress_rpi_kernel hook that Pi 4 USB-boot how-tos install, which it replaces.
// On the Pi: root fs at ROOT_DIR, boot partition at ROOT_DIR/boot/firmware.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace piprov::boot {

/// Paths relative to ROOT_DIR.
inline constexpr const char* kHookScriptRel = "usr/lib/piprov/piprov-kernel-sync";                   ///< mode 0755
inline constexpr const char* kHookConfRel = "etc/apt/apt.conf.d/99-piprov-kernel";                   ///< mode 0644
inline constexpr const char* kHookPathUnitRel = "etc/systemd/system/piprov-kernel-sync.path";        ///< 0644
inline constexpr const char* kHookServiceUnitRel = "etc/systemd/system/piprov-kernel-sync.service";  ///< 0644
/// What `systemctl --root=ROOT enable piprov-kernel-sync.path` writes: a symlink to
/// kHookPathUnitTarget (systemctl(1) enable; [Install] WantedBy=multi-user.target).
inline constexpr const char* kHookPathUnitWantsRel =
    "etc/systemd/system/multi-user.target.wants/piprov-kernel-sync.path";
inline constexpr const char* kHookPathUnitTarget = "/etc/systemd/system/piprov-kernel-sync.path";
inline constexpr const char* kSeedHookConfRel = "etc/apt/apt.conf.d/999_decompress_rpi_kernel";
inline constexpr const char* kSeedHookScriptName = "auto_decompress_kernel";  ///< in /boot/firmware
inline constexpr const char* kSeedHookMd5Name = "check.md5";

/// The embedded files (byte-identical to apt-hooks/piprov-kernel-sync, apt-hooks/99-piprov-kernel,
/// apt-hooks/piprov-kernel-sync.path and apt-hooks/piprov-kernel-sync.service).
std::string_view hook_script();
std::string_view hook_conf();
std::string_view hook_path_unit();
std::string_view hook_service_unit();

/// Throws Error{Usage} when a file the hook puts under `root_dir` would land
/// outside it through a symlink (core inside_root); install_hook(),
/// remove_hook() and boot patch check this before changing anything.
void check_hook_paths(const std::filesystem::path& root_dir);

/// Installs (or, with dry_run, lists) the hook into ROOT_DIR: the script, the
/// apt.conf snippet and the two systemd units, only where their content
/// differs, and enables the path unit (the wants symlink); removes the hand-made
/// 999_decompress_rpi_kernel snippet and its script/check.md5 in BOOT_DIR (or
/// ROOT_DIR/boot/firmware). Returns the file actions ("installed ...").
/// Throws Error{Usage} when ROOT_DIR has no etc/apt (not a Debian/Ubuntu root),
/// Error{Io} on write failures.
std::vector<std::string> install_hook(const std::filesystem::path& root_dir, const std::filesystem::path& boot_dir,
                                      bool dry_run);

/// Removes (or, with dry_run, lists) what install_hook() installs: the wants
/// symlink, both units, the apt.conf snippet and the script; files that are not
/// there are skipped (the hand-made hook is left alone). Returns the file actions
/// ("removed ..."). Throws Error{Io} when a file cannot be removed.
std::vector<std::string> remove_hook(const std::filesystem::path& root_dir, bool dry_run);

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
  bool units_installed =
      false;  ///< both systemd units exist (etc/systemd/system, or usr/lib or lib/systemd/system: the .deb's)
  bool units_current = false;  ///< ... and the copies systemd loads equal hook_path_unit() / hook_service_unit()
  bool unit_enabled = false;   ///< the wants symlink points at the path unit in one of those directories
  bool seed_hook = false;      ///< 999_decompress_rpi_kernel (or another snippet running auto_decompress_kernel)
  std::string seed_hook_conf;  ///< its path
  std::string seed_script;     ///< path of auto_decompress_kernel, "" when missing
  std::vector<std::string> seed_faults;
};
HookStatus inspect_hooks(const std::filesystem::path& root_dir, const std::filesystem::path& boot_dir);

}  // namespace piprov::boot
