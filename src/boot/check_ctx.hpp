#pragma once
// Internal to boot check (check.cpp, check_layout.cpp): the state the checks share.
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "boot/check.hpp"
#include "boot/cmdline_txt.hpp"
#include "boot/config_txt.hpp"

namespace piprov::boot::detail {

struct Ctx {
  const CheckOptions& o;
  CheckReport& r;
  std::string boot_q;     ///< BOOT_DIR shell-quoted, for fix commands
  std::string patch_cmd;  ///< "piprov boot patch BOOT_DIR"
  std::string board;      ///< "Pi 4", "Pi 400", "CM4", "Pi 5", "Pi 500", "CM5": in messages
  bool uboot = false;     ///< the firmware loads U-Boot (by its content), whose script loads Linux (check_kernel)
  /// The root= value U-Boot's boot.scr sets when the cmdline file has none (uboot_root()), and its
  /// line in the script: check_root judges it; "" when there is none to judge.
  std::string uboot_scr_root = {};
  int uboot_scr_root_line = 0;
  /// check_root's root-duplicate against clone's SOURCE (o.source_disk): its index in r.findings and the id
  /// root= names ("LABEL=writable"): check_fstab adds to its fix the other /etc/fstab entries both disks carry.
  std::optional<std::size_t> source_root_duplicate = {};
  std::string source_root_id = {};
  /// U-Boot's boot.scr replaces the cmdline file's root= (check_uboot_bootargs()): check_root does not
  /// judge the cmdline file's, which never reaches the kernel as its root.
  bool cmdline_root_replaced = false;
  /// Config lines (file as named, line) whose inline '#' a missing-file finding already names (the
  /// firmware looks for a file named with the comment): their config-inline-comment warning is not
  /// given as well (check_config_tree).
  std::vector<std::pair<std::string, std::size_t>> comment_in_name = {};
  /// config.txt and each file it includes, once each, with its size in bytes (check_config_tree), for
  /// check_config_size.
  std::vector<std::pair<std::string, std::size_t>> config_sizes = {};
  /// Adds a finding; the caller may set its line and key on the reference.
  Finding& add(Severity s, std::string rule, std::string msg, std::string fix = "", std::string source = "") {
    return r.findings.emplace_back(
        Finding{std::move(rule), s, 0, "", std::move(msg), std::move(fix), std::move(source)});
  }
  /// The finding is about config line `line` (1-based, in the file the message names) and `key`.
  static void locate(Finding& f, std::size_t line, std::string key) {
    f.line = static_cast<int>(line);
    f.key = std::move(key);
  }
  LayoutId layout() const { return r.layout.id; }
  /// Where a fix that changes boot partition file `rel` ("new/", "autoboot.txt") says to act: BOOT_DIR's
  /// path for a boot partition; for an image (o.image), prose naming the boot partition of a disk
  /// written from it (of the disk itself for a whole disk read as an image), never a path
  /// that a shell command would take for the image file itself.
  std::string fix_target(const std::string& rel) const {
    if (o.image.empty()) return (o.boot_dir / rel).string();
    if (o.image_is_disk) return rel + " on the boot partition of " + o.image;
    return rel + " on the boot partition of a disk written from " + o.image;
  }
};

/// The source of a finding about what Ubuntu's U-Boot boot script does with root=.
inline constexpr const char* kUbootScrSource =
    "flash-kernel bootscr/bootscr.rpi (Ubuntu's boot.scr: passes the firmware's command line on, adds no root=)";

/// How a fix says to rebuild boot.scr from its source boot.cmd (U-Boot docs, "source command": scripts
/// are made with mkimage).
inline constexpr const char* kUbootMkimage = "mkimage -A arm64 -T script -C none -d boot.cmd boot.scr";

/// Whether U-Boot supplies root= when the cmdline file has none, decided by the boot script's content
/// (check_uboot.cpp): boot.scr on the boot partition (uboot_script_text(): an mkimage legacy script;
/// plain text U-Boot does not run: none; uboot_script_root() evaluates what it leaves in bootargs, the
/// last assignment winning). HAOS-style scripts set root= in bootargs; Ubuntu's (flash-kernel's
/// bootscr.rpi) does not: it passes the command line the firmware built from cmdline.txt on. Without a
/// boot.scr, Ubuntu 20.04's layout runs none of its own (no root=); another U-Boot's script cannot be
/// read: trusted (info). A script piprov cannot evaluate: unknown (info).
struct UbootRootVerdict {
  UbootRootVerdict(bool s, bool u, std::string w, std::string f = "", std::string r = "", int l = 0)
      : supplied(s), unknown(u), why(std::move(w)), fix(std::move(f)), root(std::move(r)), line(l) {}
  bool supplied = false;
  bool unknown = false;
  std::string why;          ///< the message tail
  std::string fix;          ///< for cmdline-no-root: the fix when it is not cmdline.txt's ("" = add root= there)
  std::string root;         ///< supplied: the root= value boot.scr sets, to judge (check_root); "" when not known
  int line = 0;             ///< supplied: boot.scr's line that holds `root`
  std::string source = {};  ///< for cmdline-no-root: its source when not flash-kernel's bootscr.rpi
  /// supplied: the root= value for the headline, also one set at run time that is not judged ("" = not known)
  std::string shown = {};
};
UbootRootVerdict uboot_root(const Ctx& c);
/// Under U-Boot, when the cmdline file has root=: what the kernel really gets is U-Boot's bootargs as
/// boot.scr leaves it (uboot_script_root() from the firmware's command line, the cmdline file's first
/// line; U-Boot's fdt_chosen() writes bootargs to /chosen/bootargs before booti), the last root=
/// counting. The script's root= last: it is judged instead (c.uboot_scr_root, c.cmdline_root_replaced),
/// with info cmdline-root-from-uboot, or warning cmdline-duplicate when the cmdline file's root= is
/// still in bootargs before it; no root= left: error cmdline-no-root naming the boot.scr line; a
/// script piprov cannot evaluate (a FIT, see uboot_script_root()): info cmdline-root-uboot-unknown.
/// Sets c.r.root and c.r.root_from for the headline. Nothing without boot.scr or for one U-Boot does
/// not run.
void check_uboot_bootargs(Ctx& c, const CmdlineTxt& cmdline);

/// The kernel the firmware loads: present, not U-Boot, an arm64 Image or a
/// compressed one the firmware loads, vmlinux fresh (check_kernel.cpp).
void check_kernel(Ctx& c);
/// The initramfs line and its file.
void check_initramfs(Ctx& c);
/// root= of the cmdline file: a stable name (LABEL/PARTUUID/UUID), not pi-gen's
/// ROOTDEV placeholder; with --device, on that disk and unique among attached disks; with a known
/// disk that is not the SD card (--device, o.disk), never /dev/mmcblk* (the SD card's or eMMC's
/// partition; Raspberry Pi documentation, "USB mass storage boot"): root-not-on-device. Without root=
/// there, or when U-Boot's boot.scr replaces it (c.cmdline_root_replaced), the same for the root= U-Boot's
/// boot.scr sets (c.uboot_scr_root), named by its line, the fix
/// on that line of boot.cmd and mkimage. A quoted value (root="PARTUUID=...") is root-quoted (the
/// kernel drops the quotes, Linux lib/cmdline.c next_arg; an initramfs reads /proc/cmdline with them:
/// an error when the firmware loads one, else a warning) and is judged without them. With an
/// initramfs, a PARTUUID=/UUID= that names the partition only when case is ignored is error
/// root-id-case (initramfs-tools resolve_device: blkid -t compares exactly; the kernel alone ignores case).
void check_root(Ctx& c, const std::optional<CmdlineTxt>& cmdline);
/// The partition of `d` that most looks like a Linux root (ext4/btrfs/xfs, an image's "ext2/3/4"):
/// the one labelled writable or rootfs, else the last; nullptr when none.
const Partition* likely_root(const Disk& d);
/// Whether the Pi sees `d` as its SD card (or eMMC): the mmc transport or an mmcblk name, or a USB
/// card reader (vendor/model naming one); anything else (USB, NVMe, an image file) the Pi boots over
/// USB or NVMe, where /dev/mmcblk* is another device (Raspberry Pi documentation, "USB mass storage boot").
bool boots_as_sd_card(const Disk& d);
/// The disk BOOT_DIR is on, when known: --device DEV (probed), else o.disk (an image's, provision's
/// or clone's written disk); nullopt otherwise.
std::optional<Disk> known_boot_disk(const Ctx& c);
/// The root fs's /etc/fstab (o.root_dir) against the known disk (known_boot_disk()): an entry
/// mounting a local file system (not swap, tmpfs/proc/sysfs, a network fs, _netdev or noauto)
/// whose device is /dev/mmcblk* while the disk is not the SD card (boots_as_sd_card()), or
/// PARTUUID=/LABEL=/UUID= or the udev link systemd turns them into (/dev/disk/by-partuuid/X,
/// by-label/X, by-uuid/X: systemd fstab-util.c fstab_node_to_udev_node; one rule for both forms)
/// of a kind whose ids are known that names no partition of the disk: fstab-not-on-device, an
/// error (systemd.mount(5): an fstab entry without nofail is required by local-fs.target; the boot
/// waits x-systemd.device-timeout, 90 s, then emergency mode), a warning with nofail. An id that
/// names a partition only when case is ignored (PARTUUID=6C586E13-01): fstab-id-case, the same
/// severities (systemd does not fold case: it waits for /dev/disk/by-partuuid/6C586E13-01, and
/// udev names the link after blkid's value, blkid_id()). The fix names the boot partition's id for
/// /boot/firmware and /boot, the root partition's for /, in the entry's form (tag or path) and kind
/// when the partition has one (check_fstab.cpp).
/// With clone's SOURCE (o.source_disk), first: each entry whose device is LABEL=/UUID= (or
/// /dev/disk/by-label/, by-uuid/) that both the TARGET and the SOURCE carry is warning fstab-duplicate, its
/// fix the TARGET partition's PARTUUID (clone renews those), except `/` by root='s id, which root-duplicate
/// covers; the others are added to root-duplicate's fix.
void check_fstab(Ctx& c);
/// The id of kind `kind` ("LABEL", "UUID", "PARTUUID") of `p` as blkid prints it and udev names its
/// /dev/disk/by-label, by-uuid or by-partuuid link: PARTUUID in lower case (libblkid PART_ENTRY_UUID:
/// "%08x-%02x" on MBR, a lower-case GUID on GPT), UUID and LABEL as the file system holds them
/// (vfat's "91FE-7499" upper case, ext4's lower case); "" when p has none.
std::string blkid_id(const Partition& p, std::string_view kind);
/// Whether p's id of kind `kind` is `value` when case is ignored (the kernel's root=PARTUUID= lookup,
/// block/early-lookup.c strncasecmp) or, for LABEL, exactly.
bool matches(const Partition& p, const std::string& kind, const std::string& value);
/// The tryboot A/B state: autoboot.txt tryboot_a_b=1, new/ pending or left over.
void check_ab(Ctx& c);
/// When os_prefix is not viable and the top level has no kernel either (ResolvedBoot::prefix_missing
/// without prefix_ignored): " (os_prefix=P is used only when its kernel and .dtb are both there:
/// without P/FILE the firmware falls back to the top level, where there is no KERNEL either)", for
/// the one finding that names the missing prefixed file; "" otherwise. Raspberry Pi documentation,
/// config_txt: os_prefix.
std::string prefix_fallback_note(const Ctx& c);
/// The files config.txt names for this board: device_tree= (or the board's own DTB, core
/// board_dtbs(), under os_prefix and upstream_kernel rules) and armstub=; each missing one an
/// error naming the file (check_files.cpp).
void check_config_files(Ctx& c, const ConfigTxt& config, const IncludeLoader& loader);
/// conditional-file-missing (info): a file config.txt names (kernel=, initramfs, cmdline=,
/// device_tree=, armstub=) under a conditional filter ([gpioN=v], [0xSERIAL], [EDID=...],
/// [tryboot]; ConfigTxt with Board::conditions_hold) that is not on the partition. boot check judges
/// the default boot, where those filters count as false, but on a board where one holds the firmware
/// loads that file (check_conditional.cpp). Raspberry Pi documentation, config_txt: conditional filters.
void check_conditional_files(Ctx& c, const ConfigTxt& config, const IncludeLoader& loader);
/// config.txt (or a file it includes, `name`; `chain`: the files including it, config.txt first, as
/// partition_relative() names them): its lint (rules config-<lint code>), its lines
/// (check_config_lines), its missing includes (include-missing) and includes of a file of the chain
/// or itself (warning include-loop, not followed), in line order; then each file it includes the
/// same way, to a depth of 4. Raspberry Pi documentation, config_txt: include.
void check_config_tree(Ctx& c, const ConfigTxt& config, const std::string& name, const IncludeLoader& loader,
                       std::vector<std::string> chain = {});
/// The size of config.txt and the files it includes (c.config_sizes: include inserts a file's
/// content, so the firmware parses them as one config): over kConfigSizeLimit, warning
/// config-too-large naming how much each file holds (raspberrypi/firmware issue 1848; Raspberry Pi
/// documentation, config_txt: include).
void check_config_size(Ctx& c);
/// A missing file named by the config line `v` of `key` whose value holds '#' (kernel=kernel8.img # my
/// kernel): the firmware takes the '#' and what follows as part of the name (config_txt.hpp), so it
/// looks for a file named with the comment. "" when the value has no '#'; otherwise the message
/// tail saying so, with `fix` set to moving the comment to its own line (and, when the name without
/// the comment, under `prefix` (os_prefix), is missing too, missing_fix(that path)), and the line
/// recorded in c.comment_in_name.
std::string comment_in_name_note(Ctx& c, const EffectiveValue& v, const std::string& key, const std::string& prefix,
                                 std::string& fix, const std::function<std::string(const std::string&)>& missing_fix);
/// The lines of config.txt or a file it includes (`name`, named in the messages): unexpanded
/// template values "${VAR}" / "@VAR@" or a placeholder value (is_placeholder_word) outside
/// comments (error template-value); a bootloader EEPROM key (the eeprom key table,
/// eeprom/keys.hpp; Raspberry Pi documentation, eeprom-bootloader) (warning config-eeprom-key).
void check_config_lines(Ctx& c, const ConfigTxt& config, const std::string& name);
/// The cmdline file's template values: "${VAR}", "@VAR@" in any parameter, placeholders
/// (is_placeholder_word) in parameters other than root= (check_root judges root=): error
/// template-value, one per parameter, naming every value in it.
void check_cmdline_text(Ctx& c, const CmdlineTxt& cmdline);
/// The first unexpanded template value in `text`: "${VAR}" or "@VAR@"; "" when none.
std::string template_value_in(std::string_view text);
/// Every unexpanded template value in `text`, in order ("${VAR}", "@VAR@"); empty when none.
std::vector<std::string> template_values_in(std::string_view text);
/// True for a build placeholder left as a value: an upper-case word ending in DEV or UUID
/// ("ROOTDEV" of RPi-Distro/pi-gen's cmdline.txt, "ROOTPARTUUID", "BOOT_UUID").
bool is_placeholder_word(std::string_view v);

/// An example root= for the layout's fixes: Ubuntu's LABEL=writable, Debian's LABEL=RASPIROOT,
/// otherwise the root partition's PARTUUID (what Raspberry Pi OS writes; piprov cannot tell more).
std::string root_example(const Ctx& c);

/// The fix when the layout's release cannot boot the board: an Ubuntu layout from before 23.10
/// (U-Boot, legacy vmlinux, piprov's patch) on the Pi 5 family: "write a current image (...): RELEASE
/// cannot boot a Pi 5 (Ubuntu supports the Pi 5 from 23.10)"; "" otherwise (Ubuntu for Raspberry
/// Pi release notes, 23.10: Raspberry Pi 5 support).
std::string pi5_unsupported_fix(const Ctx& c);

/// The command that reinstalls the kernel package of the layout, which writes `file` (the kernel
/// or initramfs the firmware loads, relative to BOOT_DIR) (fix text).
std::string reinstall_kernel_fix(const Ctx& c, const std::string& file);

/// autoboot.txt beside config.txt (boot_partition=N on line `line`): autoboot-partition-missing,
/// -not-fat and -range against the disk of o.disk, or of --device (probed); nothing when neither is
/// known. Raspberry Pi documentation, config_txt: autoboot.txt.
Findings autoboot_partition_findings(const CheckOptions& o, int n, int line);

/// The apt hook piprov installs (apt-hooks/, docs/boot.md "The apt hook"), where the firmware boots a
/// vmlinux piprov keeps fresh: seed-hook, seed-hook-fault, hook-missing, hook-script-missing,
/// hook-unit-missing, hook-unit-disabled, hook-outdated; hook-not-checked without a root fs.
void check_hook(Ctx& c);

/// raspi-firmware-edited: on Debian's raspi-firmware layout, config.txt or cmdline.txt (`config_text`,
/// `cmdline`) differ from what its kernel hook writes, and the next kernel update overwrites them
/// (Debian package raspi-firmware).
void check_raspi_firmware(Ctx& c, const std::string& config_text, const std::optional<CmdlineTxt>& cmdline);

}  // namespace piprov::boot::detail
