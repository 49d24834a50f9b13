#pragma once
// The space of a disk outside every partition, as `piprov backup` reads it
// (docs/keep.md "Backups"; the layouts: the MBR partition table, Wikipedia
// "Master boot record"; UEFI 2.10 section 5.3 "GUID Partition Table (GPT)
// Disk Layout"). What a partition table or a boot loader keeps outside the
// partitions is read in full: everything before the first partition (the
// MBR or GPT header and entries, a boot loader between them and the first
// partition), and a GPT's backup entries and header at the end (from the
// header's last usable LBA + 1 to its alternate LBA). The rest (gaps between
// partitions, the unpartitioned end of a disk, e.g. a card written with an
// image whose root file system has not grown yet) is not read: zeros in the
// backup. An MBR's logical partitions lie inside the extended partition,
// which is read in full as a partition, so their EBRs are read too.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "image/partition_table.hpp"
#include "image/scan.hpp"
#include "image/skip_filter.hpp"

namespace piprov::keep {

/// OutsideRegion::why of an unread region that `backup --shrink` cut from the image (it went past the
/// image's new end), in its line, the summary's first line and --json.
inline constexpr const char* kCutByShrink = "cut from the image by --shrink";

/// One stretch of the disk outside every partition.
struct OutsideRegion {
  std::uint64_t offset = 0;  ///< bytes from the start of the disk
  std::uint64_t size = 0;    ///< bytes
  std::string where;         ///< "before partition 1", "between partitions 1 and 2", "after partition 2", ...
  bool read = false;         ///< read in full (true) or not read, zeros in the backup (false)
  std::string why;  ///< why it is read ("the partition table and boot loader area"); not read: "" (zeros in the
                    ///< backup) or where it went instead ("cut from the image by --shrink")
};

/// The regions of a disk of `disk_bytes` outside the partitions of `table`
/// (bounded_table() applied; a table with no partitions, or one it refuses,
/// gives none: the whole disk is read). For a GPT, the primary header's last
/// usable LBA and alternate LBA (`table.gpt`) place the backup entries and
/// header; a header that does not place them after the last partition, or
/// none, leaves the whole end read, saying why.
std::vector<OutsideRegion> outside_partitions(const image::PartitionTable& table, std::uint64_t disk_bytes);

/// The skipped ranges of `filter` (free space) and the regions not read,
/// merged into one map (sorted, non-overlapping) for image::ReaderFeed.
void merge_skip_map(const image::WriteMap& filter, const std::vector<OutsideRegion>& regions, image::WriteMap& out);

/// Bytes of the regions not read.
std::uint64_t unpartitioned_skipped_bytes(const std::vector<OutsideRegion>& regions);

/// "unpartitioned: 7.5 GiB after partition 2 (from 513.0 MiB to 8.0 GiB): not copied (zeros in the image)",
/// "outside the partitions: 4.0 MiB before partition 1 (from 0 B to 4.0 MiB): the partition table and boot
/// loader area: read in full" (a region under a MiB by its size alone: "16.5 KiB at the end of the disk").
std::string outside_region_line(const OutsideRegion& r);

/// [{"where", "offset", "size", "read", "why"}] (bytes).
nlohmann::json outside_regions_json(const std::vector<OutsideRegion>& regions);

}  // namespace piprov::keep
