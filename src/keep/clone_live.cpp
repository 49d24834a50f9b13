// `piprov clone` of a live SOURCE (clone_live.hpp).
#include "keep/clone_live.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <filesystem>
#include <regex>
#include <sstream>
#include <vector>

#include "core/cancel.hpp"
#include "core/error.hpp"
#include "core/file.hpp"
#include "core/mounts.hpp"
#include "core/process.hpp"
#include "core/strings.hpp"
#include "core/units.hpp"
#include "core/write_guard.hpp"
#include "image/disk_identity.hpp"
#include "image/partitions.hpp"
#include "provision/disk_mounts.hpp"

namespace piprov::keep {

namespace fs = std::filesystem;

namespace {

bool live_is_ext(const std::string& t) { return t == "ext4" || t == "ext3" || t == "ext2"; }

/// `sfdisk -d SOURCE` without what names SOURCE's device and size (a GPT's
/// first-lba/last-lba: the TARGET gets its own), as input for sfdisk.
std::string live_table_script(const std::string& source) {
  const std::string dump = run_program_or_throw({"sfdisk", "-d", source}).out;
  std::istringstream in(dump);
  std::string line, out;
  while (std::getline(in, line)) {
    if (line.rfind("device:", 0) == 0 || line.rfind("first-lba:", 0) == 0 || line.rfind("last-lba:", 0) == 0) continue;
    out += line + "\n";
  }
  return out;
}

std::string live_field(const std::string& text, const std::string& field) {
  std::smatch m;
  if (!std::regex_search(text, m, std::regex("\n" + field + ":[ \t]*([^\n]*)")))
    throw Error(ErrorKind::Io, "dumpe2fs -h did not print " + field);
  return std::string(trim(m[1].str()));
}

/// A new ext2/3/4 on `to` with `from`'s label, UUID, block size, inode size and features (mke2fs -O none,...).
void live_make_ext(const Partition& from, const std::string& to) {
  const std::string h = "\n" + run_program_or_throw({"dumpe2fs", "-h", from.path}).out;
  std::vector<std::string> features;
  for (const auto& f : split(live_field(h, "Filesystem features"), ' '))
    if (!f.empty() && f != "needs_recovery") features.push_back(f);
  run_program_or_throw({"mke2fs", "-F", "-q", "-t", from.fstype, "-b", live_field(h, "Block size"), "-I",
                        live_field(h, "Inode size"), "-O", "none," + join(features, ","), "-L", from.label, "-U",
                        from.uuid, to});
}

/// A new FAT on `to` with `from`'s FAT size (12, 16, 32), volume ID and label.
void live_make_fat(const Partition& from, const std::string& to) {
  const std::string version = run_program_or_throw({"blkid", "-p", "-o", "value", "-s", "VERSION", from.path}).out;
  const std::string bits = version.find("32") != std::string::npos   ? "32"
                           : version.find("12") != std::string::npos ? "12"
                                                                     : "16";
  std::string id = from.uuid;
  id.erase(std::remove(id.begin(), id.end(), '-'), id.end());
  std::vector<std::string> argv = {"mkfs.vfat", "-F", bits, "-i", id};
  if (!from.label.empty()) argv.insert(argv.end(), {"-n", from.label});
  argv.push_back(to);
  run_program_or_throw(argv);
}

/// The new file system on `to` filled from `from`'s mount point with rsync (a
/// file that vanishes while it is copied, rsync's exit 24, is not an error:
/// the file system is live).
void live_copy_files(const Partition& from, const std::string& to) {
  provision::MountGuard guard;
  guard.dir = make_temp_dir("clone-live");
  const fs::path dir = guard.dir / "to";
  fs::create_directory(dir);
  mount_filesystem(to, dir.string(), from.fstype);
  guard.mounted.push_back(dir.string());
  const bool fat = from.fstype == "vfat";
  std::vector<std::string> argv = {"rsync", fat ? "-rtx" : "-aHAXx", "--numeric-ids", "--delete"};
  if (fat) argv.emplace_back("--modify-window=2");  // FAT keeps times in 2-second steps
  argv.push_back(from.mountpoints.front() + "/");
  argv.push_back(dir.string() + "/");
  run_program_or_throw(argv, {24});
  provision::sync_fs(dir);
  guard.unmount_all();
  if (!guard.problems.empty()) throw Error(ErrorKind::Io, guard.problems.front());
}

}  // namespace

void check_live_source(const Disk& d) {
  for (const auto& p : d.partitions) {
    if (p.mountpoints.empty() || live_is_ext(p.fstype) || p.fstype == "vfat") continue;
    throw Error(
        ErrorKind::Usage,
        fmt::format("{} is mounted on {} and holds {}: piprov clone copies a mounted ext2/3/4 or FAT file "
                    "system file by file, nothing else; unmount it (nothing was written)",
                    p.path, join(p.mountpoints, ", "), p.fstype.empty() ? "no file system blkid knows" : p.fstype));
  }
  if (run_program({"rsync", "--version"}).exit_code != 0)
    throw Error(ErrorKind::Usage,
                d.path +
                    " is mounted: a live clone copies its file systems with rsync, which is not installed "
                    "(apt-get install rsync; nothing was written)");
}

void clone_live_target(const CloneLayout& l, const Disk& d, CloneTarget& t) {
  std::string state = t.target + " holds a copy of the SOURCE's partition table only";
  try {
    run_program_or_throw({"sfdisk", "--no-reread", "--no-tell-kernel", "-q", t.target}, {}, live_table_script(d.path));
    image::reread_partitions(t.target);
    // A new disk identifier at once: an interrupted copy never carries the SOURCE's PARTUUIDs.
    t.identity = image::renew_disk_identity(t.target);
    state = t.target + " has a new partition table (" + t.identity.new_id + "), its file systems not all copied";
    t.grown = grow_last_partition(l, t.target, probe_disk(t.target).size_bytes, false);
    const bool grown = t.grown.find(" grown from ") != std::string::npos;
    for (const auto& p : d.partitions) {
      throw_if_cancelled(("before partition " + std::to_string(p.number)).c_str());
      const std::string to = image::partition_path(t.target, p.number);
      if (p.mountpoints.empty()) {
        run_program_or_throw(
            {"dd", "if=" + p.path, "of=" + to, "bs=4M", "iflag=direct", "oflag=direct", "conv=fsync", "status=none"});
        std::string line = fmt::format("partition {} ({}): not mounted: copied block for block ({})", p.number,
                                       p.fstype.empty() ? "?" : p.fstype, format_bytes(p.size_bytes));
        if (grown && p.number == static_cast<int>(l.last_number) && live_is_ext(p.fstype)) {
          grow_ext_to_partition(to);
          line += ", then resized to fill the partition (resize2fs)";
        }
        t.copied.push_back(line);
        continue;
      }
      if (live_is_ext(p.fstype))
        live_make_ext(p, to);
      else
        live_make_fat(p, to);
      live_copy_files(p, to);
      t.copied.push_back(fmt::format(
          "partition {} ({} on {}): made anew with its label, UUID and features; files copied with rsync {}", p.number,
          p.fstype, p.mountpoints.front(), p.fstype == "vfat" ? "-rtx" : "-aHAXx"));
    }
    state = t.target + " holds every file system of the SOURCE under a new disk identifier (" + t.identity.new_id +
            ") that its PARTUUID= references may not name yet";
    throw_if_cancelled("before the PARTUUID= rewrite");
    rewrite_and_check(t);
  } catch (const Error& e) {
    throw Error(e.kind(), fmt::format("{}: {}; {}", t.target, e.what(), state));
  }
}

}  // namespace piprov::keep
