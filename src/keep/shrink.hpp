#pragma once
// `piprov backup --shrink` (issue 28): the last partition's ext2/3/4 shrunk
// to its minimum plus a margin in a raw copy of the disk, never on the disk:
// e2fsck -fy and resize2fs -M on the copy's partition through a loop device
// (losetup -o/--sizelimit), the partition's table entry cut with sfdisk -N
// (a GPT's backup header moved to the new end: sfdisk --relocate
// gpt-bak-std; an MBR logical partition's extended partition cut to end
// with it), the file cut after it. Tools: e2fsprogs, util-linux.
#include <cstdint>
#include <string>

namespace piprov::keep {

/// resize2fs -M's minimum plus this share of it (1/kShrinkMarginDiv: ~3%),
/// rounded up to a MiB: room for the first boot's logs. (resize2fs -M's
/// minimum itself is a few percent above the used blocks.)
inline constexpr std::uint64_t kShrinkMarginDiv = 32;

struct ShrinkResult {
  bool shrunk = false;
  unsigned partition = 0;         ///< 1-based
  std::uint64_t old_bytes = 0;    ///< the partition's size before
  std::uint64_t new_bytes = 0;    ///< and after
  std::uint64_t image_bytes = 0;  ///< the raw copy's size after (0: no partition table, not cut)
  std::string line;               ///< "partition 2 (ext4) shrunk from 28.9 GiB to 3.4 GiB; ..." or why not
  std::string grows_back;         ///< whether and how it grows back on first boot
};

/// Shrinks the last partition of the raw image file `img` in place (see
/// above): the one that ends last on the disk, an MBR logical partition
/// included, never the extended partition that holds them (it holds no file
/// system). The partitions are read with image::read_image_partitions() (the
/// EBR chain for the logical ones). A last partition that is not ext2/3/4 or
/// already minimal is left as it is (shrunk = false, line says why, naming
/// it); the file is cut after the last partition (and a GPT's backup header)
/// either way, so image_bytes < the file's size before whenever its end was in
/// no partition. A last partition that is not known (an EBR chain not read to
/// its end: image::last_data_partition()) leaves the file as it is. Throws Error{Io} when a tool fails
/// (its command and stderr), Error{Usage} when a tool is missing.
ShrinkResult shrink_last_partition(const std::string& img);

}  // namespace piprov::keep
