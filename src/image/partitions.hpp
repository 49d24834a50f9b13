#pragma once
// After writing a whole disk: make the kernel read the new partition table
// and wait until the partition device nodes exist, so `provision` can mount
// /dev/loopNp1 or /dev/sdb1 right away. Loop devices attached without
// --partscan get LO_FLAGS_PARTSCAN set (LOOP_SET_STATUS64), which rescans.
// Sources: BLKRRPART (linux/fs.h), loop(4) LO_FLAGS_PARTSCAN.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "image/partition_table.hpp"

namespace piprov::image {

/// One entry of a partition table as libblkid reads it from the disk or
/// image file: an MBR's logical partitions (5, 6, ..., from the EBR chain
/// inside the extended partition) included, which parse_partition_table()
/// (partition_table.hpp, the table's first bytes only) does not list.
struct TablePartition {
  unsigned number = 0;       ///< 1-based, as the kernel names it (sdb6)
  std::uint64_t offset = 0;  ///< bytes from the start of the disk
  std::uint64_t size = 0;    ///< bytes
  bool extended = false;     ///< an MBR extended partition: the container of the logical ones, no file system
};

struct TablePartitions {
  TableScheme scheme = TableScheme::None;  ///< None when libblkid finds no table, or one of another scheme
  std::vector<TablePartition> parts;       ///< sorted by number
};

/// The partition table on `path` (a disk or an image file), read with
/// libblkid. Never throws: a path it cannot open or read gives scheme None and
/// no partitions.
TablePartitions read_table_partitions(const std::string& path);

/// The partition of `t` that ends last on the disk and may hold a file
/// system: an MBR's extended partition is a container (its logical
/// partitions are listed themselves), never the last. nullopt: no partitions.
std::optional<TablePartition> last_data_partition(const TablePartitions& t);

/// The MBR extended partition of `t` holding the logical partition `p`;
/// nullopt when `p` is not a logical one.
std::optional<TablePartition> extended_container_of(const TablePartitions& t, const TablePartition& p);

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
