#pragma once
// A random-access view of an image's decoded bytes (issue 27): any byte range
// of the disk image inside IMAGE, whatever its format, without decoding the
// rest. Raw files are read with pread; an .xz with more than one block
// through its index (xz-file-format.txt 4 and 6: the index lists each block's
// compressed and uncompressed size; liblzma lzma_index_iter_locate,
// lzma_block_decoder, which verifies the block's CRC32/CRC64/SHA-256); a .zst
// with more than one frame through its frame headers (RFC 8878 3.1.1,
// Frame_Content_Size) or zstd's seekable-format seek table. Formats whose
// blocks cannot be decoded alone (gzip, bzip2, lz4, zip, single-block xz,
// single-frame zst) are sequential: read_at() still works (decoding forward
// from the start, restarting on a backward read) and sequential_note() says so.
//
// THIS HEADER IS THE CONTRACT between the write path (image/) and the
// readers of an image's file systems (boot check IMAGE, provision --dry-run,
// the image's cloud-init). Change it only together with both.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "image/scan.hpp"
#include "image/source.hpp"

namespace piprov::image {

/// What a reader has decoded so far (for summaries and --json).
struct ReaderStats {
  std::uint64_t blocks_total = 0;    ///< independently decodable units (xz blocks, zst frames; 0 for raw)
  std::uint64_t blocks_decoded = 0;  ///< units decoded at least once
  std::uint64_t bytes_decoded = 0;   ///< decoded bytes produced (a unit decoded twice counts twice)
};

/// What a reader of an image of `image_bytes` (its decoded size; 0 = unknown) read, for a summary
/// line: "read 512.0 MiB" (raw), "12 of 81 blocks decoded, 52.0 MiB", and when a unit was decoded
/// again (going back within an xz block, a zstd frame or a gzip stream starts it over) "1 of 1
/// blocks decoded, 741.1 MiB in all: more than the 513.0 MiB image, as going back within a block
/// decodes it again from its start".
std::string reader_stats_text(const ReaderStats& s, std::uint64_t image_bytes);

/// Random access to the decoded image. Thread-safe: read_at() may be called
/// from several threads at once (each decode runs on the caller's thread).
class ImageReader {
 public:
  virtual ~ImageReader() = default;
  ImageReader() = default;
  ImageReader(const ImageReader&) = delete;
  ImageReader& operator=(const ImageReader&) = delete;

  /// Decoded size of the image in bytes.
  virtual std::uint64_t size() const = 0;
  /// Fills `out` with decoded bytes [offset, offset + out.size()); the range
  /// must lie within size() (else Error{Usage}). Throws ErrorAt{Io}
  /// (image/target.hpp; exit 3, issue 27) "IMAGE is corrupt: block N (decoded
  /// bytes A-B, ...)" at decoded offset A when a block does not decode or its
  /// check fails, Error{Io} on read errors, Error{Interrupted} on Ctrl-C; a
  /// sequential reader throws what its Source throws.
  virtual void read_at(std::span<std::byte> out, std::uint64_t offset) = 0;
  /// The image's first out.size() bytes (fewer when it is shorter); returns how
  /// many. Unlike read_at(), a sequential reader whose format does not say its
  /// size decodes only these bytes, not the whole image to learn it. Throws as read_at().
  virtual std::size_t read_head(std::span<std::byte> out) {
    const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(out.size(), size()));
    read_at(out.first(n), 0);
    return n;
  }
  /// The decoded ranges of the independently decodable units, in order
  /// (one range covering everything for a sequential reader; for raw files,
  /// one range too: any byte is cheap).
  virtual std::vector<ByteRange> blocks() const = 0;
  /// True when a block can be decoded without the ones before it.
  virtual bool random_access() const = 0;
  /// One line saying why the reader is sequential and what that costs
  /// ("gzip is sequential: every byte before a range is decoded to read it");
  /// "" when random_access().
  virtual std::string sequential_note() const = 0;
  virtual Format format() const = 0;
  /// Bytes of IMAGE itself (the compressed file's size; the raw image's size).
  virtual std::uint64_t input_bytes() const = 0;
  virtual ReaderStats stats() const = 0;
  /// Frees the decoded blocks kept for partial reads (the block cache), e.g.
  /// once the metadata reads are done and only whole blocks follow. Later
  /// reads still work. (Added by the write path; a no-op where nothing is kept.)
  virtual void drop_cache() {}
};

/// Opens IMAGE (format by magic, as open_source()). `threads`: decoder
/// threads for bulk reads (0 = online CPUs). Throws Error{Usage} (missing,
/// empty, unsupported, corrupt index), Error{Io}.
std::unique_ptr<ImageReader> open_image_reader(const std::string& path, unsigned threads = 0);

}  // namespace piprov::image
