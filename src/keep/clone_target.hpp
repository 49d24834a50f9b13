#pragma once
// The steps of `piprov clone` on one TARGET after the write (clone.hpp),
// in order: a GPT's backup header moved to the TARGET's end (sfdisk
// --relocate gpt-bak-std); the last partition grown to fill the TARGET
// (sfdisk -N N with ",+") and its ext2/3/4 grown with it (e2fsck -fy, then
// resize2fs); a new disk identifier (image::renew_disk_identity()); the boot
// and root file systems mounted, `PARTUUID=` rewritten in the cmdline files
// and /etc/fstab (provision::rewrite_partuuid_references()), `boot check`
// where the boot partition holds config.txt or autoboot.txt, syncfs,
// unmount. Internal to src/keep. Tools: util-linux (sfdisk), e2fsprogs.
#include <cstdint>
#include <string>

#include "keep/clone.hpp"
#include "provision/disk_mounts.hpp"

namespace piprov::keep {

/// What the steps need to know of SOURCE's layout (read from its partition table).
struct CloneLayout {
  image::TableScheme table = image::TableScheme::None;  ///< None: copied whole, nothing grown
  std::uint64_t source_bytes = 0;                       ///< SOURCE's size
  std::uint64_t copy_bytes = 0;   ///< bytes copied: the last partition's end (SOURCE's size without a table)
  std::uint64_t need_bytes = 0;   ///< the least a TARGET must hold (a GPT: copy_bytes + its backup header)
  unsigned last_number = 0;       ///< the partition that ends last (0: none, or not known: last_note)
  std::uint64_t last_offset = 0;  ///< its start and size, bytes
  std::uint64_t last_bytes = 0;
  unsigned last_extended = 0;  ///< the MBR extended partition holding it when it is a logical one (0: none)
  std::string last_fs;         ///< its file system as the free-space reader saw it ("ext4", "vfat", "" unknown)
  /// Why the last partition is not known though SOURCE has a table: an MBR's EBR chain was not read to its end
  /// (PartitionTable::logical_note), so a logical partition after it may be missing; nothing is grown. "" otherwise.
  std::string last_note;
};

/// Bytes a GPT's backup entries and header take at the end of a disk (33
/// sectors of 512 bytes: UEFI 2.10 5.3.2, 16 KiB of entries and the header).
inline constexpr std::uint64_t kGptBackupBytes = 33 * 512;

/// e2fsck -fy, then resize2fs of the ext2/3/4 on the partition `part` (to fill it). Throws Error{Io}.
void grow_ext_to_partition(const std::string& part);

/// The last partition of `disk` (`disk_bytes`) grown to its end when it
/// holds ext2/3/4 (l.last_fs) and has room (a logical one: its extended
/// partition grown to the end first, then it to the extended partition's end,
/// sfdisk -N each), with its file system when `resize_fs`
/// (grow_ext_to_partition()). Returns the
/// line saying what was done or why not. Throws Error{Io} (sfdisk, e2fsck,
/// resize2fs with their stderr).
std::string grow_last_partition(const CloneLayout& l, const std::string& disk, std::uint64_t disk_bytes,
                                bool resize_fs);

/// The TARGET's boot (FAT) and root (ext2/3/4) file systems mounted in a
/// private temp dir (the boot one through mtools where the kernel has no
/// vfat), PARTUUID= rewritten from t.identity, boot check where the boot
/// partition holds config.txt or autoboot.txt, synced and unmounted. Fills
/// t.rewritten, partuuid_references, check, checked, check_line. Throws Error.
void rewrite_and_check(CloneTarget& t);

/// Runs the steps on `t.target` (written and verified: t.write.ok), filling
/// `t`'s grown, identity, rewritten, check and check_line. Throws Error (the
/// tool's command and stderr, Error{Interrupted} between steps) with what the
/// disk holds at that point; every mount it made is undone first.
void finish_clone_target(const CloneLayout& layout, CloneTarget& t);

}  // namespace piprov::keep
