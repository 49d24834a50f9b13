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

namespace piprov::keep {

/// What the steps need to know of SOURCE's layout (read from its partition table).
struct CloneLayout {
  std::string table;               ///< "dos", "gpt" or "" (no table: copied whole, nothing grown)
  std::uint64_t source_bytes = 0;  ///< SOURCE's size
  std::uint64_t copy_bytes = 0;    ///< bytes copied: the last partition's end (SOURCE's size without a table)
  std::uint64_t need_bytes = 0;    ///< the least a TARGET must hold (a GPT: copy_bytes + its backup header)
  unsigned last_number = 0;        ///< the partition that ends last (0: none)
  std::uint64_t last_offset = 0;   ///< its start and size, bytes
  std::uint64_t last_bytes = 0;
  std::string last_fs;  ///< its file system as the free-space reader saw it ("ext4", "vfat", "" unknown)
};

/// Bytes a GPT's backup entries and header take at the end of a disk (33
/// sectors of 512 bytes: UEFI 2.10 5.3.2, 16 KiB of entries and the header).
inline constexpr std::uint64_t kGptBackupBytes = 33 * 512;

/// Runs the steps on `t.target` (written and verified: t.write.ok), filling
/// `t`'s grown, identity, rewritten, check and check_line. Throws Error (the
/// tool's command and stderr, Error{Interrupted} between steps) with what the
/// disk holds at that point; every mount it made is undone first.
void finish_clone_target(const CloneLayout& layout, CloneTarget& t);

}  // namespace piprov::keep
