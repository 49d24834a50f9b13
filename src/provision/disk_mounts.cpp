#include "provision/disk_mounts.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <chrono>
#include <thread>

#include "core/cancel.hpp"
#include "core/error.hpp"
#include "core/fd.hpp"
#include "core/mounts.hpp"
#include "core/strings.hpp"
#include "core/units.hpp"

namespace fs = std::filesystem;

namespace piprov::provision {

DiskPartitions find_partitions(const std::string& device) {
  for (int attempt = 0;; ++attempt) {
    Disk d = probe_disk(device);
    const Partition *boot = nullptr, *root = nullptr;
    for (const auto& p : d.partitions) {
      if (!boot && to_lower(p.label) == "system-boot") boot = &p;
      if (!root && to_lower(p.label) == "writable") root = &p;
    }
    for (const auto& p : d.partitions) {
      if (!boot && p.fstype == "vfat") boot = &p;
      if (!root && (p.fstype == "ext4" || p.fstype == "ext3" || p.fstype == "ext2")) root = &p;
    }
    if (boot && root) return {d, *boot, *root};
    if (attempt >= 300) {  // 30 s: a loaded machine probes slowly
      std::string seen;
      for (const auto& p : d.partitions)
        seen += (seen.empty() ? "" : ", ") + p.path + " (" + (p.fstype.empty() ? "?" : p.fstype) +
                (p.label.empty() ? "" : " LABEL=" + p.label) + ")";
      throw Error(ErrorKind::Usage, "cannot find the " + std::string(boot ? "" : "system-boot (FAT) ") +
                                        (root ? "" : "writable (ext4) ") + "partition on " + device +
                                        " (found: " + (seen.empty() ? "no partitions" : seen) +
                                        "); is IMAGE an Ubuntu Raspberry Pi image?");
    }
    throw_if_cancelled(("while waiting for the partitions of " + device).c_str());
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

std::string describe_partition(const Partition& p) {
  return p.path + " (" + p.fstype + (p.label.empty() ? "" : ", LABEL=" + p.label) + ", " + format_bytes(p.size_bytes) +
         ")";
}

void sync_fs(const fs::path& dir) {
  UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd) throw io_error("cannot open " + dir.string(), errno);
  int rc = ::syncfs(fd.get());
  int err = errno;
  if (rc != 0) throw io_error("syncfs " + dir.string(), err);
}

void MountGuard::unmount_all() {
  while (!mounted.empty()) {
    try {
      unmount_filesystem(mounted.back());
      std::error_code ec;
      fs::remove(mounted.back(), ec);
    } catch (const Error& e) {
      problems.push_back(std::string(e.what()) + " (still mounted at " + mounted.back() + ")");
    }
    mounted.pop_back();
  }
  if (dir.empty() || !problems.empty()) return;
  // remove_all only when no child is still a mount point (different st_dev): never delete into a mounted fs.
  struct stat top {};
  if (::stat(dir.c_str(), &top) != 0) return;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    struct stat sb {};
    if (::lstat(e.path().c_str(), &sb) != 0 || sb.st_dev != top.st_dev) return;
  }
  fs::remove_all(dir, ec);
}

MountGuard::~MountGuard() {
  try {
    unmount_all();
  } catch (...) {
  }
}

}  // namespace piprov::provision
