// boot check: the root fs's /etc/fstab against the disk the Pi boots from (check_ctx.hpp check_fstab).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <sstream>

#include "boot/check_ctx.hpp"
#include "core/file.hpp"
#include "core/strings.hpp"

namespace fs = std::filesystem;

namespace piprov::boot::detail {
namespace {

constexpr const char* kFstabDoc =
    "systemd.mount(5): fstab entries without nofail are required by local-fs.target (x-systemd.device-timeout, "
    "90 s); fstab(5)";

/// One mount line of /etc/fstab: its 1-based line number and fields (fs_spec, fs_file, fs_vfstype, fs_mntops).
struct FstabEntry {
  std::size_t line = 0;
  std::string spec, file, type;
  std::vector<std::string> options;
};

/// fstab(5) escapes a space in a field as \040 (and a tab as \011): the mount point as the kernel has it.
std::string fstab_unescape(const std::string& field) {
  std::string out;
  for (std::size_t i = 0; i < field.size(); ++i) {
    if (field[i] == '\\' && i + 3 < field.size() &&
        std::all_of(field.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                    field.begin() + static_cast<std::ptrdiff_t>(i) + 4,
                    [](char ch) { return ch >= '0' && ch <= '7'; })) {
      out += static_cast<char>((field[i + 1] - '0') * 64 + (field[i + 2] - '0') * 8 + (field[i + 3] - '0'));
      i += 3;
    } else {
      out += field[i];
    }
  }
  return out;
}

std::vector<FstabEntry> parse_fstab(const std::string& text) {
  std::vector<FstabEntry> out;
  std::istringstream in(text);
  std::string line;
  for (std::size_t n = 1; std::getline(in, line); ++n) {
    std::istringstream words(line);
    FstabEntry e;
    e.line = n;
    std::string opts;
    if (!(words >> e.spec) || e.spec.front() == '#') continue;
    if (!(words >> e.file >> e.type)) continue;  // not a mount line
    words >> opts;
    e.file = fstab_unescape(e.file);
    e.options = split(opts, ',');
    out.push_back(std::move(e));
  }
  return out;
}

bool fstab_has_option(const FstabEntry& e, std::string_view o) {
  return std::find(e.options.begin(), e.options.end(), o) != e.options.end();
}

/// Entries that mount no block device of the disk, or only when asked: swap, pseudo and network file
/// systems, _netdev, noauto (fstab(5), systemd.mount(5)).
bool fstab_entry_skipped(const FstabEntry& e) {
  static constexpr std::string_view kNotLocal[] = {"swap",   "tmpfs",   "proc",    "sysfs",      "devpts", "devtmpfs",
                                                   "cgroup", "cgroup2", "debugfs", "securityfs", "none",   "nfs",
                                                   "nfs4",   "cifs",    "smb3",    "smbfs",      "9p",     "glusterfs",
                                                   "ceph",   "sshfs",   "davfs",   "virtiofs",   "fuse",   "overlay"};
  if (std::find(std::begin(kNotLocal), std::end(kNotLocal), e.type) != std::end(kNotLocal)) return true;
  if (e.type.rfind("fuse.", 0) == 0 || e.file == "swap" || e.file == "none") return true;
  return fstab_has_option(e, "noauto") || fstab_has_option(e, "_netdev");
}

/// How an fstab device names a partition: kind "LABEL", "UUID" or "PARTUUID" and its value, written as
/// a tag (LABEL=x) or as the udev link systemd turns the tag into (/dev/disk/by-label/x: systemd
/// fstab-util.c fstab_node_to_udev_node); kind "" for any other device (judged elsewhere or not at all).
struct FstabDevice {
  std::string kind, value;
  bool path = false;
};

/// udev's link name of `value` (libblkid blkid_encode_string, systemd encode_devnode_name): bytes other
/// than ASCII letters, digits and "#+-.:=@_" (and UTF-8 sequences, kept) as \xNN.
std::string fstab_udev_encode(const std::string& value) {
  std::string out;
  for (unsigned char ch : value) {
    if (std::isalnum(ch) || std::string_view("#+-.:=@_").find(static_cast<char>(ch)) != std::string_view::npos ||
        ch >= 0x80)
      out += static_cast<char>(ch);
    else
      out += fmt::format("\\x{:02x}", ch);
  }
  return out;
}

/// The value a udev link name stands for, \xNN decoded ("my\x20disk" -> "my disk"); nullopt for a name
/// udev never makes (a character it escapes written as it is, a backslash that starts no \xNN): such
/// a name is not judged.
std::optional<std::string> fstab_udev_decode(const std::string& name) {
  std::string out;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const auto ch = static_cast<unsigned char>(name[i]);
    if (ch == '\\') {
      if (i + 3 >= name.size() || name[i + 1] != 'x' || !std::isxdigit(static_cast<unsigned char>(name[i + 2])) ||
          !std::isxdigit(static_cast<unsigned char>(name[i + 3])))
        return std::nullopt;
      out += static_cast<char>(std::stoi(name.substr(i + 2, 2), nullptr, 16));
      i += 3;
    } else if (std::isalnum(ch) || std::string_view("#+-.:=@_").find(static_cast<char>(ch)) != std::string_view::npos ||
               ch >= 0x80) {
      out += static_cast<char>(ch);
    } else {
      return std::nullopt;
    }
  }
  return out;
}

/// The entry's device as a LABEL/UUID/PARTUUID tag or its /dev/disk/by-* link. A tag's value loses one
/// pair of enclosing quotes, as systemd's and libblkid's parsers drop them (LABEL="root"). PARTLABEL=
/// and /dev/disk/by-partlabel/ are not judged: piprov does not read GPT partition names.
FstabDevice fstab_device(const std::string& spec) {
  for (const char* kind : {"LABEL", "UUID", "PARTUUID"}) {
    const std::string tag = std::string(kind) + "=";
    if (spec.rfind(tag, 0) == 0) {
      std::string v = spec.substr(tag.size());
      if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front())
        v = v.substr(1, v.size() - 2);
      return {kind, v, false};
    }
    const std::string link = "/dev/disk/by-" + to_lower(kind) + "/";
    if (spec.rfind(link, 0) == 0) {
      const std::string name = spec.substr(link.size());
      if (name.empty() || name.find('/') != std::string::npos) return {};
      auto v = fstab_udev_decode(name);
      if (!v) return {};
      return {kind, *v, true};
    }
  }
  return {};
}

/// `kind`=`value` in the entry's form: the tag (a space or tab as fstab(5)'s \040, \011), or the
/// /dev/disk/by-* link.
std::string fstab_device_text(const std::string& kind, const std::string& value, bool path) {
  if (path) return "/dev/disk/by-" + to_lower(kind) + "/" + fstab_udev_encode(value);
  std::string out = kind + "=";
  for (char ch : value) out += ch == ' ' ? "\\040" : ch == '\t' ? "\\011" : std::string(1, ch);
  return out;
}

/// The partition an entry on mount point `file` should name: the boot partition (the first FAT one)
/// for /boot/firmware and /boot, the root partition for /; nullptr for another mount point.
const Partition* fstab_expected_partition(const Disk& d, const std::string& file) {
  if (file == "/") return likely_root(d);
  if (file == "/boot/firmware" || file == "/boot") {
    auto it = std::find_if(d.partitions.begin(), d.partitions.end(), [](const Partition& p) {
      return p.fstype == "vfat" || p.fstype == "fat32" || p.fstype == "fat16";
    });
    return it == d.partitions.end() ? nullptr : &*it;
  }
  return nullptr;
}

/// The fix: the right id for the entry's first field, in its form (tag or /dev/disk/by-* link) and of
/// the kind it uses when the partition has one (else PARTUUID, else LABEL), or adding nofail for a mount
/// point piprov cannot place.
std::string fstab_fix(const FstabEntry& e, const FstabDevice& dev, const Disk& d) {
  const Partition* p = fstab_expected_partition(d, e.file);
  std::string id;
  for (const std::string& kind : {dev.kind, std::string("PARTUUID"), std::string("LABEL")})
    if (p && !kind.empty() && id.empty() && !blkid_id(*p, kind).empty())
      id = fstab_device_text(kind, blkid_id(*p, kind), dev.path);
  const std::string where = "/etc/fstab line " + std::to_string(e.line);
  if (!id.empty())
    return "set the first field of " + where + " to " + id + " (the " + (e.file == "/" ? "root" : "boot") +
           " partition, " + p->path + ")";
  return "set the first field of " + where + " to the PARTUUID= or LABEL= of the partition of " + d.path +
         " that holds " + e.file + ", or add nofail to its options if the boot may go on without it";
}

constexpr const char* kFstabDuplicateDoc =
    "fstab(5): LABEL= and UUID= are found by udev's /dev/disk/by-label and /dev/disk/by-uuid links, one link per "
    "id; raspberrypi/linux issue 5956 (two disks with the same label)";

/// Whether fs ids "KIND=VALUE" `a` and `b` are the same (a UUID in either case).
bool same_fs_id(const std::string& a, const std::string& b) {
  return a.rfind("UUID=", 0) == 0 ? to_lower(a) == to_lower(b) : a == b;
}

/// clone: an fstab entry mounting a local file system (fstab_entry_skipped()) whose device is a file system id
/// (fstab_fs_id()) that a partition of the TARGET `d` and one of the SOURCE (c.o.source_disk) both carry (clone
/// copies LABEL and UUID; PARTUUID it renews): warning fstab-duplicate, with the TARGET partition's PARTUUID as
/// the fix. An entry with root='s id is root-duplicate's (c.source_root_id); the others are also added to that
/// warning's fix.
void check_fstab_source_duplicates(Ctx& c, const std::vector<FstabEntry>& entries, const Disk& d) {
  const Disk& src = *c.o.source_disk;
  std::vector<std::string> also;  // for root-duplicate's fix
  for (const auto& e : entries) {
    if (fstab_entry_skipped(e)) continue;
    const FstabDevice dev = fstab_device(fstab_unescape(e.spec));
    if (dev.kind != "LABEL" && dev.kind != "UUID") continue;  // PARTUUID: clone renews it
    const std::string id = dev.kind + "=" + dev.value;
    const Partition* tp = partition_named_by(d, id);
    const Partition* sp = partition_named_by(src, id);
    if (!tp || !sp) continue;  // on the TARGET's alone; or on neither: fstab-not-on-device says so
    if (e.file == "/" && !c.source_root_id.empty() && same_fs_id(id, c.source_root_id)) continue;
    const std::string where = "/etc/fstab line " + std::to_string(e.line);
    const std::string link = fstab_device_text(dev.kind, dev.value, true);
    // What takes the SOURCE's partition: the root itself is mounted by root= (the kernel, the initramfs).
    const bool boot = e.file == "/boot/firmware" || e.file == "/boot";
    const std::string effect =
        e.file == "/" ? "what finds / by /etc/fstab (its file system check, mount -o remount) may then take it "
                        "instead of the TARGET's " +
                            tp->path
        : boot ? "systemd then mounts it on " + e.file +
                     ", and kernel and firmware updates go to the SOURCE while the TARGET boots its own, stale files"
               : "systemd then mounts it on " + e.file + " instead of the TARGET's " + tp->path;
    const std::string to = tp->partuuid.empty() ? "the PARTUUID= of the TARGET's " + tp->path +
                                                      " (blkid -s PARTUUID -o value " + tp->path + ")"
                                                : "PARTUUID=" + tp->partuuid + " (the TARGET's " + tp->path + ")";
    Ctx::locate(
        c.add(Severity::Warning, "fstab-duplicate",
              where + ": " + e.spec + " (mounted on " + e.file + "): the SOURCE's " + sp->path + " (" + src.path +
                  ") also carries it, and clone copies it unchanged: with both disks attached to one node, " + link +
                  " may point to the SOURCE's partition: " + effect,
              "attach only one of them to a node, or set the first field of " + where + " to " + to +
                  ": clone gave the TARGET a new disk identifier, so no other disk carries it",
              kFstabDuplicateDoc),
        e.line, e.file);
    also.push_back(where + " (" + e.spec + " on " + e.file + ") to " + to);
  }
  if (c.source_root_duplicate && !also.empty()) {
    std::string& fix = c.r.findings[*c.source_root_duplicate].fix;
    fix += "; /etc/fstab names other file systems both disks carry: set " + join(also, ", ") + " (fstab-duplicate)";
  }
}

std::string fstab_nofail_tail(const FstabEntry& e, bool nofail) {
  return nofail ? ": with nofail the boot goes on, without " + e.file + " mounted"
                : ": without nofail systemd waits 90 s for it (x-systemd.device-timeout) and stops in emergency "
                  "mode, or mounts another disk's partition there";
}

}  // namespace

void check_fstab(Ctx& c) {
  if (!c.o.root_dir) return;
  const std::optional<Disk> d = known_boot_disk(c);
  if (!d) return;
  const auto text = read_file_if_exists(*c.o.root_dir / "etc/fstab");
  if (!text) return;
  const std::string what = c.o.device || c.o.image.empty() || c.o.image_is_disk
                               ? d->path + " (" + std::string(transport_name(d->transport)) + ")"
                               : "a USB or NVMe disk written from " + d->path;
  const std::vector<FstabEntry> entries = parse_fstab(*text);
  if (c.o.source_disk && !c.o.device) check_fstab_source_duplicates(c, entries, *d);
  for (const auto& e : entries) {
    if (fstab_entry_skipped(e)) continue;
    const bool nofail = fstab_has_option(e, "nofail");
    const std::string where = "/etc/fstab line " + std::to_string(e.line);
    const Severity severity = nofail ? Severity::Warning : Severity::Error;
    // getmntent(3) decodes the octal escapes of every field (LABEL=my\040disk).
    const FstabDevice dev = fstab_device(fstab_unescape(e.spec));
    std::string why;
    if (e.spec.rfind("/dev/mmcblk", 0) == 0) {
      if (boots_as_sd_card(*d)) continue;
      why = "is a partition of the SD card or eMMC (mmcblk: the mmc controller), not of " + what +
            ", which the Pi sees as /dev/sdX or /dev/nvme0n1";
    } else {
      // Another /dev name, PARTLABEL=, a by-* name udev never makes, a bind mount: not judged.
      if (dev.kind.empty()) continue;
      const bool known = c.o.device || (dev.kind == "PARTUUID" ? c.o.disk_partuuids : c.o.disk_labels);
      if (!known) continue;
      const auto named = std::find_if(d->partitions.begin(), d->partitions.end(),
                                      [&](const Partition& p) { return matches(p, dev.kind, dev.value); });
      if (named != d->partitions.end()) {
        const std::string exact = blkid_id(*named, dev.kind);
        if (exact == dev.value) continue;
        // systemd waits for /dev/disk/by-partuuid/<value as written>; udev's link has blkid's case.
        const std::string link = fstab_device_text(dev.kind, dev.value, true);
        Ctx::locate(c.add(severity, "fstab-id-case",
                          where + ": " + e.spec + " (mounted on " + e.file + ") names " + named->path +
                              " only when case is ignored (blkid: " + dev.kind + "=" + exact + "): systemd waits for " +
                              link + ", but udev names the link " + fstab_device_text(dev.kind, exact, true) +
                              ", and names are compared exactly" + fstab_nofail_tail(e, nofail),
                          "set the first field of " + where + " to " + fstab_device_text(dev.kind, exact, dev.path) +
                              " (" + named->path + "'s " + dev.kind + " as blkid prints it)",
                          "systemd src/shared/fstab-util.c fstab_node_to_udev_node (the value as written); "
                          "systemd.mount(5)"),
                    e.line, e.file);
        continue;
      }
      why = "names no partition of " + what;
    }
    Ctx::locate(c.add(severity, "fstab-not-on-device",
                      where + ": " + e.spec + " (mounted on " + e.file + ") " + why + fstab_nofail_tail(e, nofail),
                      fstab_fix(e, dev, *d), kFstabDoc),
                e.line, e.file);
  }
}

}  // namespace piprov::boot::detail
