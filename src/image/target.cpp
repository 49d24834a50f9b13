#include "image/target.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <linux/fs.h>
#include <spdlog/spdlog.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "core/error.hpp"
#include "core/mounts.hpp"
#include "core/strings.hpp"
#include "core/units.hpp"

namespace fs = std::filesystem;

namespace piprov::image {
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

TargetInfo inspect_target(const std::string& path, const WriteFlags& flags, std::optional<WriteIntent> intent) {
  WriteSubject s = inspect_write_subject(path);
  const bool block = s.kind == TargetKind::WholeDisk || s.kind == TargetKind::Partition;
  enforce_write(s, intent.value_or(block ? WriteIntent::WholeDiskImage : WriteIntent::ImageFile), flags);
  TargetInfo t;
  t.path = path;
  if (block) {
    t.disk = std::move(s.disk);
    t.size = t.capacity = t.disk.size_bytes;
    t.logical_block = t.disk.logical_block_size ? t.disk.logical_block_size : 512;
    t.io_bytes = choose_io_bytes(t.disk.max_sectors_kb, t.logical_block);
    return t;
  }
  // Regular file: free space plus what overwriting frees.
  t.is_file = true;
  t.exists = s.kind == TargetKind::RegularFile;
  t.size = s.size;
  fs::path dir = fs::path(path).parent_path();
  struct statvfs vfs {};
  if (::statvfs(dir.empty() ? "." : dir.c_str(), &vfs) == 0)
    t.capacity = static_cast<std::uint64_t>(vfs.f_bavail) * vfs.f_frsize + t.size;
  t.logical_block = 4096;
  t.io_bytes = 4u << 20;
  return t;
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
                              static_cast<double>(d.size_bytes) / 1e9, transport_name(d.transport),
                              d.removable ? ", removable" : "");
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

UniqueFd open_target_for_write(const TargetInfo& t, bool* direct) {
  *direct = true;
  if (!t.is_file) {
    UniqueFd fd(::open(t.path.c_str(), O_WRONLY | O_DIRECT | O_EXCL | O_CLOEXEC));
    if (!fd) {
      int e = errno;
      if (e == EBUSY)
        throw Error(ErrorKind::Usage, fmt::format("{} is in use by another program (another write, a RAID or LVM "
                                                  "holder; `fuser -v {}` names it): stop it and try again",
                                                  t.path, t.path));
      if (e == EROFS || e == EACCES || e == EPERM)
        throw Error(ErrorKind::Usage, fmt::format("{} cannot be opened for writing: {} (are you root? is it "
                                                  "read-only?)",
                                                  t.path, std::strerror(e)));
      throw io_error("cannot open " + t.path, e);
    }
    return fd;
  }
  UniqueFd fd(::open(t.path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_DIRECT | O_CLOEXEC, 0644));
  if (!fd && errno == EINVAL) {
    spdlog::info("{}: the file system refuses O_DIRECT; writing through the page cache", t.path);
    *direct = false;
    fd.reset(::open(t.path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  }
  if (!fd) throw io_error("cannot create " + t.path, errno);
  return fd;
}

UniqueFd open_target_for_read(const TargetInfo& t) {
  UniqueFd fd(::open(t.path.c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC));
  if (!fd && errno == EINVAL && t.is_file) {
    fd.reset(::open(t.path.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd) ::posix_fadvise(fd.get(), 0, 0, POSIX_FADV_DONTNEED);  // read the disk, not the cache
  }
  if (!fd) throw io_error("cannot open " + t.path + " to verify it", errno);
  return fd;
}

}  // namespace piprov::image
