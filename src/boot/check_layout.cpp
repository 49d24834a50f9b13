// boot check: root= (and --device) and the tryboot A/B state (check_ctx.hpp).
#include <fmt/format.h>

#include <cctype>

#include "boot/check_ctx.hpp"
#include "core/blockdev.hpp"
#include "core/strings.hpp"
#include "core/write_guard.hpp"

namespace fs = std::filesystem;

namespace piprov::boot::detail {
namespace {

constexpr const char* kRootDoc = "Linux admin-guide kernel-parameters: root= (PARTUUID=, LABEL= via the initramfs)";
constexpr const char* kDuplicateDoc = "raspberrypi/linux issue 5956 (two disks with the same root label)";

bool hex(std::string_view s) {
  for (char ch : s)
    if (!std::isxdigit(static_cast<unsigned char>(ch))) return false;
  return !s.empty();
}

// MBR "1234abcd-02" or a GPT GUID "8-4-4-4-12" (util-linux libblkid PART_ENTRY_UUID).
bool valid_partuuid(std::string_view v) {
  if (v.size() == 11) return hex(v.substr(0, 8)) && v[8] == '-' && hex(v.substr(9));
  if (v.size() != 36) return false;
  for (std::size_t i : {8u, 13u, 18u, 23u})
    if (v[i] != '-') return false;
  return hex(v.substr(0, 8)) && hex(v.substr(9, 4)) && hex(v.substr(14, 4)) && hex(v.substr(19, 4)) &&
         hex(v.substr(24));
}

/// root= as (kind, value): ("LABEL", "writable"), ("PARTUUID", ...), ("UUID", ...); kind "" otherwise.
std::pair<std::string, std::string> split_root(const std::string& root) {
  for (const char* k : {"LABEL", "PARTUUID", "UUID"}) {
    std::string p = std::string(k) + "=";
    if (root.rfind(p, 0) == 0) return {k, root.substr(p.size())};
  }
  return {"", root};
}

std::string describe(const Disk& d) {
  std::vector<std::string> parts;
  for (const auto& p : d.partitions)
    parts.push_back((p.name.empty() ? p.path : p.name) + (p.label.empty() ? "" : " LABEL=" + p.label) +
                    (p.partuuid.empty() ? "" : " PARTUUID=" + p.partuuid));
  return parts.empty() ? "no partitions" : join(parts, ", ");
}

}  // namespace

bool matches(const Partition& p, const std::string& kind, const std::string& value) {
  if (kind == "LABEL") return !p.label.empty() && p.label == value;
  if (kind == "PARTUUID") return !p.partuuid.empty() && to_lower(p.partuuid) == to_lower(value);
  if (kind == "UUID") return !p.uuid.empty() && to_lower(p.uuid) == to_lower(value);
  return false;
}

std::string blkid_id(const Partition& p, std::string_view kind) {
  if (kind == "PARTUUID") return to_lower(p.partuuid);  // an image's GPT GUIDs are read in upper case
  if (kind == "UUID") return p.uuid;
  if (kind == "LABEL") return p.label;
  return "";
}

/// The partition of `d` that most looks like a Linux root: ext4 labelled writable/rootfs, else the last ext4.
const Partition* likely_root(const Disk& d) {
  const Partition* out = nullptr;
  for (const auto& p : d.partitions)
    if (p.fstype == "ext4" || p.fstype == "ext2/3/4" || p.fstype == "btrfs" ||
        p.fstype == "xfs") {  // "ext2/3/4": an image's
      if (p.label == "writable" || p.label == "rootfs") return &p;
      out = &p;
    }
  return out;
}

/// Whether the Pi sees `d` as its SD card (or eMMC): the mmc transport or an mmcblk name, or a USB card
/// reader (its model or vendor names a card reader: "SD Card Reader", "SD/MMC", "USB3.0-CRW"), which
/// holds a card the Pi reads through its own slot. Anything else (USB, NVMe, SATA bridges, an image
/// file, a loop device standing in for one) is a disk the Pi boots over USB or NVMe.
bool boots_as_sd_card(const Disk& d) {
  if (d.transport == Transport::Mmc || d.name.rfind("mmcblk", 0) == 0) return true;
  const std::string id = to_lower(d.vendor + " " + d.model);
  for (const char* reader : {"card", "reader", "sd/mmc", "crw"})
    if (id.find(reader) != std::string::npos) return true;
  return false;
}

/// The disk this boot partition is on, when known: --device DEV (probed), or o.disk (an image, whose disks
/// the Pi boots over USB or NVMe, piprov's purpose; provision's written disk).
std::optional<Disk> known_boot_disk(const Ctx& c) {
  if (c.o.device) return probe_disk(*c.o.device);
  return c.o.disk;
}

namespace {

/// Where root= is set, for messages and fixes: the cmdline file, or a line of U-Boot's boot.scr.
struct RootAt {
  std::string name;  ///< "cmdline.txt", "boot.scr line 2"
  std::string in;    ///< "in cmdline.txt", "in the setenv bootargs on boot.scr line 2 (boot.cmd), then mkimage ..."
  std::string tail;  ///< "" for the cmdline file (its fixes name no file), else " " + in
  int line = 1;      ///< the line in that file
};

/// root-not-on-device's fix: the root partition's PARTUUID (else its LABEL) to set in the cmdline file,
/// naming the partition as the root partition, not as where the cmdline file is ("set root=PARTUUID=
/// c766fb17-02 (the root partition, /dev/sdb2) in cmdline.txt"); without either id, blkid's command.
std::string root_on_disk_fix(const Disk& d, const RootAt& at) {
  const Partition* guess = likely_root(d);
  if (guess && (!guess->partuuid.empty() || !guess->label.empty()))
    return "set root=" + (guess->partuuid.empty() ? "LABEL=" + guess->label : "PARTUUID=" + guess->partuuid) +
           " (the root partition, " + guess->path + ") " + at.in;
  return "set root= " + at.in + " to the LABEL= or PARTUUID= of " + d.path + "'s root partition" +
         (d.path.rfind("/dev/", 0) == 0 ? " (blkid " + d.path + "*)" : "");
}

/// root=/dev/mmcblk* names the SD card's (or eMMC's) partition, the mmc controller's device: on a disk
/// the Pi boots over USB or NVMe (/dev/sdX, /dev/nvme0n1) it is never this disk (Raspberry Pi
/// documentation, "USB mass storage boot"; Linux admin-guide kernel-parameters: root=): error
/// root-not-on-device with the root partition's id. True when it said so.
bool check_root_sd_name(Ctx& c, const std::string& root, const RootAt& at) {
  if (root.rfind("/dev/mmcblk", 0) != 0) return false;
  const std::optional<Disk> d = known_boot_disk(c);
  if (!d || boots_as_sd_card(*d)) return false;
  const std::string what = c.o.device || c.o.image.empty() || c.o.image_is_disk
                               ? d->path + " (" + std::string(transport_name(d->transport)) + ")"
                               : "a USB or NVMe disk written from " + d->path;
  c.add(Severity::Error, "root-not-on-device",
        "root=" + root + " (" + at.name + ") is a partition of the SD card or eMMC (mmcblk: the mmc " +
            "controller), not of " + what + ", which the Pi sees as /dev/sdX or /dev/nvme0n1: booting from it, " +
            "the kernel waits for the card (rootwait) or mounts the card's root",
        root_on_disk_fix(*d, at), kRootDoc);
  return true;
}

/// root= (LABEL=, PARTUUID= or UUID=) names a partition of `d`: else error root-not-on-device. A
/// partition of one of `others` (the other disks attached to the node, or clone's SOURCE: `source`)
/// with the same id is warning root-duplicate: the kernel takes the first partition it finds with
/// that id (raspberrypi/linux issue 5956).
void check_root_on_disk(Ctx& c, const std::string& root, const Disk& d, const std::vector<Disk>& others,
                        const RootAt& at, bool source = false) {
  auto [kind, value] = split_root(root);
  if (kind.empty()) return;          // a kernel device name: root-kernel-name already says why
  const Partition* named = nullptr;  // the partition of `d` root= names
  for (const auto& p : d.partitions)
    if (matches(p, kind, value)) named = &p;
  const std::string root_part = named ? named->path : "TARGETp2";
  const std::string root_partuuid = named ? named->partuuid : "";  // its PARTUUID, when known
  if (!named) {
    c.add(Severity::Error, "root-not-on-device",
          "root=" + root + " (" + at.name + ") names no partition of " + d.path + " (" + describe(d) +
              "): the Pi would mount another disk's root, or none",
          root_on_disk_fix(d, at), kRootDoc);
  } else if (const std::string exact = blkid_id(*named, kind); exact != value && !c.r.resolved.initramfs.empty()) {
    // The kernel compares case-insensitively; an initramfs resolves root= with blkid, which does not.
    c.add(Severity::Error, "root-id-case",
          "root=" + root + " (" + at.name + ") names " + named->path + " only when case is ignored (blkid: " + kind +
              "=" + exact + "): the kernel's own lookup ignores case, but the initramfs the firmware loads (" +
              c.r.resolved.initramfs +
              ") resolves root= with blkid -t, which compares exactly: it gives up waiting (\"ALERT!  " + root +
              " does not exist\") and drops to its shell",
          "set root=" + kind + "=" + exact + " (as blkid prints it) " + at.in,
          "initramfs-tools scripts/functions resolve_device (blkid -l -t); util-linux issue 1014 (blkid compares "
          "ids as strings)");
  }
  for (const auto& other : others) {
    if (other.name == d.name) continue;
    for (const auto& p : other.partitions) {
      if (!matches(p, kind, value)) continue;
      if (source) {  // clone copies LABEL= and UUID= as they are; the TARGET's root is the one to change
        const std::string partuuid =
            root_partuuid.empty() ? "root=PARTUUID=" : fmt::format("root=PARTUUID={} ({})", root_partuuid, root_part);
        c.source_root_duplicate = c.r.findings.size();
        c.source_root_id = kind + "=" + value;
        c.add(Severity::Warning, "root-duplicate",
              fmt::format("root={}={}: the SOURCE's {} ({}) also carries it, and clone copies it unchanged: with "
                          "both disks attached to one node the kernel may mount the SOURCE's root instead of {}'s",
                          kind, value, p.path, other.path, d.path),
              kind == "LABEL"
                  ? fmt::format("attach only one of them to a node, or give the TARGET's root file system a new "
                                "label (e2label {} NEWNAME) and set root=LABEL=NEWNAME (and / in /etc/fstab), or "
                                "use {} (and for / in /etc/fstab), which clone renewed",
                                root_part, partuuid)
                  : fmt::format("attach only one of them to a node, or give the TARGET's root file system a new "
                                "UUID (tune2fs -U random {}) and set root=UUID= to it (and / in /etc/fstab), or "
                                "use {} (and for / in /etc/fstab), which clone renewed",
                                root_part, partuuid),
              kDuplicateDoc);
        continue;
      }
      c.add(Severity::Warning, "root-duplicate",
            fmt::format("{} on another attached disk ({}) also carries {}={}: the kernel may mount it as root "
                        "instead of {}'s",
                        p.path, other.path, kind, value, d.path),
            kind == "LABEL" ? fmt::format("detach {} before booting, or relabel it (e2label {} NEWNAME), or "
                                          "boot with root=PARTUUID= of a disk with its own disk identifier",
                                          other.path, p.path)
                            : fmt::format("detach {} before booting, or give one of the disks a new disk "
                                          "identifier (sfdisk --disk-id {} NEWID) and update root=",
                                          other.path, other.path),
            kDuplicateDoc);
    }
  }
}

}  // namespace

namespace {

/// root= `root` set at `at`: a stable name, on the known disk (check_root).
void check_root_value(Ctx& c, const std::optional<std::string>& root, const RootAt& at) {
  const std::string& file = at.name;
  if (!root->empty() && root->front() == '"') {
    // Linux lib/cmdline.c next_arg: "Don't include quotes in value"; /proc/cmdline keeps them.
    std::string bare = root->substr(1);
    if (!bare.empty() && bare.back() == '"') bare.pop_back();
    const std::string& initramfs = c.r.resolved.initramfs;
    c.add(initramfs.empty() ? Severity::Warning : Severity::Error, "root-quoted",
          file + ": root=" + *root + " is quoted: the kernel drops the quotes and reads root=" + bare +
              (initramfs.empty() ? ", but whatever reads root= from /proc/cmdline (an initramfs, systemd) gets them too"
                                 : ", but the initramfs the firmware loads (" + initramfs +
                                       ") reads root= from /proc/cmdline with the quotes (initramfs-tools init: "
                                       "ROOT=${x#root=}), finds no device named " +
                                       *root + " and drops to its shell"),
          "drop the quotes: root=" + bare + at.tail,
          "Linux lib/cmdline.c next_arg; initramfs-tools init and scripts/functions resolve_device");
    check_root_value(c, bare, at);  // a wrong id inside the quotes is still named
    return;
  }
  auto [kind, value] = split_root(*root);
  if (*root == "ROOTDEV" || is_placeholder_word(value)) {
    const std::string example = root_example(c);
    Ctx::locate(c.add(Severity::Error, "root-placeholder",
                      file + ": root=" + *root +
                          (*root == "ROOTDEV" ? " is pi-gen's placeholder" : " holds a build placeholder") +
                          ", which the image build replaces with the root partition: this cmdline is a template",
                      "set root=" + example +
                          (example.rfind("PARTUUID=", 0) == 0 ? " (blkid -s PARTUUID -o value /dev/sdX2)"
                                                              : " (the root file system's label in this layout)") +
                          at.tail,
                      "RPi-Distro/pi-gen stage1/00-boot-files/files/cmdline.txt"),
                at.line, "root");
    return;
  }
  if (root->rfind("/dev/", 0) == 0) {
    if (check_root_sd_name(c, *root, at)) return;
    c.add(Severity::Warning, "root-kernel-name",
          file + ": root=" + *root +
              (root->rfind("/dev/mmcblk", 0) == 0
                   ? " is a partition of the SD card or eMMC (mmcblk: the mmc controller): right only when the Pi "
                     "boots from the card; a USB or NVMe disk is /dev/sdX or /dev/nvme0n1 (pass --device DISK to "
                     "check against the disk)"
                   : " is a kernel device name, which depends on probe order (booting from USB, the SD card's names "
                     "change)"),
          "use root=PARTUUID=... or root=LABEL=... of the root partition (blkid shows both)" + at.tail, kRootDoc);
    return;
  }
  if (kind == "PARTUUID" && !valid_partuuid(value)) {
    c.add(Severity::Error, "root-partuuid-invalid",
          file + ": root=PARTUUID=" + value + " is not a partition UUID (1234abcd-02 on MBR, a GUID on GPT)",
          "set the root partition's PARTUUID (blkid -s PARTUUID -o value /dev/sdX2)" + at.tail, kRootDoc);
    return;
  }
  if (kind.empty()) {
    c.add(Severity::Warning, "root-unknown", file + ": root=" + *root + " is neither LABEL=, PARTUUID= nor UUID=",
          "use root=PARTUUID=... or root=LABEL=... of the root partition" + at.tail, kRootDoc);
    return;
  }
  if (c.o.device)
    check_root_on_disk(c, *root, probe_disk(*c.o.device), list_disks(), at);
  else if (c.o.disk && (kind == "PARTUUID" ? c.o.disk_partuuids : c.o.disk_labels))
    // an image, or provision's disk: the host's disks are not the Pi's; clone's SOURCE may be
    check_root_on_disk(c, *root, *c.o.disk, c.o.source_disk ? std::vector<Disk>{*c.o.source_disk} : std::vector<Disk>{},
                       at, true);
}

}  // namespace

void check_root(Ctx& c, const std::optional<CmdlineTxt>& cmdline) {
  const std::string& file = c.r.cmdline_file;
  if (auto root = cmdline->get("root"); root && !c.cmdline_root_replaced) {
    if (!template_value_in(*root).empty()) return;  // check_cmdline_text's template-value says it, once
    check_root_value(c, root, {file, "in " + file, "", 1});
    return;
  }
  if (c.uboot_scr_root.empty()) return;  // cmdline-no-root (or U-Boot's verdict) says so
  // The root= U-Boot's boot.scr sets (Linux takes U-Boot's bootargs as its command line).
  const std::string line = "boot.scr line " + std::to_string(c.uboot_scr_root_line);
  const std::string in = "in the setenv bootargs on " + line + " (boot.cmd), then " + kUbootMkimage;
  const std::string& root = c.uboot_scr_root;
  if (auto t = template_values_in(root); !t.empty()) {
    Ctx::locate(c.add(Severity::Error, "template-value",
                      line + ": root=" + root + " holds the unexpanded template value" + (t.size() > 1 ? "s " : " ") +
                          join(t, ", ") + ": this script is a template, not the one an image boots with",
                      "write the real value " + in),
                c.uboot_scr_root_line, "root");
    return;
  }
  check_root_value(c, root, {line, in, " " + in, c.uboot_scr_root_line});
}

void check_ab(Ctx& c) {
  const auto& l = c.r.layout;
  const fs::path& boot = c.o.boot_dir;
  constexpr const char* kAbDoc = "Raspberry Pi documentation, config_txt: autoboot.txt (tryboot_a_b), [tryboot] filter";
  if (!l.tryboot_a_b)
    c.add(Severity::Warning, "ab-no-autoboot",
          "autoboot.txt does not set tryboot_a_b=1: on a trial boot the firmware reads tryboot.txt instead of "
          "config.txt, so [tryboot] os_prefix=" +
              (l.tryboot_prefix.empty() ? std::string("new/") : l.tryboot_prefix) + " is never used",
          "write " + c.fix_target("autoboot.txt") + " with the lines [all] and tryboot_a_b=1 (as Ubuntu ships it)",
          kAbDoc);
  const std::string slot = l.tryboot_prefix.empty() ? "new/" : l.tryboot_prefix;
  std::error_code ec;
  const auto& rb = c.r.resolved;
  // os_prefix dropped (os-prefix-ignored): the top-level files boot, there is no slot to compare with.
  if (rb.prefix_ignored || !fs::is_directory(boot / slot, ec)) return;
  auto base = [&](const std::string& rel) { return rel.substr(rb.os_prefix.size()); };
  std::vector<std::string> missing;
  for (const auto& rel : {rb.kernel, rb.initramfs, rb.cmdline})  // a path outside os_prefix ("/cmdline.txt") is shared
    if (!rel.empty() && rel.rfind(rb.os_prefix, 0) == 0 && !partition_has_file(boot, slot + base(rel)))
      missing.push_back(slot + base(rel));
  if (missing.empty())
    c.add(Severity::Info, "ab-tryboot-pending",
          slot + " holds a complete boot (" + slot + base(rb.kernel) +
              "): an update waits for its trial boot (reboot '0 tryboot'), or a trial boot failed and the Pi fell "
              "back to " +
              rb.os_prefix);
  else
    c.add(Severity::Warning, "ab-new-leftover",
          slot + " lacks " + join(missing, ", ") +
              ": left over from an interrupted update; a trial boot from it would fail and fall back to " +
              rb.os_prefix,
          // For an image, no command on its path: `rm -r IMAGE...` would delete the image (trial 7, finding 3).
          (c.o.image.empty()
               ? "remove it (rm -r " + shell_quote((boot / slot).string()) + ")"
               : "remove " + c.fix_target(slot) + " (on the Pi: rm -r " + shell_quote("/boot/firmware/" + slot) + ")") +
              "; the next kernel update writes it again",
          kAbDoc);
}

std::string reinstall_kernel_fix(const Ctx& c, const std::string& file) {
  if (c.layout() == LayoutId::Raspios)
    return std::string("apt install --reinstall ") +
           (is_bcm2712(c.r.resolved.board) ? "linux-image-rpi-2712" : "linux-image-rpi-v8") +
           " (Raspberry Pi OS's kernel package for the " + c.board + " writes " + fs::path(file).filename().string() +
           ")";
  if (c.layout() == LayoutId::UbuntuAb)
    return "apt install --reinstall linux-image-raspi (piboot-try writes the new boot to new/, which becomes " +
           c.r.resolved.os_prefix + " after a good trial boot)" +
           (fs::exists(c.o.boot_dir / "old" / fs::path(file).filename())
                ? "; or copy old/" + fs::path(file).filename().string() + " back to " + file
                : "");
  if (c.layout() == LayoutId::DebianRaspi)
    return "dpkg-reconfigure raspi-firmware (reruns /etc/kernel/postinst.d/z50-raspi-firmware: copies the newest "
           "/boot/vmlinuz-* and /boot/initrd.img-* and rewrites config.txt and cmdline.txt)";
  if (c.layout() == LayoutId::Unknown)  // the release from --root's os-release when the headline names one
    return "restore " + file + " from the image's own boot partition or its distribution's kernel update (" +
           (c.r.layout.release_from_root ? "piprov does not know " + c.r.layout.release + "'s kernel package"
                                         : std::string("piprov cannot tell the distribution")) +
           ")";
  return "apt install --reinstall linux-image-raspi (flash-kernel copies it to the boot partition)";
}

}  // namespace piprov::boot::detail

namespace piprov::boot {

const Partition* partition_named_by(const Disk& d, std::string_view ref) {
  if (!ref.empty() && ref.front() == '"')
    ref = ref.substr(1, ref.size() - (ref.size() > 1 && ref.back() == '"' ? 2 : 1));
  auto [kind, value] = detail::split_root(std::string(ref));
  for (const auto& p : d.partitions)
    if (detail::matches(p, kind, value)) return &p;
  return nullptr;
}

}  // namespace piprov::boot
