#pragma once
// After writing a whole disk: make the kernel read the new partition table
// and wait until the partition device nodes exist, so `provision` can mount
// /dev/loopNp1 or /dev/sdb1 right away. Loop devices attached without
// --partscan get LO_FLAGS_PARTSCAN set (LOOP_SET_STATUS64), which rescans.
// Sources: BLKRRPART (linux/fs.h), loop(4) LO_FLAGS_PARTSCAN.
#include <chrono>
#include <string>
#include <vector>

namespace piprov::image {

/// Partition node of partition `number` of disk `disk_path`:
/// "/dev/sdb" + 1 -> "/dev/sdb1"; "/dev/loop3" + 1 -> "/dev/loop3p1" (a
/// name ending in a digit takes a "p"). A symlink (a udev link such as
/// /dev/disk/by-id/virtio-X) is resolved first: its partitions are named
/// after the disk it points at (/dev/vdc1), not after the link.
std::string partition_path(const std::string& disk_path, int number);

/// Issues BLKRRPART (retrying EBUSY for a moment), then waits up to `timeout`
/// for the node of every partition libblkid finds in the table. Returns the
/// nodes that exist (sorted by number). Partitions the kernel did not find
/// itself (no parser for the table type in this kernel) are added with BLKPG
/// from libblkid's reading, as partx -a does. Throws Error{Io} when the disk cannot
/// be opened; a table the kernel will not re-read is logged (warn), not thrown:
/// the data is written either way.
std::vector<std::string> reread_partitions(const std::string& disk_path,
                                           std::chrono::milliseconds timeout = std::chrono::seconds(10));

}  // namespace piprov::image
