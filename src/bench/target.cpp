#include "bench/target.hpp"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "bench/devinfo.hpp"
#include "core/blockdev.hpp"
#include "core/cancel.hpp"
#include "core/error.hpp"
#include "core/mounts.hpp"
#include "core/protected_paths.hpp"
#include "core/units.hpp"

namespace piprov::bench {

namespace fs = std::filesystem;

PreparedTarget::~PreparedTarget() { cleanup(); }
PreparedTarget::PreparedTarget(PreparedTarget&& o) noexcept { *this = std::move(o); }
PreparedTarget& PreparedTarget::operator=(PreparedTarget&& o) noexcept {
  if (this != &o) {
    cleanup();
    label = std::move(o.label);
    job_target = std::move(o.job_target);
    device = std::move(o.device);
    raw_device = o.raw_device;
    own_file = o.own_file;
    o.own_file = false;
  }
  return *this;
}

void PreparedTarget::cleanup() {
  if (own_file && !job_target.path.empty()) ::unlink(job_target.path.c_str());
  own_file = false;
}

namespace {

constexpr std::uint64_t kMiB = 1ull << 20;

[[noreturn]] void refuse(const std::string& m) { throw Error(ErrorKind::Usage, m); }

std::uint64_t block_size_of(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw io_error("open " + path, errno);
  std::uint64_t n = 0;
  int r = ::ioctl(fd, BLKGETSIZE64, &n);
  int e = errno;
  ::close(fd);
  if (r != 0) throw io_error("BLKGETSIZE64 " + path, e);
  return n;
}

void check_raw_writable(const std::string& path, const TargetOptions& opt) {
  if (!opt.destructive)
    refuse("refusing to write to block device " + path +
           ": write tests destroy its data. Pass --destructive if you mean it, or give a directory on a mounted "
           "filesystem for a non-destructive test file");
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw io_error("stat " + path, errno);
  std::string parent;
  TargetKind k = classify_path(path, &parent);
  Disk disk = probe_disk(k == TargetKind::Partition ? parent : path);
  if (disk.system_disk) {
    std::string why;
    for (const auto& r : disk.system_reasons) why += (why.empty() ? "" : "; ") + r;
    refuse("refusing to write to " + path + ": " + disk.path + " is a system disk (" + why + ")");
  }
  auto mounted = k == TargetKind::Partition ? mountpoints_of(st.st_rdev) : std::vector<std::string>{};
  if (k == TargetKind::WholeDisk)
    for (const auto& m : disk.mounted()) mounted.push_back(m);
  if (!mounted.empty())
    refuse("refusing to write to " + path + ": it is mounted (" + mounted.front() +
           "); unmount it first or benchmark a directory on that filesystem instead");
}

}  // namespace

PreparedTarget resolve_target(const std::string& arg, const TargetOptions& opt) {
  PreparedTarget t;
  t.label = arg;
  TargetKind kind = classify_path(arg);
  struct stat st {};
  if (kind == TargetKind::WholeDisk || kind == TargetKind::Partition) {
    if (opt.writes) check_raw_writable(arg, opt);
    ::stat(arg.c_str(), &st);
    t.raw_device = true;
    t.device = device_info_for(st.st_rdev);
    std::uint64_t have = block_size_of(arg);
    t.job_target.path = arg;
    t.job_target.size = opt.size ? std::min(opt.size, have) : have;
  } else if (kind == TargetKind::RegularFile) {
    if (opt.writes && !opt.destructive)
      refuse(
          "refusing to write to existing file " + arg +
          ": write tests overwrite it. Pass --destructive, or give a directory (piprov then uses its own test file)");
    if (opt.writes) {
      // The same rule as `piprov write` (src/image/target.cpp): system files and
      // pseudo-fs files are never written, --destructive or not.
      std::error_code ec;
      const std::string real = fs::weakly_canonical(arg, ec).string();
      if (auto dir = protected_dir_of(real); !dir.empty())
        refuse("bench target " + arg + " is a system file under " + dir +
               ": piprov never writes there; give a directory for a test file of its own");
    }
    ::stat(arg.c_str(), &st);
    t.device = device_info_for(st.st_dev);
    t.job_target.path = arg;
    auto have = static_cast<std::uint64_t>(st.st_size);
    t.job_target.size = opt.size ? std::min(opt.size, have) : have;
  } else if (fs::is_directory(arg) || kind == TargetKind::Missing) {
    fs::path file = fs::is_directory(arg) ? fs::path(arg) / (".piprov-bench-" + std::to_string(::getpid()) + ".tmp")
                                          : fs::path(arg);
    fs::path dir = file.parent_path().empty() ? fs::path(".") : file.parent_path();
    if (!fs::is_directory(dir))
      refuse("bench target " + arg + " does not exist and its directory " + dir.string() + " is missing");
    // A missing /dev/sdb1 is a typo for a device, not a test file to create on
    // devtmpfs (which is RAM): the numbers would be nonsense.
    std::error_code ec;
    const std::string real_dir = fs::weakly_canonical(dir, ec).string();
    for (const char* pseudo : {"/dev", "/proc", "/sys", "/run"})
      if (real_dir == pseudo || real_dir.rfind(std::string(pseudo) + "/", 0) == 0)
        refuse(kind == TargetKind::Missing && real_dir.rfind("/dev", 0) == 0
                   ? arg + " does not exist; run 'piprov devices' to list disks"
                   : "bench target " + arg + " is on " + pseudo +
                         " (a memory filesystem, not storage): give a directory on the disk to measure");
    struct statvfs sv {};
    if (::statvfs(dir.c_str(), &sv) != 0) throw io_error("statvfs " + dir.string(), errno);
    ::stat(dir.c_str(), &st);
    t.device = device_info_for(st.st_dev);
    std::uint64_t free_bytes = static_cast<std::uint64_t>(sv.f_bavail) * sv.f_frsize;
    std::uint64_t cap = free_bytes / 20 * 19;
    std::uint64_t want = opt.size ? opt.size : 1024 * kMiB;
    t.job_target.size = std::min(want, cap) / kMiB * kMiB;
    if (t.job_target.size < kMiB)
      refuse("not enough free space for a test file in " + dir.string() + " (" + format_bytes(free_bytes) + " free)");
    t.job_target.path = file.string();
    t.own_file = false;  // set once created
  } else {
    refuse("bench target " + arg + " is neither a directory, a regular file nor a block device");
  }
  t.job_target.stat_name = t.device.stat_name;
  t.job_target.align = dio_alignment(kind == TargetKind::Missing || fs::is_directory(arg)
                                         ? fs::path(t.job_target.path).parent_path().string()
                                         : t.job_target.path,
                                     t.device.logical_block_size);
  if (t.job_target.align == 0 || t.job_target.align > 65536) t.job_target.align = 4096;
  return t;
}

void create_test_file(PreparedTarget& t, const TargetOptions& opt, const ProgressSink& sink) {
  if (t.raw_device || fs::exists(t.job_target.path)) return;
  const std::string& path = t.job_target.path;
  int flags = O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC;
  int fd = ::open(path.c_str(), flags | (opt.direct ? O_DIRECT : 0), 0600);
  if (fd < 0 && errno == EINVAL && opt.direct) {
    ::unlink(path.c_str());
    refuse("the filesystem holding " + path + " does not support O_DIRECT; use --buffered");
  }
  if (fd < 0) throw io_error("create test file " + path, errno);
  t.own_file = true;  // from here on the destructor removes it
  const std::uint64_t chunk = 4 * kMiB;
  void* buf = nullptr;
  if (posix_memalign(&buf, 4096, chunk) != 0) {
    ::close(fd);
    throw io_error("allocate pre-fill buffer", ENOMEM);
  }
  std::uint64_t rng = 0x9e3779b97f4a7c15ull ^ static_cast<std::uint64_t>(::getpid());
  std::uint64_t done = 0, total = t.job_target.size;
  ProgressEvent tmpl;
  tmpl.target = t.label;
  ProgressPhase progress(sink, "prefill", static_cast<double>(total), ProgressUnit::Bytes, tmpl);
  try {
    while (done < total) {
      throw_if_cancelled("while pre-filling the test file");
      std::uint64_t n = std::min(chunk, total - done);
      fill_random(buf, n, rng);
      ssize_t w = ::pwrite(fd, buf, n, static_cast<off_t>(done));
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) throw io_error("pre-fill " + path, errno);
      done += static_cast<std::uint64_t>(w);
      progress.update(static_cast<double>(done));
    }
    if (::fdatasync(fd) != 0) throw io_error("fdatasync " + path, errno);
  } catch (...) {
    std::free(buf);
    ::close(fd);
    t.cleanup();
    throw;
  }
  std::free(buf);
  ::close(fd);
}

}  // namespace piprov::bench
