#pragma once
// `piprov boot check`: the re-check users run after updates.
// Judges what the firmware will load for the layout found (layout.hpp) on a
// board: the kernel exists and is an arm64 Image or a compressed one the
// firmware loads (start4.elf's build date on a Pi 4; the Pi 5 firmware in the
// EEPROM always can), vmlinux fresh where piprov made it; initramfs and cmdline
// file exist; root= is sane (and, with a device, names a partition of it and no
// other attached disk carries the same LABEL/PARTUUID: raspberrypi/linux issue
// 5956; with a disk whose ids are known (an image, provision's disk), names a partition of it; on a known disk
// that is not the SD card, no /dev/mmcblk* name); the A/B state of the
// tryboot layout; config.txt lint; the apt hook where one is needed; UAS quirks for known USB-SATA bridges
// (cmdline_txt.hpp).
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "boot/autoboot.hpp"
#include "boot/layout.hpp"
#include "boot/sync.hpp"
#include "core/blockdev.hpp"
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
  std::optional<PiBoard> board;       ///< --board; nullopt = default_board() (layout.hpp)
  std::optional<std::string> device;  ///< --device DEV: the disk root= must be on (a whole disk)
  /// The image file BOOT_DIR was read from (`boot check IMAGE`), "" for a boot partition: `boot
  /// patch` refuses an image, so fixes that patch say `piprov provision IMAGE DISK`, which writes
  /// the image and patches the disk; fixes that change a file name it on the boot partition of a
  /// disk written from IMAGE, never a shell command on IMAGE's path (`rm -r IMAGE ...` deletes it).
  std::string image;
  /// `image` is a whole disk read as an image (`boot check DISK`): messages name the disk itself,
  /// not "a disk written from" it, and fixes that patch mount its boot partition (`boot patch` needs
  /// a mounted boot partition). Its partitions are `disk`'s, read from its partition table.
  bool image_is_disk = false;
  /// The partitions of the disk or image BOOT_DIR is on, when known (`boot check IMAGE`, provision;
  /// --device DEV is probed instead): an autoboot.txt beside config.txt whose boot_partition is
  /// missing or not FAT there is an error, as for a BOOT_DIR holding only autoboot.txt.
  std::optional<Disk> disk;
  /// Which ids of `disk`'s partitions are known, for root=: PARTUUID (false for an image's GPT,
  /// whose partition GUIDs are not read), LABEL and UUID (false unless every partition's file system
  /// was read). root=KIND=VALUE of a known KIND that no partition of `disk` carries is the error
  /// root-not-on-device, as with --device (which also warns about other attached disks).
  bool disk_partuuids = false;
  bool disk_labels = false;
  /// clone's SOURCE, when `disk` is its TARGET: a partition of it carrying the id root= names
  /// (LABEL= or UUID=, which clone copies; PARTUUID= it renews) is warning root-duplicate, as for
  /// another attached disk with --device (raspberrypi/linux issue 5956); one carrying the LABEL= or
  /// UUID= of another /etc/fstab entry (root_dir) is warning fstab-duplicate (check_ctx.hpp check_fstab).
  std::optional<Disk> source_disk;
};

/// What `boot check` made of a BOOT_DIR that holds only autoboot.txt (check_autoboot.cpp).
struct AutobootState {
  Autoboot file;
  std::string device;    ///< --device DEV, "" when none (then the partition is not followed)
  std::string followed;  ///< the partition checked ("/dev/loop3p2"), "" when not followed
};

struct CheckReport {
  /// Errors, then warnings, then infos; within each, in check order (kernel, initramfs,
  /// config.txt and each file it includes in line order, cmdline, root, A/B, apt hook, USB,
  /// firmware); rule ids in docs/boot.md. line is in the file the message names.
  Findings findings;
  BootLayout layout;                      ///< what detect_layout() found
  ResolvedBoot resolved;                  ///< what the firmware loads on resolved.board
  KernelStatus kernel;                    ///< state of vmlinux
  std::string kernel_file;                ///< the kernel file the firmware loads, with os_prefix ("current/vmlinuz")
  std::string cmdline_file;               ///< the cmdline file in use, with os_prefix
  std::string firmware;                   ///< firmware summary
  std::optional<AutobootState> autoboot;  ///< set when BOOT_DIR holds only autoboot.txt
  /// Where U-Boot's boot.scr decides root= (docs/boot.md): the root= value the kernel gets ("" = none)
  /// and where it comes from ("boot.scr line 2", "boot.scr line 1 replaces bootargs", "cmdline.txt;
  /// boot.scr may change it"); root_from "" = the cmdline file's root= (resolved.root) is the kernel's.
  std::string root;
  std::string root_from;
  /// The root= for the headline: "PARTUUID=6c586e13-02", "/dev/mmcblk0p2 (boot.scr line 1)", "(none)".
  std::string kernel_root() const;
  /// True when no finding fails under kCheckFailOn (exit 0).
  bool ok() const;
  /// True when nothing found stops this board from booting from USB: no error
  /// about the kernel, initramfs, cmdline file, root= or A/B slots, and no
  /// compressed kernel the firmware may not load.
  bool usb_boot() const;
  /// The first line of the text report: "layout ubuntu-ab (Ubuntu 25.10 or
  /// later) on a Raspberry Pi 4B: boots from USB (kernel current/vmlinuz, ...)"; for an unknown
  /// layout without such an error "piprov cannot tell whether it boots from USB".
  std::string headline() const;
  /// The last line of the text report, after "boot check: ": the counts when
  /// it fails; "OK (kernel vmlinux, initramfs initrd.img, vmlinux fresh)"; for a layout piprov does not
  /// know, "no problems found, but piprov cannot tell whether it boots from USB (...)", as the headline;
  /// for an autoboot.txt-only BOOT_DIR whose partition was not followed, that
  /// partition N was not checked and how to check it (--device DEV), never "OK".
  /// Never an empty kernel name.
  std::string summary() const;
};

/// Runs every check. Throws Error{Usage} only when BOOT_DIR is not a directory
/// (a block device: the message says to mount its FAT partition and pass the disk as --device)
/// or has neither config.txt nor autoboot.txt, or --device is not a whole disk
/// (core probe_disk()); everything else is a finding. A BOOT_DIR with only
/// autoboot.txt goes to check_autoboot().
CheckReport check_boot(const CheckOptions& opts);

/// `boot check` of a BOOT_DIR holding only autoboot.txt (autoboot_only()):
/// lints it (autoboot_lint()) and names the partition it boots and the
/// [tryboot] one. Without --device, and BOOT_DIR not a vfat mount point (then
/// its disk is used): info autoboot-not-followed. With a disk DEV: partition N of DEV must exist
/// (autoboot-partition-missing), be FAT (autoboot-partition-not-fat) and bootable (autoboot-partition-not-bootable:
/// config.txt, and start4.elf on the Pi 4 family); then it is mounted read-only
/// in a private /tmp dir (or copied out with mtools) and checked with
/// check_boot(), its findings prefixed with the partition's device (info
/// autoboot-ramdisk instead when its config.txt sets boot_ramdisk=1 with a boot.img). The
/// [tryboot] partition gets an info only (autoboot-tryboot-partition).
/// Throws Error{Usage} when DEV is not a whole disk, Error{Io} when a FAT
/// partition can be neither mounted nor read with mtools.
/// Source: Raspberry Pi documentation, config_txt: autoboot.txt.
CheckReport check_autoboot(const CheckOptions& opts);

/// `boot check --json` (schema "piprov.boot.check/5", docs/boot.md): the /2
/// fields plus "layout": {"id", "release", "board", "usb_boot", "kernel",
/// "initramfs", "cmdline", "cmdline_args", "root"} and "layout_evidence": [string], and "autoboot": null or
/// {"boot_partition", "tryboot_partition", "tryboot_a_b", "device", "followed"} (null for unset).
/// In "layout", kernel/initramfs/cmdline are what the firmware loads (ResolvedBoot): paths
/// relative to BOOT_DIR with os_prefix ("current/vmlinuz"; initramfs "" for none), and
/// cmdline_args the text of that cmdline file's first line (ResolvedBoot::cmdline_args).
/// /4 added cmdline_args. /5: top-level "initramfs" is the file (as top-level "kernel"), not the
/// directive's arguments, and "vmlinux_state" is null where the kernel loaded is not vmlinux.
nlohmann::json check_json(const CheckOptions& o, const CheckReport& r);

/// The partition of `d` that `ref` names: "PARTUUID=..." or "UUID=..." (compared without case, as
/// blkid prints them in lower case and the kernel's root=PARTUUID= takes either) or "LABEL=..."
/// (exact); nullptr when none does or `ref` is another form (/dev/sda2). A root= value in quotes
/// ("PARTUUID=...") is taken without them, as the kernel takes it (Linux lib/cmdline.c next_arg).
/// Linux admin-guide kernel-parameters: root=; fstab(5): the first field.
const Partition* partition_named_by(const Disk& d, std::string_view ref);

}  // namespace piprov::boot
