#include "image/target_writer.hpp"

#include <fmt/format.h>
#include <linux/fs.h>
#include <spdlog/spdlog.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/cancel.hpp"
#include "core/error.hpp"
#include "core/file.hpp"
#include "core/units.hpp"
#include "image/skip_filter.hpp"

namespace piprov::image {

TargetWriter::TargetWriter(const TargetInfo& t, UniqueFd fd, bool direct)
    : t_(t), fd_(std::move(fd)), direct_(direct), head_(kHeadBytes) {}

TargetWriter::~TargetWriter() { close(); }

void TargetWriter::close() { fd_.reset(); }

void TargetWriter::pwrite_all(const std::byte* p, std::size_t n, std::uint64_t offset, std::size_t image_len) {
  // EINTR is retried: cancellation is checked between buffers.
  FdResult w = write_fd_full(fd_.get(), {p, n}, offset);
  if (w.err) {
    const int e = w.err;
    std::uint64_t at = offset + std::min(w.bytes, image_len);
    throw ErrorAt(ErrorKind::Io,
                  fmt::format("writing {} failed at byte offset {} ({}): {} ({})", t_.path, at, format_bytes(at),
                              std::strerror(e), errno_name(e)),
                  at);
  }
}

void TargetWriter::wipe_edges() {
  if (t_.is_file) return;  // opened with O_TRUNC: nothing old is left
  std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(kHeadBytes, t_.capacity));
  n = n / t_.logical_block * t_.logical_block;
  pwrite_all(head_.data(), n, 0, n);
  if (t_.capacity >= 2 * kHeadBytes) pwrite_all(head_.data(), kHeadBytes, t_.capacity - kHeadBytes, kHeadBytes);
  sync();
}

void TargetWriter::write(const AlignedBuffer& buf, std::size_t len, std::uint64_t offset) {
  throw_if_cancelled("while writing");
  // A stream of unknown size that does not fit: write what fits, then stop.
  const bool overflow = !t_.is_file && offset + len > t_.capacity;
  if (overflow) len = offset < t_.capacity ? static_cast<std::size_t>(t_.capacity - offset) : 0;
  std::size_t skip = 0;
  if (offset < kHeadBytes) {  // hold the first MiB back
    skip = static_cast<std::size_t>(std::min<std::uint64_t>(len, kHeadBytes - offset));
    std::memcpy(head_.data() + offset, buf.data(), skip);
    head_len_ = static_cast<std::size_t>(offset) + skip;
  }
  if (skip < len) {
    std::uint64_t at = offset + skip;
    if (map_)
      for (const ByteRange& gap : map_->skipped_in(at, offset + len - at)) {
        if (gap.begin > at) put(buf, offset, at, gap.begin);
        discard(gap);
        at = gap.end;
      }
    if (at < offset + len) put(buf, offset, at, offset + len);
  }
  written_ = offset + len;
  if (overflow)
    throw ErrorAt(ErrorKind::Io,
                  fmt::format("{} is full: the image does not fit in its {} (stopped at byte offset {})", t_.path,
                              format_bytes(t_.capacity), t_.capacity),
                  t_.capacity);
}

void TargetWriter::put(const AlignedBuffer& buf, std::uint64_t buf_offset, std::uint64_t begin, std::uint64_t end) {
  const auto n = static_cast<std::size_t>(end - begin);
  std::size_t padded = n;
  if (direct_) padded = (n + t_.logical_block - 1) / t_.logical_block * t_.logical_block;  // zero-padded
  pwrite_all(buf.data() + (begin - buf_offset), padded, begin, n);
}

void TargetWriter::discard(ByteRange r) {
  skipped_ += r.size();
  if (t_.is_file || !discard_ok_) return;  // a file opened with O_TRUNC holds nothing old
  if (pending_discard_.size() && pending_discard_.end == r.begin) {
    pending_discard_.end = r.end;
    return;
  }
  flush_discard();
  pending_discard_ = r;
}

void TargetWriter::flush_discard() {
  if (!pending_discard_.size()) return;
  std::uint64_t range[2] = {pending_discard_.begin, pending_discard_.size()};
  if (::ioctl(fd_.get(), BLKDISCARD, range) == 0) {
    discarded_ += range[1];
  } else {  // not supported (EOPNOTSUPP): the skipped ranges keep what the disk held
    const int e = errno;
    discard_ok_ = false;
    spdlog::info("{}: no discard ({}); the skipped free space keeps the disk's old bytes", t_.path, errno_name(e));
  }
  pending_discard_ = {};
}

void TargetWriter::sync() {
  flush_discard();
  if (::fdatasync(fd_.get()) != 0) {
    int e = errno;
    throw Error(ErrorKind::Io, fmt::format("flushing {} failed (fdatasync): {} ({}); the data may not be on the disk",
                                           t_.path, std::strerror(e), errno_name(e)));
  }
}

void TargetWriter::commit_head(std::uint64_t image_bytes) {
  if (head_len_ > 0) {
    std::size_t n = head_len_;
    if (direct_) n = (n + t_.logical_block - 1) / t_.logical_block * t_.logical_block;
    pwrite_all(head_.data(), n, 0, head_len_);
  }
  if (t_.is_file && ::ftruncate(fd_.get(), static_cast<off_t>(image_bytes)) != 0)
    throw io_error("truncating " + t_.path + " to the image size", errno);
  sync();
}

}  // namespace piprov::image
