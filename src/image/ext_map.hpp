#pragma once
// Free blocks of an ext2/3/4 file system, learnt with libext2fs (e2fsprogs)
// from the bytes a Capture serves (read at once through the image reader,
// or captured from the image stream as it passes: scan.hpp): its superblock
// and group descriptors open the file system (ext2fs_open2, checksums
// verified), its block bitmaps say which
// blocks are in use (ext2fs_read_block_bitmap, which also marks the metadata
// of groups flagged BLOCK_UNINIT). Layout: "ext4 Data Structures and
// Algorithms", docs.kernel.org/filesystems/ext4 (Block Groups, Flexible
// Block Groups, Lazy Block Group Initialization).
//
// libext2fs reads through an io_manager that serves the blocks captured.
// From a stream, a group whose bitmap has not streamed by yet reads as all
// used, so the map is conservative at every moment: with flex_bg the
// bitmaps of 16 groups sit at the start of the first, without it each
// group's bitmap at its own start, so in both layouts a group is known
// before its blocks pass.
#include <cstdint>
#include <memory>

#include "image/scan.hpp"

namespace piprov::image {

/// Most bytes of block bitmaps (one block per group) a scan keeps; a larger
/// file system is written in full.
inline constexpr std::uint64_t kMaxExtBitmapBytes = 16u << 20;

/// FsScan::failure() of a file system that e2fsck must see first (its
/// superblock's s_state has EXT2_ERROR_FS, or its journal needs recovery):
/// `piprov backup` and `clone` refuse it unless --force.
inline constexpr const char* kExtHasErrors = "it is marked as having errors";
inline constexpr const char* kExtNeedsRecovery = "its journal needs recovery";

/// An ext2/3/4 file system at `offset` (`size` bytes) of the image: asks
/// `cap` for its superblock, then its group descriptors, then its block
/// bitmaps. Written in full (failure() set) when the superblock or the
/// descriptors do not verify, the journal needs recovery, the file system
/// has errors or uses bigalloc, or is larger than its partition.
std::unique_ptr<FsScan> make_ext_scan(Capture& cap, std::uint64_t offset, std::uint64_t size);

}  // namespace piprov::image
