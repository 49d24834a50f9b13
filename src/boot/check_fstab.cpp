// boot check: the root fs's /etc/fstab against the disk the Pi boots from (check_ctx.hpp check_fstab).
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

/// The fix: the right id for the entry's first field (of the kind it uses when the partition has one,
/// else PARTUUID, else LABEL), or adding nofail for a mount point piprov cannot place.
std::string fstab_fix(const FstabEntry& e, const Disk& d) {
  const Partition* p = fstab_expected_partition(d, e.file);
  const bool label_first = e.spec.rfind("LABEL=", 0) == 0;
  std::string id;
  if (p && label_first && !p->label.empty())
    id = "LABEL=" + p->label;
  else if (p && !p->partuuid.empty())
    id = "PARTUUID=" + p->partuuid;
  else if (p && !p->label.empty())
    id = "LABEL=" + p->label;
  const std::string where = "/etc/fstab line " + std::to_string(e.line);
  if (!id.empty())
    return "set the first field of " + where + " to " + id + " (the " + (e.file == "/" ? "root" : "boot") +
           " partition, " + p->path + ")";
  return "set the first field of " + where + " to the PARTUUID= or LABEL= of the partition of " + d.path +
         " that holds " + e.file + ", or add nofail to its options if the boot may go on without it";
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
  for (const auto& e : parse_fstab(*text)) {
    if (fstab_entry_skipped(e)) continue;
    std::string why;
    if (e.spec.rfind("/dev/mmcblk", 0) == 0) {
      if (boots_as_sd_card(*d)) continue;
      why = "is a partition of the SD card or eMMC (mmcblk: the mmc controller), not of " + what +
            ", which the Pi sees as /dev/sdX or /dev/nvme0n1";
    } else {
      const bool partuuid = e.spec.rfind("PARTUUID=", 0) == 0;
      const bool fs_id = e.spec.rfind("LABEL=", 0) == 0 || e.spec.rfind("UUID=", 0) == 0;
      if (!partuuid && !fs_id) continue;  // another /dev name, PARTLABEL=, a bind mount: not judged
      const bool known = c.o.device || (partuuid ? c.o.disk_partuuids : c.o.disk_labels);
      if (!known || partition_named_by(*d, e.spec)) continue;
      why = "names no partition of " + what;
    }
    const bool nofail = fstab_has_option(e, "nofail");
    const std::string where = "/etc/fstab line " + std::to_string(e.line);
    Ctx::locate(c.add(nofail ? Severity::Warning : Severity::Error, "fstab-not-on-device",
                      where + ": " + e.spec + " (mounted on " + e.file + ") " + why +
                          (nofail ? ": with nofail the boot goes on, without " + e.file + " mounted"
                                  : ": without nofail systemd waits 90 s for it (x-systemd.device-timeout) and "
                                    "stops in emergency mode, or mounts another disk's partition there"),
                      fstab_fix(e, *d), kFstabDoc),
                e.line, e.file);
  }
}

}  // namespace piprov::boot::detail
