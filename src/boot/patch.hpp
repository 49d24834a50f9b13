#pragma once
// `piprov boot patch`: make a mounted Ubuntu boot partition boot a Pi 4 from
// USB, only where its layout needs it (layout.hpp): Ubuntu 20.04's U-Boot
// chain (ubuntu-uboot) cannot boot from USB mass storage. Method vmlinux:
// vmlinuz -> vmlinux, and in config.txt's [pi4] `kernel=vmlinux` + `initramfs
// initrd.img followkernel` (Raspberry Pi documentation, config_txt: kernel,
// initramfs), with a root fs the apt hook; method direct: `[pi4] kernel=vmlinuz`
// + the initramfs line, enough with firmware built since September 2020
// (firmware.hpp). A hand-made vmlinux fix (legacy-vmlinux) is migrated to the
// vmlinux method. Every other layout boots from USB as shipped: nothing is
// changed (except an explicit --uas-quirk), and nothing inside current/ new/ old/
// ever. Optionally the usual Pi 4 USB-boot [pi4] settings and the UAS quirk in
// cmdline.txt. Idempotent: a second run changes no byte.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "boot/config_txt.hpp"
#include "boot/layout.hpp"

namespace piprov::boot {

inline constexpr const char* kConfigTxt = "config.txt";
inline constexpr const char* kConfigBackup = "config.txt.piprov-orig";  ///< one-time backup of the original
inline constexpr const char* kCmdlineBackupSuffix = ".piprov-orig";

/// How `boot patch` fixes ubuntu-uboot.
enum class PatchMethod {
  Vmlinux,  ///< vmlinuz -> vmlinux, [pi4] kernel=vmlinux, the apt hook keeps it fresh
  Direct,   ///< [pi4] kernel=vmlinuz: the firmware decompresses it (start4.elf from 2020-09 on); no vmlinux, no hook
};
/// "vmlinux", "direct".
const char* to_string(PatchMethod m);
/// The inverse of to_string(); nullopt for anything else.
std::optional<PatchMethod> parse_method(std::string_view name);

/// The method used and why, one phrase ("start4.elf was built on 2022-08-26 (>= 2020-09-14)").
struct MethodChoice {
  PatchMethod method = PatchMethod::Vmlinux;
  std::string why;
};
/// `asked` when given (--method), else Direct when BOOT_DIR's start4.elf is
/// known to decompress gzip kernels, else Vmlinux.
MethodChoice choose_method(const std::filesystem::path& boot_dir, std::optional<PatchMethod> asked);

struct PatchOptions {
  std::filesystem::path boot_dir;
  std::optional<std::filesystem::path> root_dir;  ///< install the apt hook there
  bool dry_run = false;
  // Optional [pi4] settings (table: pi4_settings()); unset = leave alone.
  std::optional<int> gpu_mem;           ///< gpu_mem=N (MiB)
  std::optional<int> max_framebuffers;  ///< max_framebuffers=N
  std::optional<int> boot_delay;        ///< boot_delay=N (seconds; a bare boot_delay is invalid)
  bool fkms = false;                    ///< dtoverlay=vc4-fkms-v3d
  /// --seed-settings: every unset setting takes its recommended value, and fkms (apply_seed_settings).
  bool seed_settings = false;
  std::vector<std::string> uas_quirks;  ///< "VID:PID" -> usb-storage.quirks=VID:PID:u in cmdline.txt
  std::optional<PatchMethod> method;    ///< --method; nullopt = choose_method()'s default
  /// --board: the fix is for the Pi 4 family; a layout that needs it cannot boot a
  /// Pi 5 family board (Ubuntu supports the Pi 5 from 23.10): Error{Usage}. nullopt = not
  /// checked (the disk may be meant for another Pi than the one piprov runs on).
  std::optional<PiBoard> board;
};

/// One optional integer [pi4] setting of `boot patch` and `provision`. The
/// one definition of the option name, help, accepted range and the value
/// --seed-settings gives it (Raspberry Pi documentation, config_txt: memory
/// options gpu_mem, video options max_framebuffers, boot options boot_delay).
struct Pi4Setting {
  const char* key;     ///< config.txt key, "gpu_mem"
  const char* option;  ///< command-line option, "--gpu-mem"
  const char* help;    ///< --help text
  int min, max;        ///< accepted values (inclusive)
  int recommended;     ///< the value --seed-settings uses
  std::optional<int> PatchOptions::*field;
};

/// gpu_mem (16..1024 MiB, 16), max_framebuffers (0..4, 2), boot_delay (0..60 s, 1).
std::span<const Pi4Setting> pi4_settings();

/// "gpu_mem=16 max_framebuffers=2 boot_delay=1 dtoverlay=vc4-fkms-v3d": what --seed-settings sets.
std::string seed_settings_words();

/// With o.seed_settings: each unset setting of pi4_settings() gets its
/// recommended value and fkms is set; values given explicitly are kept.
/// Without: `o` unchanged.
PatchOptions apply_seed_settings(PatchOptions o);

struct PatchReport {
  BootLayout layout;                   ///< the layout found before patching
  std::optional<MethodChoice> method;  ///< the method applied; nullopt when the layout needed no fix
  /// One line for the user: "patched ... (method direct: ...)" or
  /// "nothing to do: Ubuntu 24.04 LTS boots from USB as shipped".
  std::string summary;
  std::vector<std::string> actions;  ///< file actions done (or planned with dry_run), in order
  std::string config_diff;           ///< unified diff of config.txt ("" when unchanged)
  std::string cmdline_diff;          ///< unified diff of the cmdline file ("" when unchanged)
  std::vector<std::string> notes;    ///< information (firmware)
  bool changed() const { return !actions.empty(); }
};

/// `boot patch --json` (schema "piprov.boot.patch/2", docs/boot.md): the /1
/// fields plus "layout" {"id", "release"}, "method" ("vmlinux" | "direct" |
/// null), "method_reason" and "summary".
nlohmann::json patch_json(const PatchOptions& o, const PatchReport& r);

/// Patches (or with dry_run plans) BOOT_DIR when its layout needs it. Throws
/// Error{Usage} when BOOT_DIR lacks config.txt, a layout to fix lacks
/// vmlinuz/initrd.img, ROOT_DIR is not a root fs, --method is given for a
/// layout it does not apply to, or a --uas-quirk would edit inside an A/B slot;
/// Error{Verify} when vmlinuz cannot be turned into a valid vmlinux (config.txt
/// is then left unchanged); Error{Io} on write failures.
PatchReport patch_boot(const PatchOptions& opts);

/// Whether patch_boot() takes BOOT_DIR's layout `l` (a known layout, or an unknown one with
/// Ubuntu's vmlinuz, no os_prefix and no os-release of another distribution: root_not_ubuntu)
/// rather than refusing it as unknown: the one test `boot check` asks before it suggests `boot patch`.
bool patch_takes_layout(const std::filesystem::path& boot_dir, const BootLayout& l);

/// Loads `include`d config files from BOOT_DIR.
IncludeLoader include_loader(const std::filesystem::path& boot_dir);

}  // namespace piprov::boot
