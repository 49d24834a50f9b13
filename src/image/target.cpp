#include "image/target.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <linux/fs.h>
#include <spdlog/spdlog.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "core/mounts.hpp"
#include "core/protected_paths.hpp"
#include "core/units.hpp"

namespace fs = std::filesystem;

namespace piprov::image {
namespace {

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

}  // namespace

std::size_t choose_io_bytes(unsigned max_sectors_kb, unsigned logical_block) {
  const std::size_t cap = 4u << 20;
  std::size_t lbs = logical_block ? logical_block : 512;
  std::size_t io = cap;
  if (max_sectors_kb > 0) {
    std::size_t unit = static_cast<std::size_t>(max_sectors_kb) * 1024;
    io = unit >= cap ? cap : (cap / unit) * unit;
  }
  io = (io / 4096) * 4096;  // keep buffers page-aligned in length too
  if (io < lbs) io = lbs;
  return (io / lbs) * lbs;
}

TargetInfo inspect_target(const std::string& path) {
  TargetInfo t;
  t.path = path;
  std::string parent;
  switch (classify_path(path, &parent)) {
    case TargetKind::Partition:
      throw Error(ErrorKind::Usage, fmt::format("{} is a partition; give the whole disk ({}) instead", path, parent));
    case TargetKind::Other:
      throw Error(
          ErrorKind::Usage,
          fmt::format("{} is neither a whole disk nor a regular file; run 'piprov devices' to list disks", path));
    case TargetKind::Missing: {
      if (path.rfind("/dev/", 0) == 0)
        throw Error(ErrorKind::Usage, path + " does not exist; run 'piprov devices' to list disks");
      fs::path dir = fs::path(path).parent_path();
      if (dir.empty()) dir = ".";
      std::error_code ec;
      if (!fs::is_directory(dir, ec))
        throw Error(ErrorKind::Usage, fmt::format("cannot create {}: directory {} does not exist", path, dir.string()));
      t.is_file = true;
      break;
    }
    case TargetKind::RegularFile: {
      t.is_file = true;
      t.size = fs::file_size(path);
      t.exists = true;
      break;
    }
    case TargetKind::WholeDisk: {
      t.disk = probe_disk(path);
      if (t.disk.system_disk)
        throw Error(ErrorKind::Usage, fmt::format("{} is a system disk ({}): piprov never writes it", path,
                                                  join(t.disk.system_reasons, "; ")));
      if (t.disk.read_only)
        throw Error(ErrorKind::Usage, fmt::format("{} is read-only: check the write-protect switch "
                                                  "(SD adapters) or the device's ro flag",
                                                  path));
      t.size = t.capacity = t.disk.size_bytes;
      t.logical_block = t.disk.logical_block_size ? t.disk.logical_block_size : 512;
      t.io_bytes = choose_io_bytes(t.disk.max_sectors_kb, t.logical_block);
      return t;
    }
  }
  // Regular file: free space plus what overwriting frees.
  fs::path dir = fs::path(path).parent_path();
  struct statvfs vfs {};
  if (::statvfs(dir.empty() ? "." : dir.c_str(), &vfs) == 0)
    t.capacity = static_cast<std::uint64_t>(vfs.f_bavail) * vfs.f_frsize + t.size;
  t.logical_block = 4096;
  t.io_bytes = 4u << 20;
  return t;
}

namespace {

/// The loop device whose backing file is `real` (canonical path), or "".
std::string loop_backed_by(const std::string& real) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/sys/block", ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("loop", 0) != 0) continue;
    std::ifstream in(e.path() / "loop" / "backing_file");
    std::string backing;
    if (in && std::getline(in, backing) && backing == real) return "/dev/" + name;
  }
  return "";
}

bool on_pseudo_filesystem(const std::string& real) {
  for (const char* dir : {"/proc/", "/sys/", "/dev/"})
    if (real.rfind(dir, 0) == 0) return true;
  struct statfs sf {};
  fs::path dir = fs::path(real).parent_path();
  if (::statfs(dir.empty() ? "." : dir.c_str(), &sf) != 0) return false;
  switch (static_cast<unsigned long>(sf.f_type)) {
    case 0x9fa0:      // PROC_SUPER_MAGIC
    case 0x62656572:  // SYSFS_MAGIC
    case 0x64626720:  // DEBUGFS_MAGIC
    case 0x74726163:  // TRACEFS_MAGIC
    case 0x73636673:  // SECURITYFS_MAGIC
    case 0x63677270:  // CGROUP2_SUPER_MAGIC
    case 0x27e0eb:    // CGROUP_SUPER_MAGIC
    case 0xcafe4a11:  // BPF_FS_MAGIC
    case 0x62656570:  // CONFIGFS_MAGIC
    case 0xde5e81e4:  // EFIVARFS_MAGIC
    case 0x1cd1:      // DEVPTS_SUPER_MAGIC
      return true;
    default: return false;
  }
}

}  // namespace

void check_file_target_allowed(const TargetInfo& t, bool overwrite) {
  if (!t.is_file) return;
  std::error_code ec;
  const std::string real = fs::weakly_canonical(t.path, ec).string();
  if (on_pseudo_filesystem(real))
    throw Error(ErrorKind::Usage, fmt::format("{} is on a kernel pseudo file system (/proc, /sys, /dev, ...): piprov "
                                              "never writes there; give a disk (see 'piprov devices') or a file",
                                              t.path));
  if (!t.exists) return;
  if (auto loop = loop_backed_by(real); !loop.empty())
    throw Error(ErrorKind::Usage, fmt::format("{} is the backing file of {}: writing it would corrupt that disk under "
                                              "its users; detach it first (losetup -d {})",
                                              t.path, loop, loop));
  if (auto dir = protected_dir_of(real); !dir.empty())
    throw Error(ErrorKind::Usage, fmt::format("{} is an existing system file: piprov never overwrites files under {}; "
                                              "give a disk (see 'piprov devices') or a new file name",
                                              t.path, dir));
  if (!overwrite)
    throw Error(ErrorKind::Usage, fmt::format("{} is an existing file ({}): pass --overwrite to replace it, or give a "
                                              "disk (see 'piprov devices')",
                                              t.path, format_bytes(t.size)));
}

void check_image_not_on_target(const std::string& image, const TargetInfo& t) {
  struct stat si {
  }, st{};
  if (::stat(image.c_str(), &si) != 0) return;  // open_source reports it
  if (t.is_file) {
    if (::stat(t.path.c_str(), &st) == 0 && si.st_dev == st.st_dev && si.st_ino == st.st_ino)
      throw Error(ErrorKind::Usage, fmt::format("{} is the image itself: give another target", t.path));
    return;
  }
  std::error_code ec;
  if (!t.disk.backing_file.empty() && fs::equivalent(t.disk.backing_file, image, ec))
    throw Error(ErrorKind::Usage, fmt::format("{} is backed by the image {} itself", t.path, image));
  if (disk_of_devno(si.st_dev) == t.disk.name)
    throw Error(ErrorKind::Usage, fmt::format("{} is stored on {}: copy it to another disk first", image, t.path));
}

std::string describe_target(const TargetInfo& t) {
  if (t.is_file) return fmt::format("{}: existing file, {} (it will be overwritten)", t.path, format_bytes(t.size));
  const Disk& d = t.disk;
  std::string model = d.model.empty() ? (d.vendor.empty() ? "unknown model" : d.vendor) : d.model;
  std::string s = fmt::format("{}: {}, {} ({:.1f} GB), transport {}{}", d.path, model, format_bytes(d.size_bytes),
                              static_cast<double>(d.size_bytes) / 1e9, d.transport, d.removable ? ", removable" : "");
  if (!d.backing_file.empty()) s += ", backed by " + d.backing_file;
  for (const auto& p : d.partitions) {
    s += fmt::format("\n  {} {} {}{}", p.path, format_bytes(p.size_bytes), p.fstype.empty() ? "?" : p.fstype,
                     p.label.empty() ? "" : " \"" + p.label + "\"");
    if (!p.mountpoints.empty()) s += " mounted on " + join(p.mountpoints, ", ");
  }
  return s;
}

std::vector<std::string> unmount_target(const TargetInfo& t) {
  std::vector<std::string> done;
  auto umount_all = [&](const std::string& dev, const std::vector<std::string>& mps) {
    // Deepest mount points first (a mount inside another).
    std::vector<std::string> sorted = mps;
    std::sort(sorted.begin(), sorted.end(), [](auto& a, auto& b) { return a.size() > b.size(); });
    for (const auto& m : sorted) {
      unmount_filesystem(m);
      spdlog::warn("unmounted {} from {}", dev, m);
      done.push_back(dev + " on " + m);
    }
  };
  for (const auto& p : t.disk.partitions) umount_all(p.path, p.mountpoints);
  umount_all(t.disk.path, t.disk.mountpoints);
  return done;
}

int open_target_for_write(const TargetInfo& t, bool* direct) {
  *direct = true;
  if (!t.is_file) {
    int fd = ::open(t.path.c_str(), O_WRONLY | O_DIRECT | O_EXCL | O_CLOEXEC);
    if (fd < 0) {
      int e = errno;
      if (e == EBUSY)
        throw Error(ErrorKind::Usage, fmt::format("{} is in use (mounted, or held by another program): "
                                                  "close it or pass --unmount",
                                                  t.path));
      if (e == EROFS || e == EACCES || e == EPERM)
        throw Error(ErrorKind::Usage, fmt::format("{} cannot be opened for writing: {} (are you root? is it "
                                                  "read-only?)",
                                                  t.path, std::strerror(e)));
      throw io_error("cannot open " + t.path, e);
    }
    return fd;
  }
  int fd = ::open(t.path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_DIRECT | O_CLOEXEC, 0644);
  if (fd < 0 && errno == EINVAL) {
    spdlog::info("{}: the file system refuses O_DIRECT; writing through the page cache", t.path);
    *direct = false;
    fd = ::open(t.path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  }
  if (fd < 0) throw io_error("cannot create " + t.path, errno);
  return fd;
}

int open_target_for_read(const TargetInfo& t) {
  int fd = ::open(t.path.c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC);
  if (fd < 0 && errno == EINVAL && t.is_file) {
    fd = ::open(t.path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0) ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);  // read the disk, not the cache
  }
  if (fd < 0) throw io_error("cannot open " + t.path + " to verify it", errno);
  return fd;
}

}  // namespace piprov::image
