#pragma once
// `piprov clone` of a live SOURCE (issue 28; docs/keep.md "A live SOURCE"):
// the Pi runs from the disk being copied, so its mounted file systems change
// while they are read and a block copy of them is no consistent state. As
// rpi-clone does (billw2/rpi-clone): the partition table is copied (sfdisk -d
// | sfdisk), the TARGET given a new disk identifier at once, the last
// partition grown; each MOUNTED ext2/3/4 or FAT file system is made anew on
// the TARGET with the same label, UUID and features (mke2fs -O none,<its
// features> -U -L; mkfs.vfat -F -i -n) and filled from its mount point with
// rsync (-aHAXx --numeric-ids; FAT: -rtx), which copies each file as it is at
// that moment (consistent per file, nothing frozen); a partition that is not
// mounted is copied block for block (dd). Then PARTUUID= rewritten and boot
// check (clone_target.hpp). Internal to src/keep. Tools: util-linux,
// e2fsprogs, dosfstools, rsync.
#include <string>

#include "core/blockdev.hpp"
#include "keep/clone_target.hpp"

namespace piprov::keep {

/// Refuses (Error{Usage}, before anything is written) a live SOURCE `d` that
/// clone cannot copy file by file: a mounted partition that is not ext2/3/4
/// or FAT (swap, another file system), or rsync missing.
void check_live_source(const Disk& d);

/// Copies the live SOURCE `d` onto `t.target` (see above) and runs the
/// PARTUUID= rewrite and boot check; fills t.grown, identity, copied and
/// the check. Throws Error (the tool's command and stderr, Error{Interrupted}
/// between partitions) with what the TARGET holds at that point.
void clone_live_target(const CloneLayout& l, const Disk& d, CloneTarget& t);

}  // namespace piprov::keep
