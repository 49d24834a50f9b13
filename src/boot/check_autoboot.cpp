// boot check of a BOOT_DIR that holds only autoboot.txt (check.hpp check_autoboot()).
#include <fmt/format.h>
#include <cstdlib>

#include <optional>

#include "boot/autoboot.hpp"
#include "boot/check.hpp"
#include "boot/check_ctx.hpp"
#include "boot/config_txt.hpp"
#include "boot/fat_tools.hpp"
#include "core/blockdev.hpp"
#include "core/board.hpp"
#include "core/error.hpp"
#include "core/file.hpp"
#include "core/mounts.hpp"
#include "core/strings.hpp"
#include "core/write_guard.hpp"

namespace fs = std::filesystem;

namespace piprov::boot {
namespace {

/// Partition `p` as a read-only directory: its mount point, else mounted (or copied with mtools)
/// in a private /tmp/piprov-autoboot-XXXXXX.
FatDir autoboot_view(const Partition& p) {
  FatDirOptions o;
  o.mountpoint = p.mountpoints.empty() ? "" : p.mountpoints.front();
  o.temp_name = "autoboot";
  return FatDir(p.path, o);
}

Finding autoboot_finding(Severity s, std::string rule, std::string msg, std::string fix = "",
                         std::string source = kAutobootSource) {
  return Finding{std::move(rule), s, 0, "", std::move(msg), std::move(fix), std::move(source)};
}

/// Why partition `p` (mounted at `dir`) is not bootable for `board`; "" when it is.
std::string autoboot_unbootable(const fs::path& dir, PiBoard board) {
  std::error_code ec;
  const bool config = fs::is_regular_file(dir / "config.txt", ec);
  if (is_bcm2712(board)) return config ? "" : "has no config.txt (a Pi 5 boots only a FAT partition with config.txt)";
  if (!fs::is_regular_file(dir / "start4.elf", ec)) return "has no start4.elf (the Pi 4 family's firmware)";
  return config ? "" : "has no config.txt";
}

/// "boot.img" when config.txt in `dir` sets boot_ramdisk=1 and boot.img exists, "missing" when it sets it without
/// boot.img, "" when it does not set it.
std::string autoboot_ramdisk(const fs::path& dir, PiBoard board) {
  auto text = read_file_if_exists(dir / "config.txt");
  if (!text) return "";
  auto v = ConfigTxt::parse(*text).effective("boot_ramdisk", Board{is_bcm2712(board) ? "pi5" : "pi4"});
  if (!v || v->value != "1") return "";
  std::error_code ec;
  return fs::is_regular_file(dir / "boot.img", ec) ? "boot.img" : "missing";
}

/// The whole disk ("/dev/sda") when `boot_dir` is itself a vfat mount point (on the Pi: /bootfs), else nullopt.
/// Never from a plain directory: that would read partition N of the host's own disk.
std::optional<std::string> autoboot_own_disk(const fs::path& boot_dir) {
  std::error_code ec;
  const fs::path dir = fs::canonical(boot_dir, ec);
  if (ec) return std::nullopt;
  try {
    for (const auto& m : mount_table()) {
      if (m.target != dir.string() || m.fstype != "vfat" || m.devno == 0) continue;
      std::string name = disk_of_devno(m.devno);
      if (!name.empty()) return "/dev/" + name;
    }
  } catch (const Error&) {
  }
  return std::nullopt;
}

void autoboot_replace_all(std::string& s, const std::string& from, const std::string& to) {
  if (from.empty()) return;
  for (auto pos = s.find(from); pos != std::string::npos; pos = s.find(from, pos + to.size()))
    s.replace(pos, from.size(), to);
}

/// The report of an autoboot.txt-only BOOT_DIR before any partition is looked
/// at: the board, autoboot.txt as read, the disk to follow it on, the layout's evidence.
CheckReport autoboot_report(const Autoboot& a, PiBoard board, const std::optional<std::string>& device) {
  CheckReport r;
  r.resolved.board = board;
  r.autoboot = AutobootState{a, device.value_or(""), ""};
  r.layout.id = LayoutId::Unknown;
  r.layout.release = "autoboot.txt only";
  if (a.partition) r.layout.evidence.push_back(fmt::format("autoboot.txt boot_partition={}", *a.partition));
  if (a.tryboot_partition)
    r.layout.evidence.push_back(fmt::format("[tryboot] boot_partition={}", *a.tryboot_partition));
  if (a.tryboot_a_b) r.layout.evidence.push_back("tryboot_a_b=1");
  r.layout.evidence.push_back("no config.txt");
  return r;
}

/// `r` with `head` then `tail` as its findings.
CheckReport autoboot_done(CheckReport r, Findings head, const Findings& tail) {
  head.insert(head.end(), tail.begin(), tail.end());
  r.findings = std::move(head);
  return r;
}

/// Partition number `n` of `disk`; nullptr when it has none.
const Partition* autoboot_partition(const Disk& disk, int n) {
  for (const auto& p : disk.partitions)
    if (p.number == n) return &p;
  return nullptr;
}

/// autoboot-partition-not-fat's fix: boot_partition= first (naming the disk's FAT partitions);
/// formatting the partition only second, and saying it erases the file system it holds.
std::string autoboot_not_fat_fix(const Disk& disk, const Partition& p, int n) {
  std::string fat;
  for (const auto& q : disk.partitions)
    if (q.fstype == "vfat") fat += (fat.empty() ? "" : ", ") + std::to_string(q.number);
  std::string fix = "set boot_partition= to the FAT partition that holds the boot files" +
                    (fat.empty() ? std::string(" (") + disk.path + " has none)"
                                 : " (FAT on " + disk.path + ": partition " + fat + ")");
  if (p.fstype.empty())
    return fix + fmt::format(
                     "; or, if partition {} is meant for them, format {} as FAT (mkfs.vfat) and copy the boot "
                     "files to it",
                     n, p.path);
  return fix + fmt::format("; formatting {} as FAT (mkfs.vfat) would erase its {} file system and everything on it",
                           p.path, p.fstype);
}

/// autoboot-partition-missing, autoboot-partition-not-fat and
/// autoboot-partition-range for boot_partition=`n` (`p`: that partition, or nullptr).
/// True when P is an MBR partition: its PARTUUID is the disk identifier and the number
/// ("1234abcd-02", 11 characters), not a GPT GUID (UEFI 2.10, 5.3; Linux block/partitions/msdos.c).
bool partition_is_mbr(const Partition* p) { return p && p->partuuid.size() == 11 && p->partuuid[8] == '-'; }

void autoboot_partition_rules(Findings& out, const Disk& disk, const Partition* p, int n) {
  const bool mbr = partition_is_mbr(p);
  if (!p) {
    out.push_back(autoboot_finding(Severity::Error, "autoboot-partition-missing",
                                   fmt::format("autoboot.txt boot_partition={}, but {} has no partition {} "
                                               "(partitions: {})",
                                               n, disk.path, n, disk.partition_list()),
                                   "set boot_partition= to the partition that holds the boot files"));
  } else if (p->fstype != "vfat") {
    out.push_back(autoboot_finding(
        Severity::Error, "autoboot-partition-not-fat",
        fmt::format("partition {} ({}) named by autoboot.txt is {}, not FAT: the bootloader boots only FAT12/16/32", n,
                    p->path, p->fstype.empty() ? "no known filesystem" : p->fstype),
        autoboot_not_fat_fix(disk, *p, n)));
  }
  if (mbr && n > 4)
    out.push_back(autoboot_finding(Severity::Error, "autoboot-partition-range",
                                   fmt::format("boot_partition={} on an MBR disk: the MBR partitions are 1 to 4", n),
                                   "move the boot files to a primary partition (1-4)"));
}

/// autoboot-tryboot-partition: whether [tryboot]'s partition would boot (a
/// trial boot falls back to partition `n`); nullopt without one.
std::optional<Finding> autoboot_tryboot(const Autoboot& a, const Disk& disk, PiBoard board, int n) {
  if (!a.tryboot_partition || *a.tryboot_partition <= 0) return std::nullopt;
  const int m = *a.tryboot_partition;
  const Partition* t = autoboot_partition(disk, m);
  std::string why;
  if (!t) {
    why = "is not on " + disk.path;
  } else if (t->fstype != "vfat") {
    why = "is " + (t->fstype.empty() ? std::string("not formatted") : t->fstype) + ", not FAT";
  } else {
    const FatDir tv = autoboot_view(*t);
    why = autoboot_unbootable(tv.dir(), board);
  }
  return autoboot_finding(
      Severity::Info, "autoboot-tryboot-partition",
      why.empty()
          ? fmt::format("[tryboot] partition {} ({}) is bootable; it boots only after reboot \"0 tryboot\"", m, t->path)
          : fmt::format("[tryboot] partition {} {}: a trial boot (reboot \"0 tryboot\") fails and the next "
                        "reset boots partition {} again",
                        m, why, n));
}

/// autoboot-gpt-tryboot: a GPT disk with a [tryboot] partition (a CM5 issue).
Finding autoboot_gpt_tryboot() {
  return autoboot_finding(Severity::Info, "autoboot-gpt-tryboot",
                          "GPT disk with a [tryboot] partition: on a CM5, reboot \"0 tryboot\" has been reported to "
                          "loop through the boot modes (rpi-eeprom issue 818, open)",
                          "test reboot \"0 tryboot\" on this board before relying on it",
                          "https://github.com/raspberrypi/rpi-eeprom/issues/818");
}

/// autoboot-ramdisk (`img`: boot.img is there, its insides are not checked) or
/// autoboot-partition-not-bootable (boot_ramdisk=1 without boot.img).
Finding autoboot_ramdisk_finding(bool img, int n, const Partition& p) {
  // rpi-image-gen's A/B slots: config.txt holds boot_ramdisk=1; kernel, cmdline and config are inside boot.img.
  return autoboot_finding(
      img ? Severity::Info : Severity::Error, img ? "autoboot-ramdisk" : "autoboot-partition-not-bootable",
      img ? fmt::format("partition {} ({}) boots boot.img (boot_ramdisk=1): the kernel, cmdline and config.txt are "
                        "inside boot.img and were not checked",
                        n, p.path)
          : fmt::format("partition {} ({}) sets boot_ramdisk=1 but has no boot.img", n, p.path),
      img ? "" : "copy boot.img to " + p.path + " or remove boot_ramdisk=1",
      "Raspberry Pi documentation, config_txt: boot_ramdisk");
}

/// boot check of partition `p` (seen at `dir`): its findings name `p` instead of
/// `dir` and follow `head`; the report carries `state`.
CheckReport autoboot_follow(const CheckOptions& o, const std::string& device, const Partition& p, const fs::path& dir,
                            Findings head, const AutobootState& state) {
  CheckOptions inner = o;
  inner.boot_dir = dir;
  inner.device = device;
  CheckReport nested = check_boot(inner);
  for (auto& f : nested.findings) {
    autoboot_replace_all(f.message, dir.string(), p.path);
    autoboot_replace_all(f.fix, dir.string(), "the mount point of " + p.path);
    f.message = p.path + ": " + f.message;
  }
  head.insert(head.end(), nested.findings.begin(), nested.findings.end());
  nested.findings = std::move(head);
  nested.autoboot = state;
  return nested;
}

}  // namespace

Findings detail::autoboot_partition_findings(const CheckOptions& o, int n, int line) {
  std::optional<Disk> disk = o.disk;
  if (!disk && o.device) {
    try {
      disk = probe_disk(*o.device);
    } catch (const Error&) {
      return {};  // --device itself is judged by the root= rules
    }
  }
  if (!disk) return {};
  const Partition* p = autoboot_partition(*disk, n);
  Findings out;
  autoboot_partition_rules(out, *disk, p, n);
  for (auto& f : out) {
    f.key = "boot_partition";
    f.line = line;  // autoboot.txt's line
  }
  return out;
}

CheckReport check_autoboot(const CheckOptions& o) {
  const Autoboot a = read_autoboot(o.boot_dir).value_or(Autoboot{});
  const PiBoard board = o.board.value_or(default_board());
  std::optional<std::string> device = o.device;
  if (!device && a.partition && *a.partition > 0) device = autoboot_own_disk(o.boot_dir);
  CheckReport r = autoboot_report(a, board, device);
  Findings head = autoboot_lint(a, true);
  if (!a.partition || *a.partition == 0) return autoboot_done(std::move(r), std::move(head), {});
  const int n = *a.partition;
  auto info = [&](const std::string& msg) {
    head.push_back(autoboot_finding(Severity::Info, "autoboot-partition", msg));
  };
  if (!device) {
    info("autoboot.txt sends the bootloader to " + autoboot_summary(a));
    head.push_back(autoboot_finding(
        Severity::Info, "autoboot-not-followed",
        fmt::format("the boot files are on partition {}, not in {}: not checked", n, o.boot_dir.string()),
        fmt::format("pass --device DEV (the whole disk) to check partition {}'s boot files, "
                    "or run boot check on partition {}'s mount point",
                    n, n)));
    return autoboot_done(std::move(r), std::move(head), {});
  }
  if (!o.device) r.layout.evidence.push_back(o.boot_dir.string() + " is a vfat mount point on " + *device);
  const Disk disk = probe_disk(*device);
  const Partition* p = autoboot_partition(disk, n);
  const bool mbr = partition_is_mbr(p);
  autoboot_partition_rules(head, disk, p, n);
  Findings tail;  // after the partition's own findings
  if (auto tryboot = autoboot_tryboot(a, disk, board, n)) {
    tail.push_back(*tryboot);
    if (!mbr && p && !p->partuuid.empty()) tail.push_back(autoboot_gpt_tryboot());
  }
  if (!p || p->fstype != "vfat") return autoboot_done(std::move(r), std::move(head), tail);
  const FatDir view = autoboot_view(*p);
  if (const std::string why = autoboot_unbootable(view.dir(), board); !why.empty()) {
    head.push_back(autoboot_finding(Severity::Error, "autoboot-partition-not-bootable",
                                    fmt::format("partition {} ({}) named by autoboot.txt {}", n, p->path, why),
                                    "copy the boot files to " + p->path + ", or fix boot_partition="));
    return autoboot_done(std::move(r), std::move(head), tail);
  }
  if (auto ramdisk = autoboot_ramdisk(view.dir(), board); !ramdisk.empty()) {
    const bool img = ramdisk == "boot.img";
    head.push_back(autoboot_ramdisk_finding(img, n, *p));
    if (img) r.autoboot->followed = p->path;
    return autoboot_done(std::move(r), std::move(head), tail);
  }
  info(fmt::format("autoboot.txt sends the bootloader to {}: {} ({}{}){}", autoboot_summary(a), p->path, p->fstype,
                   p->label.empty() ? "" : ", LABEL=" + p->label,
                   o.device ? "" : "; the disk of " + o.boot_dir.string() + "'s mount"));
  head.insert(head.end(), tail.begin(), tail.end());
  r.autoboot->followed = p->path;
  return autoboot_follow(o, *device, *p, view.dir(), std::move(head), *r.autoboot);
}

}  // namespace piprov::boot
