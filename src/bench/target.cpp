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
#include "core/fd.hpp"
#include "core/units.hpp"
#include "core/write_guard.hpp"

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
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) throw io_error("open " + path, errno);
  std::uint64_t n = 0;
  if (::ioctl(fd.get(), BLKGETSIZE64, &n) != 0) throw io_error("BLKGETSIZE64 " + path, errno);
  return n;
}

// A block device or an existing file: read tests anytime, write tests only
// when the write guard allows them (intent DestructiveBench).
void resolve_existing(PreparedTarget& t, const std::string& arg, TargetKind kind, const TargetOptions& opt) {
  if (opt.writes) check_write(arg, WriteIntent::DestructiveBench, {.destructive = opt.destructive});
  struct stat st {};
  if (::stat(arg.c_str(), &st) != 0) throw io_error("stat " + arg, errno);
  t.raw_device = kind != TargetKind::RegularFile;
  t.device = device_info_for(t.raw_device ? st.st_rdev : st.st_dev);
  std::uint64_t have = t.raw_device ? block_size_of(arg) : static_cast<std::uint64_t>(st.st_size);
  t.job_target.path = arg;
  t.job_target.size = opt.size ? std::min(opt.size, have) : have;
}

// A directory: a test file of piprov's own (intent BenchTestFile; the guard
// refuses a path that does not exist, rule NewPath).
void resolve_test_file(PreparedTarget& t, const std::string& arg, const TargetOptions& opt) {
  WriteSubject s = check_write(arg, WriteIntent::BenchTestFile);
  fs::path file =
      s.directory ? fs::path(arg) / (".piprov-bench-" + std::to_string(::getpid()) + ".tmp") : fs::path(arg);
  fs::path dir = file.parent_path().empty() ? fs::path(".") : file.parent_path();
  struct statvfs sv {};
  if (::statvfs(dir.c_str(), &sv) != 0) throw io_error("statvfs " + dir.string(), errno);
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) throw io_error("stat " + dir.string(), errno);
  t.device = device_info_for(st.st_dev);
  std::uint64_t free_bytes = static_cast<std::uint64_t>(sv.f_bavail) * sv.f_frsize;
  std::uint64_t cap = free_bytes / 20 * 19;
  std::uint64_t want = opt.size ? opt.size : 1024 * kMiB;
  t.job_target.size = std::min(want, cap) / kMiB * kMiB;
  if (t.job_target.size < kMiB)
    refuse("not enough free space for a test file in " + dir.string() + " (" + format_bytes(free_bytes) + " free)");
  t.job_target.path = file.string();
  t.own_file = false;  // set once created
}

}  // namespace

PreparedTarget resolve_target(const std::string& arg, const TargetOptions& opt) {
  PreparedTarget t;
  t.label = arg;
  TargetKind kind = classify_path(arg);
  const bool existing =
      kind == TargetKind::WholeDisk || kind == TargetKind::Partition || kind == TargetKind::RegularFile;
  if (existing)
    resolve_existing(t, arg, kind, opt);
  else
    resolve_test_file(t, arg, opt);
  t.job_target.stat_name = t.device.stat_name;
  t.job_target.align = dio_alignment(existing ? t.job_target.path : fs::path(t.job_target.path).parent_path().string(),
                                     t.device.logical_block_size);
  if (t.job_target.align == 0 || t.job_target.align > 65536) t.job_target.align = 4096;
  return t;
}

void create_test_file(PreparedTarget& t, const TargetOptions& opt, const ProgressSink& sink) {
  if (t.raw_device || fs::exists(t.job_target.path)) return;
  const std::string& path = t.job_target.path;
  int flags = O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC;
  UniqueFd file(::open(path.c_str(), flags | (opt.direct ? O_DIRECT : 0), 0600));
  if (!file && errno == EINVAL && opt.direct) {
    ::unlink(path.c_str());
    refuse("the filesystem holding " + path + " does not support O_DIRECT; use --buffered");
  }
  if (!file) throw io_error("create test file " + path, errno);
  const int fd = file.get();
  t.own_file = true;  // from here on the destructor removes it
  const std::uint64_t chunk = 4 * kMiB;
  void* buf = nullptr;
  if (posix_memalign(&buf, 4096, chunk) != 0) throw io_error("allocate pre-fill buffer", ENOMEM);
  std::uint64_t rng = 0x9e3779b97f4a7c15ull ^ static_cast<std::uint64_t>(::getpid());
  std::uint64_t done = 0, total = t.job_target.size;
  ProgressEvent tmpl;
  tmpl.target = t.label;
  ProgressPhase progress(sink, Phase::Prefill, static_cast<double>(total), ProgressUnit::Bytes, tmpl);
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
    file.reset();
    t.cleanup();
    throw;
  }
  std::free(buf);
}

}  // namespace piprov::bench
