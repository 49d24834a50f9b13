// The sequential back end of the image reader: formats whose blocks cannot
// be decoded alone (gzip, bzip2, lz4, zip, single-block xz, single-frame zst)
// are read through open_source()'s decoder, forward; a read before the
// decoder's position starts it again from the beginning. The 1 MiB pieces
// asked for are kept in a small LRU cache, so the scattered small reads of
// a file system's metadata rarely restart it.
#include <fmt/format.h>
#include <algorithm>
#include <cstring>
#include <list>
#include <mutex>
#include <optional>

#include "core/error.hpp"
#include "image/image_reader_impl.hpp"

namespace piprov::image {
namespace {

constexpr std::size_t kSeqPiece = 1u << 20;
constexpr std::size_t kSeqCachedPieces = 16;

class SequentialImageReader final : public ImageReader {
 public:
  SequentialImageReader(std::string path, unsigned threads, Format f, std::string why)
      : path_(std::move(path)), threads_(threads), format_(f), why_(std::move(why)) {
    src_ = open_source(path_, threads_, false);
    if (auto s = src_->size()) size_ = *s;
  }
  std::uint64_t size() const override {
    std::lock_guard lk(m_);
    if (!size_) {  // the format does not say: decode to the end once
      std::vector<std::byte> scratch(kSeqPiece);
      while (true) {
        const std::size_t n = src_->read_full(scratch);
        pos_ += n;
        bytes_ += n;
        if (n < scratch.size()) break;
      }
      size_ = pos_;
    }
    return *size_;
  }
  void read_at(std::span<std::byte> out, std::uint64_t offset) override {
    const std::uint64_t total = size();
    if (offset > total || out.size() > total - offset)
      throw Error(ErrorKind::Usage, fmt::format("{}: bytes {}-{} asked for, but the image ends at {}", path_, offset,
                                                offset + out.size(), total));
    std::lock_guard lk(m_);
    std::uint64_t at = offset;
    const std::uint64_t end = offset + out.size();
    while (at < end) {
      const std::uint64_t piece = at / kSeqPiece;
      const std::vector<std::byte>& data = piece_data(piece);
      const std::uint64_t pb = piece * kSeqPiece;
      const std::uint64_t e = std::min(end, pb + data.size());
      if (e <= at) throw Error(ErrorKind::Usage, fmt::format("{} ends before byte {}", path_, at));
      std::memcpy(out.data() + (at - offset), data.data() + (at - pb), e - at);
      at = e;
    }
  }
  std::size_t read_head(std::span<std::byte> out) override {
    std::lock_guard lk(m_);
    for (const auto& [piece, data] : cache_)
      if (piece == 0 && (data.size() >= out.size() || data.size() < kSeqPiece)) {
        const std::size_t n = std::min(out.size(), data.size());
        std::memcpy(out.data(), data.data(), n);
        return n;
      }
    // Only these bytes: a download cut after them still fails where the write reaches the cut.
    if (pos_ != 0) {
      src_ = open_source(path_, threads_, false);
      pos_ = 0;
    }
    const std::size_t n = src_->read_full(out);
    pos_ += n;
    bytes_ += n;
    return n;
  }
  std::vector<ByteRange> blocks() const override { return {{0, size()}}; }
  bool random_access() const override { return false; }
  std::string sequential_note() const override { return why_; }
  Format format() const override { return format_; }
  std::uint64_t input_bytes() const override { return src_->input().size(); }
  ReaderStats stats() const override { return {1, bytes_ ? 1u : 0u, bytes_}; }

 private:
  /// Piece `piece` (1 MiB, the last one shorter), from the cache or decoded.
  const std::vector<std::byte>& piece_data(std::uint64_t piece) {
    for (auto it = cache_.begin(); it != cache_.end(); ++it)
      if (it->first == piece) {
        cache_.splice(cache_.begin(), cache_, it);
        return cache_.front().second;
      }
    const std::uint64_t want = piece * kSeqPiece;
    if (want < pos_) {  // behind the decoder: start again
      src_ = open_source(path_, threads_, false);
      pos_ = 0;
    }
    std::vector<std::byte> data(kSeqPiece);
    while (pos_ < want) {
      const std::size_t n = src_->read_full(
          std::span(data).first(static_cast<std::size_t>(std::min<std::uint64_t>(kSeqPiece, want - pos_))));
      pos_ += n;
      bytes_ += n;
      if (n == 0) break;
    }
    const std::size_t n = src_->read_full(data);
    pos_ += n;
    bytes_ += n;
    data.resize(n);
    cache_.emplace_front(piece, std::move(data));
    if (cache_.size() > kSeqCachedPieces) cache_.pop_back();
    return cache_.front().second;
  }

  std::string path_;
  unsigned threads_;
  Format format_;
  std::string why_;
  mutable std::mutex m_;
  mutable std::unique_ptr<Source> src_;
  mutable std::uint64_t pos_ = 0;  ///< decoded bytes the decoder has given
  mutable std::uint64_t bytes_ = 0;
  mutable std::optional<std::uint64_t> size_;
  std::list<std::pair<std::uint64_t, std::vector<std::byte>>> cache_;  ///< front = newest
};

}  // namespace

std::unique_ptr<ImageReader> make_sequential_reader(const std::string& path, unsigned threads, Format f,
                                                    std::string why) {
  return std::make_unique<SequentialImageReader>(path, threads, f, std::move(why));
}

}  // namespace piprov::image
