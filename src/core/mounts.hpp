#pragma once
// The mount table and mount/umount, through libmount (correct with bind
// mounts and escaped paths; util-linux libmount).
#include <sys/types.h>
#include <string>
#include <vector>

namespace piprov {

/// One line of /proc/self/mountinfo. devno is the st_rdev-style device number
/// of the mounted filesystem (0 for virtual filesystems).
struct MountEntry {
  std::string source;  ///< "/dev/sda1", "tmpfs", ...
  std::string target;  ///< mount point, unescaped
  std::string fstype;
  dev_t devno = 0;
};

/// The current mount table. Throws Error{Io} when it cannot be read.
std::vector<MountEntry> mount_table();

/// Mount points of every filesystem whose devno is `devno`.
std::vector<std::string> mountpoints_of(dev_t devno);

/// Device numbers of the active swap areas (/proc/swaps), block devices only.
std::vector<dev_t> active_swap_devices();

/// Mounts `source` (a block device) on `target` with libmount's context
/// (fstype "auto" probes). Throws Error{Io} with libmount's message.
void mount_filesystem(const std::string& source, const std::string& target, const std::string& fstype = "auto",
                      const std::string& options = "");

/// Unmounts `target` (a mount point); EBUSY is retried for up to 5 s (a short-lived child
/// holding an inherited descriptor). Throws Error{Io} with the reason (e.g. EBUSY).
void unmount_filesystem(const std::string& target);

}  // namespace piprov
