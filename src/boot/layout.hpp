#pragma once
// Which boot layout a Raspberry Pi boot partition has, and what the firmware
// will really load from it on a given board.
// Sources: Raspberry Pi documentation, config_txt (boot options: kernel,
// arm_64bit, initramfs, cmdline, os_prefix; conditional filters [pi4] [pi5]
// [all] [tryboot]) and "Raspberry Pi boot modes: autoboot.txt" (tryboot_a_b);
// canonical/pi-gadget configs/<release>-arm64-*/config.txt (Ubuntu 20.04 boots
// U-Boot on a Pi 4, 20.10 to 25.04 `kernel=vmlinuz`, 25.10+ `os_prefix=current/`
// with tryboot A/B, described in "A/B boot on Ubuntu for Raspberry Pi" by
// Ubuntu's Pi maintainer); RPi-Distro/pi-gen stage1/00-boot-files (Raspberry Pi
// OS: no kernel=, firmware defaults kernel8.img / kernel_2712.img); Debian's
// raspi-firmware package (its kernel hook /etc/kernel/postinst.d/z50-raspi-firmware
// writes config.txt and cmdline.txt; the images of https://raspi.debian.net).
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "boot/config_txt.hpp"
#include "core/board.hpp"

namespace piprov::boot {

/// The boot layouts piprov knows.
enum class LayoutId {
  UbuntuUboot,    ///< Ubuntu 20.04: [pi4] kernel=uboot_rpi_4.bin; U-Boot cannot boot from USB: needs the fix
  UbuntuDirect,   ///< Ubuntu 20.10 to 25.04 (or a 20.04 fixed with kernel=vmlinuz): firmware loads vmlinuz
  UbuntuAb,       ///< Ubuntu 25.10+: os_prefix=current/, [tryboot] os_prefix=new/, autoboot.txt tryboot_a_b=1
  Raspios,        ///< Raspberry Pi OS: no kernel=, firmware default kernel8.img / kernel_2712.img
  Piprov,         ///< patched by piprov: [pi4] kernel=vmlinux with vmlinux.stamp (and the piprov apt hook)
  LegacyVmlinux,  ///< kernel=vmlinux made by hand (how-tos' 999_decompress_rpi_kernel / BootFix): migrate
  DebianRaspi,    ///< Debian's raspi-firmware: generated config.txt, kernel=vmlinuz-<ver>, initramfs initrd.img-<ver>
  Unknown,        ///< none of these; BootLayout::evidence says what was seen
};

/// "ubuntu-uboot", "ubuntu-direct", "ubuntu-ab", "raspios", "piprov", "legacy-vmlinux", "debian-raspi",
/// "unknown".
std::string_view layout_name(LayoutId id);
/// The inverse of layout_name(); nullopt for anything else.
std::optional<LayoutId> parse_layout(std::string_view name);

/// True for the layouts that boot from USB with the files as the distribution
/// ships them (ubuntu-direct, ubuntu-ab, raspios, debian-raspi).
bool boots_from_usb_as_shipped(LayoutId id);
/// True when `boot patch` has work to do to make this layout boot from USB:
/// ubuntu-uboot (the fix) and legacy-vmlinux (migrated to piprov's fix).
bool needs_usb_fix(LayoutId id);

/// Debian's raspi-firmware package: its kernel hook (rewrites config.txt and cmdline.txt, copies
/// vmlinuz-<ver> and initrd.img-<ver> to /boot/firmware) and its settings, relative to ROOT.
inline constexpr const char* kRaspiFirmwareHookRel = "etc/kernel/postinst.d/z50-raspi-firmware";
inline constexpr const char* kRaspiFirmwareDefaultsRel = "etc/default/raspi-firmware";

/// config.txt as Debian's raspi-firmware kernel hook writes it: its first line is "# Do not modify
/// this file!" and a header comment names /etc/default/raspi-firmware. Raspberry Pi OS's package of
/// the same name (RPi-Distro/firmware) never writes config.txt, so the content decides.
bool raspi_firmware_generated(std::string_view config_text);
/// ROOT's etc/kernel/postinst.d/z50-raspi-firmware is Debian's hook (it writes config.txt), not
/// Raspberry Pi OS's (copies the kernel to kernel8.img, never writes config.txt).
bool debian_raspi_hook(const std::filesystem::path& root);

/// The A/B slot directories of the tryboot layout; piprov never edits inside them.
inline constexpr const char* kAbSlots[] = {"current/", "new/", "old/"};

/// What detect_layout() found.
struct BootLayout {
  LayoutId id = LayoutId::Unknown;
  /// "Ubuntu 24.04 LTS", "Raspberry Pi OS (bookworm)" from ROOT/etc/os-release;
  /// without a root dir, what the boot files tell ("Ubuntu 20.10 to 25.04").
  std::string release;
  bool release_from_root = false;  ///< release read from os-release (not guessed)
  /// ID= of the root fs's os-release ("ubuntu", "debian", "raspbian"; freedesktop os-release(5));
  /// "" when no os-release was read (no root dir, or none in it).
  std::string os_id;
  std::string os_prefix;       ///< effective os_prefix on a Pi 4 outside tryboot ("current/"), "" none
  std::string tryboot_prefix;  ///< os_prefix under [tryboot] ("new/"), "" none
  bool tryboot_a_b = false;    ///< autoboot.txt sets tryboot_a_b=1
  /// What was seen, one short phrase each ("config.txt [pi4] kernel=uboot_rpi_4.bin",
  /// "autoboot.txt tryboot_a_b=1", "dpkg: piboot-try installed"), in the order looked at.
  std::vector<std::string> evidence;
};

/// True when the root fs's os-release names a distribution other than Ubuntu (os_id not "" and
/// not "ubuntu"): a U-Boot kernel= is then not Ubuntu 20.04's layout (detect_layout says unknown),
/// and boot patch takes no unknown layout of it (patch.hpp patch_takes_layout).
bool root_not_ubuntu(const BootLayout& l);

/// Decides the layout of BOOT_DIR (config.txt with its includes and filters,
/// autoboot.txt, os_prefix, [tryboot], the files present) and, when given, of
/// ROOT_DIR (etc/os-release, etc/rpi-issue, apt hooks, flash-kernel/piboot-try in
/// var/lib/dpkg/status). Never throws for odd contents; Error{Usage} when
/// BOOT_DIR has no config.txt.
BootLayout detect_layout(const std::filesystem::path& boot_dir,
                         const std::optional<std::filesystem::path>& root_dir = std::nullopt);

/// The board a command runs for when --board is not given: the board this runs
/// on (core detect_board) when it is a Pi 4 or Pi 5 family board, else Pi 4.
PiBoard default_board();

/// The config.txt filter model of a board ("pi4", "pi400", "cm4", "pi5", "pi500", "cm5").
Board filter_board(PiBoard b);

/// What the firmware will load on `board`. Paths are relative to BOOT_DIR and
/// include os_prefix ("current/vmlinuz").
struct ResolvedBoot {
  PiBoard board = PiBoard::Pi4;
  std::string os_prefix;                         ///< the prefix applied ("" when none or ignored)
  std::optional<EffectiveValue> os_prefix_line;  ///< the os_prefix line, when there is one
  /// os_prefix set but not viable: the first of the files the firmware tests under it (the kernel,
  /// then the .dtb: device_tree=, else the board's own, core board_dtbs()) that is missing there
  /// ("sub/bcm2711-rpi-4-b.dtb"); "" when no prefix is set or it is viable. Raspberry Pi
  /// documentation, config_txt: os_prefix ("unless the expected kernel and .dtb can be found at the
  /// new location/name, the prefix is ignored (set to \"\")").
  std::string prefix_missing;
  /// With prefix_missing: the kernel the firmware then loads from the top level ("kernel8.img";
  /// kernel= without the prefix, or the board's default name there).
  std::string top_kernel;
  /// prefix_missing and top_kernel is on the partition: the firmware drops the prefix and boots the
  /// top-level files (os_prefix is then "", and the paths here are the top-level ones). When
  /// top_kernel is missing too nothing boots; the paths keep the prefix, so that the finding names
  /// the prefixed file that is missing (the root cause) once.
  bool prefix_ignored = false;
  bool arm_64bit = true;        ///< effective arm_64bit (default 1 on the Pi 4 family; always on the Pi 5)
  std::string kernel;           ///< kernel file ("vmlinuz", "current/vmlinuz", "kernel8.img")
  bool kernel_default = false;  ///< no kernel= line: the firmware default name
  std::optional<EffectiveValue> kernel_line;     ///< the kernel= line, when there is one
  std::string initramfs;                         ///< initramfs file with prefix ("" = none)
  std::string initramfs_args;                    ///< the directive's arguments as written ("initrd.img followkernel")
  std::optional<EffectiveValue> initramfs_line;  ///< the initramfs line, when there is one
  std::string cmdline;                           ///< cmdline file with prefix ("current/cmdline.txt")
  std::optional<EffectiveValue> cmdline_line;    ///< the cmdline= line, when there is one
  std::string root;                              ///< root= of the cmdline file ("LABEL=writable"), "" when missing
  /// The cmdline file's first line without "\n" / "\r\n" (CmdlineTxt::command_line()): the
  /// kernel command line the firmware passes on, before it adds its own parameters; "" when
  /// the file is missing.
  std::string cmdline_args;
};

/// Resolves the kernel (kernel=, os_prefix, arm_64bit, filters for `board`,
/// firmware defaults kernel8.img / kernel7l.img on the Pi 4 family and
/// kernel_2712.img, else kernel8.img, on the Pi 5 family), the initramfs, the
/// cmdline file, its root= and its first line (cmdline_args). Never throws for missing files (they are what
/// boot check reports); Error{Usage} when BOOT_DIR has no config.txt.
ResolvedBoot resolve_boot(const std::filesystem::path& boot_dir, const BootLayout& layout, PiBoard board);

/// A file a config.txt line names (kernel=, initramfs, cmdline=, device_tree=, a DTB), as a path
/// relative to BOOT_DIR: `os_prefix` + name, but a name with a leading '/' is taken from the
/// partition root without the prefix ("/cmdline.txt" -> "cmdline.txt"); the result is
/// partition_relative() (as written when it leaves the partition: partition_file() refuses it).
/// Raspberry Pi documentation, config_txt: os_prefix.
std::string prefixed_path(const std::string& os_prefix, const std::string& name);

/// NAME, a path the firmware reads from the boot partition (kernel=, cmdline=, include, os_prefix +
/// a file name, device_tree=...), relative to the partition root: leading '/'s dropped (the firmware
/// has no other root: "/abs/kernel8.img" is abs/kernel8.img on the partition), "." and ".." resolved;
/// nullopt when ".." leaves the partition. Raspberry Pi documentation, config_txt: os_prefix, include.
std::optional<std::string> partition_relative(std::string_view name);

/// BOOT_DIR / partition_relative(NAME): the one way a file config.txt names is opened, so that no
/// name reaches a file of the workstation outside BOOT_DIR; nullopt when NAME leaves the partition.
/// Looked up as the firmware reads FAT, without regard to ASCII case: a component missing as
/// written is the directory entry that equals it in another case (kernel8.img -> KERNEL8.IMG, also
/// on a BOOT_DIR of a case-sensitive file system), so the path returned is spelled as on disk; a
/// name found in no case is returned as written. The firmware reads a FAT boot partition, whose
/// names compare case-insensitively (Microsoft FAT32 File System Specification: long names).
std::optional<std::filesystem::path> partition_file(const std::filesystem::path& boot_dir, std::string_view name);

/// True when NAME (as partition_file) is a regular file on the boot partition BOOT_DIR; false when it
/// is missing, not a regular file, or leaves the partition. Never throws.
bool partition_has_file(const std::filesystem::path& boot_dir, std::string_view name);

/// The content of NAME (as partition_file) on the boot partition BOOT_DIR; nullopt when it is not a
/// regular file there or leaves the partition. Throws Error (I/O) when it exists but cannot be read.
std::optional<std::string> read_partition_file(const std::filesystem::path& boot_dir, std::string_view name);

/// What a missing-file finding says of os_prefix for the line `written` ("kernel=/kernel_2712.img",
/// "initramfs /initrd.img followkernel") naming `name`: " (WRITTEN starts with /: os_prefix=P does not
/// apply to it)" when `name` has a leading '/' and an os_prefix is set, else `otherwise`. Raspberry
/// Pi documentation, config_txt: os_prefix.
std::string os_prefix_note(const std::string& os_prefix, const std::string& written, const std::string& name,
                           const std::string& otherwise);

/// True when `rel` (a path relative to BOOT_DIR) lies inside current/, new/ or old/.
bool in_ab_slot(std::string_view rel);

}  // namespace piprov::boot
