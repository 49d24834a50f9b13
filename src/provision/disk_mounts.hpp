#pragma once
// What provision's steps do with one disk's partitions: find system-boot and
// writable (libblkid through core/blockdev), name them, flush a mounted file
// system, and undo the mounts on every exit path. Each call works on its own
// disk, so the disks' steps can run on their own threads.
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "core/blockdev.hpp"

namespace piprov::provision {

/// A written disk as probed once (core probe_disk()), and the image's two partitions on it.
struct DiskPartitions {
  Disk disk;
  Partition boot;  ///< the first FAT partition (or LABEL=system-boot)
  Partition root;  ///< the root file system (LABEL=writable, or the first ext2/3/4)
};

/// The image's two partitions of `device` (a whole disk): by label first
/// (Ubuntu's `system-boot` and `writable`), else the first FAT and the first
/// ext2/3/4, with the probe they were read from. Retries for 30 s while
/// udev/blkid catch up, then throws Error{Usage} "cannot find the ...
/// partition on DEV (found: ...)"; Error{Interrupted} after SIGINT/SIGTERM
/// while it waits.
DiskPartitions find_partitions(const std::string& device);

/// "/dev/sdb1 (vfat, LABEL=system-boot, 256 MiB)".
std::string describe_partition(const Partition& p);

/// syncfs(2) of the file system mounted at `dir`. Throws Error{Io} (errno).
void sync_fs(const std::filesystem::path& dir);

/// Mounts provision made (mount points, in order) in the private temp dir
/// `dir`: unmount_all() (also from the destructor) unmounts them in reverse
/// order, then removes `dir` when nothing below it is still mounted.
struct MountGuard {
  std::vector<std::string> mounted;
  std::filesystem::path dir;
  std::vector<std::string> problems;  ///< unmounts that failed ("... (still mounted at DIR)")
  MountGuard() = default;
  MountGuard(const MountGuard&) = delete;
  MountGuard& operator=(const MountGuard&) = delete;
  /// Never throws Error: a failed unmount goes to `problems`.
  void unmount_all();
  ~MountGuard();
};

}  // namespace piprov::provision
