// The .zst back end of the image reader: a .zst of several frames (RFC 8878
// section 3.1: frames are independent) is walked frame by frame from the
// frame headers (Frame_Content_Size, 3.1.1.1.4) and the block headers
// (Block_Size, 3.1.1.2); zstd's seekable format (contrib/seekable_format,
// zstd_seekable_compression_format.md: a skippable frame at the end listing
// each frame's compressed and decompressed size) is read instead when present.
// A frame decodes alone with ZSTD_decompressDCtx, which verifies its
// Content_Checksum (XXH64) when the frame has one.
#include <fmt/format.h>
#include <zstd.h>
#include <memory>

#include "core/error.hpp"
#include "core/file.hpp"
#include "image/image_reader_impl.hpp"

namespace piprov::image {
namespace {

constexpr std::uint32_t kZstMagic = 0xFD2FB528u;
constexpr std::uint32_t kZstSeekableMagic = 0x8F92EAB1u;
constexpr std::uint32_t kZstSkippableSeekTable = 0x184D2A5Eu;

std::uint64_t zst_le(const std::uint8_t* p, unsigned n) {
  std::uint64_t v = 0;
  for (unsigned i = 0; i < n; ++i) v |= std::uint64_t{p[i]} << (8 * i);
  return v;
}

/// Reads bytes of IMAGE at any offset through a 1 MiB window (pread).
class ZstWindow {
 public:
  explicit ZstWindow(const InputFile& in) : in_(in), buf_(1u << 20) {}
  /// `n` (<= 64) bytes at `pos`; nullptr when the file ends first.
  const std::uint8_t* at(std::uint64_t pos, std::size_t n) {
    if (pos + n > in_.size()) return nullptr;
    if (pos < start_ || pos + n > start_ + len_) {
      FdResult r = read_fd_full(in_.fd(), std::as_writable_bytes(std::span(buf_)), pos);
      if (r.err) throw io_error(fmt::format("reading {} at byte offset {}", in_.path(), pos), r.err);
      start_ = pos;
      len_ = r.bytes;
      if (pos + n > start_ + len_) return nullptr;
    }
    return buf_.data() + (pos - start_);
  }

 private:
  const InputFile& in_;
  std::vector<std::uint8_t> buf_;
  std::uint64_t start_ = 0, len_ = 0;
};

/// The frames listed by a seek table at the end of the file; empty when
/// there is none or it does not add up to the file.
std::vector<CompressedBlock> zst_seek_table(const InputFile& in, ZstWindow& w) {
  if (in.size() < 9) return {};
  const std::uint8_t* foot = w.at(in.size() - 9, 9);
  if (!foot || zst_le(foot + 5, 4) != kZstSeekableMagic) return {};
  const std::uint64_t frames = zst_le(foot, 4);
  const unsigned entry = (foot[4] & 0x80) ? 12 : 8;
  const std::uint64_t table = 8 + frames * entry + 9;  // skippable header, entries, footer
  if (table > in.size()) return {};
  const std::uint64_t start = in.size() - table;
  const std::uint8_t* head = w.at(start, 8);
  if (!head || zst_le(head, 4) != kZstSkippableSeekTable || zst_le(head + 4, 4) != table - 8) return {};
  std::vector<CompressedBlock> out;
  std::uint64_t in_at = 0, out_at = 0;
  for (std::uint64_t i = 0; i < frames; ++i) {
    const std::uint8_t* e = w.at(start + 8 + i * entry, entry);
    if (!e) return {};
    const std::uint64_t c = zst_le(e, 4), d = zst_le(e + 4, 4);
    if (d) out.push_back({{out_at, out_at + d}, in_at, c});
    in_at += c;
    out_at += d;
  }
  if (in_at != start) return {};
  return out;
}

/// The frames found by walking every frame header and block header; empty
/// when a frame does not say its content size (or the walk fails: the
/// sequential decoder then reports the damage).
std::vector<CompressedBlock> zst_walk(const InputFile& in, ZstWindow& w) {
  std::vector<CompressedBlock> out;
  std::uint64_t pos = 0, out_at = 0;
  while (pos < in.size()) {
    const std::uint8_t* h = w.at(pos, 8);
    if (!h) return {};
    const auto magic = static_cast<std::uint32_t>(zst_le(h, 4));
    if ((magic & 0xFFFFFFF0u) == 0x184D2A50u) {  // a skippable frame (3.1.2)
      pos += 8 + zst_le(h + 4, 4);
      continue;
    }
    if (magic != kZstMagic) return {};
    const unsigned fhd = h[4];
    const bool single = (fhd >> 5) & 1, checksum = (fhd >> 2) & 1;
    static constexpr unsigned kDid[] = {0, 1, 2, 4};
    const unsigned fcs_flag = fhd >> 6;
    const unsigned fcs = fcs_flag == 0 ? (single ? 1 : 0) : 1u << fcs_flag;
    const std::uint64_t header = 5 + (single ? 0 : 1) + kDid[fhd & 3] + fcs;
    const std::uint8_t* full = w.at(pos, static_cast<std::size_t>(header));
    if (!full) return {};
    const unsigned long long size = ZSTD_getFrameContentSize(full, static_cast<std::size_t>(header));
    if (size == ZSTD_CONTENTSIZE_UNKNOWN || size == ZSTD_CONTENTSIZE_ERROR) return {};
    std::uint64_t at = pos + header;
    for (bool last = false; !last;) {
      const std::uint8_t* b = w.at(at, 3);
      if (!b) return {};
      const std::uint64_t bh = zst_le(b, 3);
      last = bh & 1;
      const unsigned type = (bh >> 1) & 3;
      if (type == 3) return {};
      at += 3 + (type == 1 ? 1 : bh >> 3);
    }
    if (checksum) at += 4;
    if (at > in.size()) return {};
    if (size) out.push_back({{out_at, out_at + size}, pos, at - pos});
    out_at += size;
    pos = at;
  }
  return out;
}

struct ZstDctxFree {
  void operator()(ZSTD_DCtx* c) const { ZSTD_freeDCtx(c); }
};

class ZstImageReader final : public BlockImageReader {
 public:
  ZstImageReader(std::unique_ptr<InputFile> in, std::vector<CompressedBlock> blocks)
      : BlockImageReader(std::move(in), Format::Zstd, std::move(blocks)) {}

 protected:
  void decode(std::size_t index, std::span<std::byte> out) const override {
    thread_local std::unique_ptr<ZSTD_DCtx, ZstDctxFree> dctx(ZSTD_createDCtx());
    if (!dctx) throw Error(ErrorKind::Io, "out of memory for the zstd decoder");
    std::vector<std::uint8_t> in = compressed(index);
    const std::size_t n = ZSTD_decompressDCtx(dctx.get(), out.data(), out.size(), in.data(), in.size());
    if (ZSTD_isError(n)) corrupt(index, ZSTD_getErrorName(n));
    if (n != out.size()) corrupt(index, fmt::format("it decodes to {} bytes, its header says {}", n, out.size()));
  }
};

}  // namespace

std::unique_ptr<ImageReader> make_zst_reader(std::unique_ptr<InputFile>& in) {
  ZstWindow w(*in);
  std::vector<CompressedBlock> frames = zst_seek_table(*in, w);
  if (frames.empty()) frames = zst_walk(*in, w);
  if (frames.size() <= 1) return nullptr;
  return std::make_unique<ZstImageReader>(std::move(in), std::move(frames));
}

}  // namespace piprov::image
