// The random-access image reader (image_reader.hpp): format detection, the
// block reader with its LRU cache shared by the xz and zst back ends, and
// raw files (pread).
#include <fcntl.h>
#include <fmt/format.h>
#include <algorithm>
#include <array>
#include <cstring>

#include "core/cancel.hpp"
#include "core/error.hpp"
#include "core/file.hpp"
#include "core/units.hpp"
#include "image/image_reader_impl.hpp"
#include "image/target.hpp"

namespace piprov::image {

BlockImageReader::BlockImageReader(std::unique_ptr<InputFile> in, Format f, std::vector<CompressedBlock> blocks)
    : in_(std::move(in)), format_(f), blocks_(std::move(blocks)), seen_(blocks_.size(), 0) {
  size_ = blocks_.empty() ? 0 : blocks_.back().out.end;
}

std::vector<ByteRange> BlockImageReader::blocks() const {
  std::vector<ByteRange> out;
  out.reserve(blocks_.size());
  for (const auto& b : blocks_) out.push_back(b.out);
  return out;
}

ReaderStats BlockImageReader::stats() const { return {blocks_.size(), decoded_blocks_.load(), decoded_bytes_.load()}; }

std::vector<std::uint8_t> BlockImageReader::compressed(std::size_t index) const {
  const CompressedBlock& b = blocks_[index];
  std::vector<std::uint8_t> buf(b.in_size);
  FdResult r = read_fd_full(in_->fd(), std::as_writable_bytes(std::span(buf)), b.in_offset,
                            [this] { throw_if_cancelled(("while reading " + in_->path()).c_str()); });
  if (r.err) throw io_error(fmt::format("reading {} at byte offset {}", in_->path(), b.in_offset), r.err);
  if (r.bytes != buf.size())
    throw ErrorAt(
        ErrorKind::Io,
        fmt::format("{} is truncated: block {} (decoded bytes {}-{}) needs compressed bytes up to {}, the "
                    "file ends at {}; download it again",
                    in_->path(), index, b.out.begin, b.out.end, b.in_offset + b.in_size, b.in_offset + r.bytes),
        b.out.begin);
  return buf;
}

void BlockImageReader::corrupt(std::size_t index, const std::string& why) const {
  const CompressedBlock& b = blocks_[index];
  throw ErrorAt(ErrorKind::Io,
                fmt::format("{} is corrupt: block {} (decoded bytes {}-{}, compressed byte offset {}): {}; download "
                            "it again",
                            in_->path(), index, b.out.begin, b.out.end, b.in_offset, why),
                b.out.begin);
}

void BlockImageReader::decode_counted(std::size_t index, std::span<std::byte> out) const {
  throw_if_cancelled("while decoding");
  decode(index, out);
  decoded_bytes_ += out.size();
  std::lock_guard lk(m_);
  if (!seen_[index]) {
    seen_[index] = 1;
    ++decoded_blocks_;
  }
}

std::shared_ptr<const std::vector<std::byte>> BlockImageReader::cached(std::size_t index) const {
  {
    std::lock_guard lk(m_);
    for (auto it = lru_.begin(); it != lru_.end(); ++it)
      if (it->first == index) {
        lru_.splice(lru_.begin(), lru_, it);
        return it->second;
      }
  }
  auto data = std::make_shared<std::vector<std::byte>>(blocks_[index].out.size());
  decode_counted(index, *data);
  std::lock_guard lk(m_);
  lru_.emplace_front(index, data);
  cache_bytes_ += data->size();
  while (lru_.size() > 1 && cache_bytes_ > kReaderCacheBytes) {
    cache_bytes_ -= lru_.back().second->size();
    lru_.pop_back();
  }
  return data;
}

void BlockImageReader::drop_cache() {
  std::lock_guard lk(m_);
  lru_.clear();
  cache_bytes_ = 0;
}

void BlockImageReader::read_at(std::span<std::byte> out, std::uint64_t offset) {
  if (offset > size_ || out.size() > size_ - offset)
    throw Error(ErrorKind::Usage, fmt::format("{}: bytes {}-{} asked for, but the image ends at {}", in_->path(),
                                              offset, offset + out.size(), size_));
  auto it = std::upper_bound(blocks_.begin(), blocks_.end(), offset,
                             [](std::uint64_t v, const CompressedBlock& b) { return v < b.out.end; });
  std::uint64_t at = offset;
  const std::uint64_t end = offset + out.size();
  for (; at < end && it != blocks_.end(); ++it) {
    const auto index = static_cast<std::size_t>(it - blocks_.begin());
    const std::uint64_t b = std::max(at, it->out.begin), e = std::min(end, it->out.end);
    std::span<std::byte> dst = out.subspan(static_cast<std::size_t>(b - offset), static_cast<std::size_t>(e - b));
    if (b == it->out.begin && e == it->out.end) {
      decode_counted(index, dst);  // the whole block: no copy, no cache
    } else {
      auto data = cached(index);
      std::memcpy(dst.data(), data->data() + (b - it->out.begin), dst.size());
    }
    at = e;
  }
}

namespace {

/// A raw image: every byte is where it is (pread).
class RawImageReader final : public ImageReader {
 public:
  explicit RawImageReader(std::unique_ptr<InputFile> in) : in_(std::move(in)) {}
  std::uint64_t size() const override { return in_->size(); }
  void read_at(std::span<std::byte> out, std::uint64_t offset) override {
    if (offset > size() || out.size() > size() - offset)
      throw Error(ErrorKind::Usage, fmt::format("{}: bytes {}-{} asked for, but the image ends at {}", in_->path(),
                                                offset, offset + out.size(), size()));
    FdResult r =
        read_fd_full(in_->fd(), out, offset, [this] { throw_if_cancelled(("while reading " + in_->path()).c_str()); });
    if (r.err) throw io_error(fmt::format("reading {} at byte offset {}", in_->path(), offset), r.err);
    if (r.bytes != out.size())
      throw Error(ErrorKind::Io,
                  fmt::format("{} shrank while it was read (ends at byte {})", in_->path(), offset + r.bytes));
    bytes_ += out.size();
  }
  std::vector<ByteRange> blocks() const override { return {{0, size()}}; }
  bool random_access() const override { return true; }
  std::string sequential_note() const override { return ""; }
  Format format() const override { return Format::Raw; }
  std::uint64_t input_bytes() const override { return in_->size(); }
  ReaderStats stats() const override { return {0, 0, bytes_.load()}; }

 private:
  std::unique_ptr<InputFile> in_;
  std::atomic<std::uint64_t> bytes_{0};
};

}  // namespace

std::string reader_stats_text(const ReaderStats& s, std::uint64_t image_bytes) {
  if (s.blocks_total == 0) return "read " + format_bytes(s.bytes_decoded);
  std::string out =
      fmt::format("{} of {} blocks decoded, {}", s.blocks_decoded, s.blocks_total, format_bytes(s.bytes_decoded));
  if (image_bytes != 0 && s.bytes_decoded > image_bytes)
    out += fmt::format(" in all: more than the {} image, as going back within a block decodes it again from its start",
                       format_bytes(image_bytes));
  return out;
}

std::unique_ptr<ImageReader> make_raw_reader(std::unique_ptr<InputFile> in) {
  return std::make_unique<RawImageReader>(std::move(in));
}

std::unique_ptr<ImageReader> open_image_reader(const std::string& path, unsigned threads) {
  auto in = std::make_unique<InputFile>(path, false);
  if (in->size() == 0) throw Error(ErrorKind::Usage, path + " is empty (0 bytes): the download is probably broken");
  std::array<std::byte, 512> head{};
  FdResult n = read_fd_full(in->fd(), head, 0);
  if (n.err) throw io_error("reading " + path, n.err);
  const Format f = detect_format(std::span<const std::byte>(head.data(), n.bytes), path);
  std::string why;
  switch (f) {
    case Format::Raw: return make_raw_reader(std::move(in));
    case Format::Xz:
      if (auto r = make_xz_reader(in)) return r;
      why =
          "single-block .xz is sequential: every byte before a range is decoded to read it (xz -T0 or -T4 "
          "compresses in independent blocks)";
      break;
    case Format::Zstd:
      if (auto r = make_zst_reader(in)) return r;
      why =
          "single-frame .zst is sequential: every byte before a range is decoded to read it (a multi-frame .zst, "
          "as rpi-imager writes, is not)";
      break;
    default:
      why = fmt::format("{} is sequential: every byte before a range is decoded to read it", to_string(f));
      break;
  }
  in.reset();
  return make_sequential_reader(path, threads, f, why);
}

}  // namespace piprov::image
