// The steps of clone on one TARGET after the write (clone_target.hpp).
#include "keep/clone_target.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>
#include <zlib.h>
#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>

#include "boot/check.hpp"
#include "boot/fat_tools.hpp"
#include "core/atomic_file.hpp"
#include "core/blockdev.hpp"
#include "core/board.hpp"
#include "core/cancel.hpp"
#include "core/error.hpp"
#include "core/fd.hpp"
#include "core/file.hpp"
#include "core/mounts.hpp"
#include "core/process.hpp"
#include "core/strings.hpp"
#include "core/units.hpp"
#include "core/write_guard.hpp"
#include "image/disk_identity.hpp"
#include "image/partitions.hpp"
#include "keep/gpt_fit.hpp"
#include "provision/cloud_init.hpp"
#include "provision/disk_mounts.hpp"
#include "provision/first_boot.hpp"
#include "provision/provision.hpp"

namespace piprov::keep {

namespace fs = std::filesystem;

namespace {

constexpr std::uint64_t kCloneMiB = 1u << 20;

bool clone_is_ext(const std::string& fs_name) { return fs_name == "ext4" || fs_name == "ext3" || fs_name == "ext2"; }

/// The boot (FAT) and root (ext2/3/4) partitions of `d`: by label first
/// (Ubuntu's system-boot/writable, Raspberry Pi OS's bootfs/rootfs), else the first of each kind.
std::pair<const Partition*, const Partition*> clone_boot_root(const Disk& d) {
  const Partition *boot = nullptr, *root = nullptr;
  for (const auto& p : d.partitions) {
    const std::string label = to_lower(p.label);
    if (!boot && p.fstype == "vfat" && (label == "system-boot" || label == "bootfs")) boot = &p;
    if (!root && clone_is_ext(p.fstype) && (label == "writable" || label == "rootfs")) root = &p;
  }
  for (const auto& p : d.partitions) {
    if (!boot && p.fstype == "vfat") boot = &p;
    if (!root && clone_is_ext(p.fstype)) root = &p;
  }
  return {boot, root};
}

/// --new-identity on the mounted TARGET: the cloud-init seed on the boot
/// partition (a new instance-id: cloud-init runs its per-instance modules
/// again, new SSH host keys among them: cloud-init docs, module ssh,
/// ssh_deletekeys) and /etc/machine-id emptied (machine-id(5): an empty file
/// is filled with a new ID at boot; /var/lib/dbus/machine-id, when a file of
/// its own, removed).
void give_new_identity(CloneTarget& t, const fs::path& boot_dir, const fs::path& root_dir) {
  if (std::string why = provision::cloud_init_missing(root_dir); !why.empty())
    throw Error(ErrorKind::Usage, why +
                                      "; --new-identity needs cloud-init on the node (Ubuntu, Raspberry Pi OS "
                                      "trixie): the clone is written, as the same node as SOURCE");
  t.seed_files = provision::write_seed(*t.seed, boot_dir);
  if (!t.seed->wifi_country.empty()) provision::set_wifi_regdom(boot_dir, t.seed->wifi_country);
  std::error_code ec;
  if (fs::exists(root_dir / "etc/machine-id", ec)) atomic_write(root_dir / "etc/machine-id", "");
  const fs::path dbus = root_dir / "var/lib/dbus/machine-id";
  if (!fs::is_symlink(dbus, ec) && fs::is_regular_file(dbus, ec)) fs::remove(dbus, ec);
  t.identity_line = fmt::format(
      "new identity: cloud-init seed ({}) for {}instance-id {}; /etc/machine-id emptied "
      "(a new one at the next boot)",
      join(t.seed_files, ", "), t.seed->hostname.empty() ? "" : t.seed->hostname + ", ", t.seed->instance_id);
}

}  // namespace

void grow_ext_to_partition(const std::string& part) {
  run_program_or_throw({"e2fsck", "-fy", part}, {1});  // 1: errors corrected
  run_program_or_throw({"resize2fs", part});
}

std::string grow_last_partition(const CloneLayout& l, const std::string& disk, std::uint64_t disk_bytes,
                                bool resize_fs) {
  if (l.last_number == 0)
    return l.last_note.empty() ? "no partition table: nothing grown"
                               : "nothing grown: the last partition is not known (" + l.last_note + ")";
  const std::uint64_t room = disk_bytes - l.need_bytes;
  if (room < kCloneMiB) return fmt::format("partition {} not grown: {} has no room after it", l.last_number, disk);
  if (!clone_is_ext(l.last_fs))
    return fmt::format("partition {} not grown: it holds {}, and piprov grows ext2/3/4 only", l.last_number,
                       l.last_fs.empty() ? "no file system piprov reads" : l.last_fs);
  throw_if_cancelled("before growing the last partition");
  // A logical partition ends inside its extended partition (the MBR's entry): that grows to the disk's end
  // first, then the logical one (its EBR's entry) to the extended partition's end. Both keep their starts.
  if (l.last_extended != 0)
    run_program_or_throw(
        {"sfdisk", "--no-reread", "--no-tell-kernel", "-q", "-N", std::to_string(l.last_extended), disk}, {}, ",+\n");
  run_program_or_throw({"sfdisk", "--no-reread", "--no-tell-kernel", "-q", "-N", std::to_string(l.last_number), disk},
                       {}, ",+\n");
  image::reread_partitions(disk);
  if (resize_fs) grow_ext_to_partition(image::partition_path(disk, static_cast<int>(l.last_number)));
  const Disk d = probe_disk(disk);
  std::uint64_t now = 0;
  for (const auto& p : d.partitions)
    if (p.number == static_cast<int>(l.last_number)) now = p.size_bytes;
  return fmt::format(
      "partition {}{} grown from {} to {}, its {} {}", l.last_number,
      l.last_extended != 0 ? fmt::format(" (logical, with its extended partition {})", l.last_extended) : "",
      format_bytes(l.last_bytes), format_bytes(now), l.last_fs,
      resize_fs ? "resized to fill it (resize2fs)" : "made to fill it");
}

void rewrite_and_check(CloneTarget& t) {
  const Disk disk = probe_disk(t.target);
  const auto [boot_part, root_part] = clone_boot_root(disk);
  if (!boot_part && !root_part) {
    t.check_line = "boot check: not run (no FAT or ext2/3/4 partition)";
    return;
  }
  provision::MountGuard guard;
  guard.dir = make_temp_dir("clone");
  const fs::path boot_dir = guard.dir / "boot", root_dir = guard.dir / "root";
  fs::create_directory(boot_dir);
  fs::create_directory(root_dir);
  if (root_part) {
    mount_filesystem(root_part->path, root_dir.string(), root_part->fstype);
    guard.mounted.push_back(root_dir.string());
  }
  // The boot partition as provision reaches it (boot::FatDir): mounted, or on a kernel without vfat
  // (some containers and CI hosts) an mtools copy written back below. Closed before `guard` unmounts.
  std::optional<boot::FatDir> fat;
  if (boot_part) {
    boot::FatDirOptions fo;
    fo.writable = true;
    fo.dir = boot_dir;
    fat.emplace(boot_part->path, fo);
  }
  const provision::SeedOutcome so = provision::rewrite_partuuid_references(boot_dir, root_dir, t.identity);
  t.rewritten = so.rewritten;
  t.partuuid_references = so.partuuid_references;
  if (t.seed) {
    if (!root_part) throw Error(ErrorKind::Usage, "--new-identity: no ext2/3/4 root file system on " + t.target);
    give_new_identity(t, boot_dir, root_dir);
  }
  if (fs::exists(boot_dir / "config.txt") || fs::exists(boot_dir / "autoboot.txt")) {
    boot::CheckOptions co;
    co.boot_dir = boot_dir;
    if (root_part) co.root_dir = root_dir;
    co.scan_usb = false;  // the host's USB devices say nothing about the Pi's
    co.board = t.board;   // what that Pi's firmware loads (kernel_2712.img on a Pi 5)
    co.disk = disk;       // root= must name a partition of the TARGET, after its new disk identifier
    co.disk_partuuids = co.disk_labels = true;
    // LABEL= and UUID= are copied as they are: the SOURCE, often left in the node (an SD card after a
    // move to an SSD), carries the same ones.
    if (!t.source.empty()) try {
        co.source_disk = probe_disk(t.source);
      } catch (const Error&) {  // a SOURCE that is not a block device (an image file) is never attached to a node
      }
    t.check = boot::check_boot(co);
    // Findings name the TARGET's partitions, not the temp dir removed below.
    provision::name_check_on_partitions(t.check, boot_dir.string(), boot_part ? boot_part->path : "", root_dir.string(),
                                        root_part ? root_part->path : "");
    t.checked = true;
    t.check_line = fmt::format("boot check ({}{}): {}", board_title(t.check.resolved.board),
                               t.board ? "" : ", assumed: no --board", t.check.summary());
  } else {
    t.check_line = boot_part ? "boot check: not run (" + boot_part->path +
                                   " holds no config.txt: not a Raspberry Pi boot "
                                   "partition)"
                             : "boot check: not run (no FAT boot partition)";
  }
  if (fat && fat->copied())
    fat->write_back();
  else if (fat)
    provision::sync_fs(boot_dir);
  if (root_part) provision::sync_fs(root_dir);
  if (fat)
    if (std::string problem = fat->close(); !problem.empty()) guard.problems.push_back(problem);
  guard.unmount_all();
  if (!guard.problems.empty()) throw Error(ErrorKind::Io, guard.problems.front());
}

void finish_clone_target(const CloneLayout& l, CloneTarget& t) {
  std::string state = t.target + " holds a copy of the SOURCE with the SOURCE's disk identifier";
  try {
    const Disk written = probe_disk(t.target);
    if (l.table == image::TableScheme::Gpt) fit_gpt_header(t.target, written.size_bytes);
    CloneLayout grow = l;
    // SOURCE's free-space reader reads the primary entries only: a logical last partition's file system as
    // blkid finds it on the copy.
    for (const auto& p : written.partitions)
      if (grow.last_fs.empty() && p.number == static_cast<int>(l.last_number)) grow.last_fs = p.fstype;
    t.grown = grow_last_partition(grow, t.target, written.size_bytes, true);
    throw_if_cancelled("before the new disk identifier");
    if (l.table != image::TableScheme::None) {
      t.identity = image::renew_disk_identity(t.target);
      state = t.target + " has a new disk identifier (" + t.identity.new_id +
              ") that its PARTUUID= references may not name yet";
      throw_if_cancelled("before the PARTUUID= rewrite");
      rewrite_and_check(t);
    } else {
      t.check_line = "boot check: not run (no partition table)";
    }
  } catch (const Error& e) {
    throw Error(e.kind(), fmt::format("{}: {}; {}", t.target, e.what(), state));
  }
}

}  // namespace piprov::keep
