// open_disk_reader(): pread with O_DIRECT through an aligned bounce buffer.
#include "image/disk_reader.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <atomic>
#include <cstdlib>
#include <cstring>

#include "core/cancel.hpp"
#include "core/error.hpp"
#include "core/fd.hpp"
#include "core/file.hpp"

namespace piprov::image {

namespace {

constexpr std::uint64_t kDiskReadAlign = 4096;

struct AlignedFree {
  void operator()(void* p) const noexcept { std::free(p); }  // NOLINT(cppcoreguidelines-no-malloc)
};

class DiskImageReader final : public ImageReader {
 public:
  DiskImageReader(std::string path, UniqueFd fd, std::uint64_t size, bool direct)
      : path_(std::move(path)), fd_(std::move(fd)), size_(size), direct_(direct) {}
  std::uint64_t size() const override { return size_; }
  void read_at(std::span<std::byte> out, std::uint64_t offset) override {
    if (offset > size_ || out.size() > size_ - offset)
      throw Error(ErrorKind::Usage, fmt::format("{}: bytes {}-{} asked for, but the disk ends at {}", path_, offset,
                                                offset + out.size(), size_));
    if (!direct_) return read_plain(out, offset);
    const std::uint64_t begin = offset / kDiskReadAlign * kDiskReadAlign;
    const std::uint64_t end = (offset + out.size() + kDiskReadAlign - 1) / kDiskReadAlign * kDiskReadAlign;
    void* raw = nullptr;
    if (posix_memalign(&raw, kDiskReadAlign, end - begin) != 0) throw Error(ErrorKind::Io, "out of memory");
    std::unique_ptr<void, AlignedFree> buf(raw);
    std::span<std::byte> whole(static_cast<std::byte*>(raw), end - begin);
    FdResult r =
        read_fd_full(fd_.get(), whole, begin, [this] { throw_if_cancelled(("while reading " + path_).c_str()); });
    if (r.err) throw io_error(fmt::format("reading {} at byte offset {}", path_, begin), r.err);
    if (r.bytes < offset + out.size() - begin)
      throw Error(ErrorKind::Io, fmt::format("{} shrank while it was read (ends at byte {})", path_, begin + r.bytes));
    std::memcpy(out.data(), whole.data() + (offset - begin), out.size());
    bytes_ += out.size();
  }
  std::vector<ByteRange> blocks() const override { return {{0, size_}}; }
  bool random_access() const override { return true; }
  std::string sequential_note() const override { return ""; }
  Format format() const override { return Format::Raw; }
  std::uint64_t input_bytes() const override { return size_; }
  ReaderStats stats() const override { return {0, 0, bytes_.load()}; }

 private:
  void read_plain(std::span<std::byte> out, std::uint64_t offset) {
    FdResult r =
        read_fd_full(fd_.get(), out, offset, [this] { throw_if_cancelled(("while reading " + path_).c_str()); });
    if (r.err) throw io_error(fmt::format("reading {} at byte offset {}", path_, offset), r.err);
    if (r.bytes != out.size())
      throw Error(ErrorKind::Io, fmt::format("{} shrank while it was read (ends at byte {})", path_, offset + r.bytes));
    bytes_ += out.size();
  }
  std::string path_;
  UniqueFd fd_;
  std::uint64_t size_;
  bool direct_;
  std::atomic<std::uint64_t> bytes_{0};
};

}  // namespace

std::unique_ptr<ImageReader> open_disk_reader(const std::string& path, std::uint64_t length) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT)
      throw Error(ErrorKind::Usage, path + " does not exist: give a disk (/dev/sdX) or an image file");
    throw io_error("cannot stat " + path, errno);
  }
  if (!S_ISBLK(st.st_mode) && !S_ISREG(st.st_mode))
    throw Error(ErrorKind::Usage, path + " is neither a block device nor a regular file: give a disk or an image file");
  bool direct = true;
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_DIRECT));
  if (!fd) {  // tmpfs and some other file systems refuse O_DIRECT (EINVAL)
    direct = false;
    fd.reset(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  }
  if (!fd) throw io_error("cannot open " + path, errno);
  std::uint64_t size = static_cast<std::uint64_t>(st.st_size);
  if (S_ISBLK(st.st_mode) && ::ioctl(fd.get(), BLKGETSIZE64, &size) != 0)
    throw io_error("BLKGETSIZE64 on " + path, errno);
  if (size == 0) throw Error(ErrorKind::Usage, path + " is empty (0 bytes): no medium, or nothing to read");
  // A regular file whose size is not a multiple of the alignment: its tail
  // cannot be read with O_DIRECT past end of file in every file system; read it plainly.
  if (S_ISREG(st.st_mode) && size % kDiskReadAlign != 0) {
    direct = false;
    fd.reset(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd) throw io_error("cannot open " + path, errno);
  }
  if (length > size)
    throw Error(ErrorKind::Usage,
                fmt::format("{} ends at byte {}, before byte {} that was asked for", path, size, length));
  return std::make_unique<DiskImageReader>(path, std::move(fd), length ? length : size, direct);
}

}  // namespace piprov::image
