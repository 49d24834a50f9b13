#pragma once
// The compressed output of `piprov backup` (issue 28): OUT's name picks the
// format, and the compressed formats are written in independent units so
// that `piprov write` of the backup decodes only what it writes (its image
// reader: image/image_reader.hpp).
//  - .img.xz: liblzma's multi-threaded encoder (lzma_stream_encoder_mt) in
//    blocks of unit_bytes_for(); each block's sizes go into the index
//    (xz-file-format.txt 3.1 and 4).
//  - .img.zst: one zstd frame per unit_bytes_for(), each with its content size
//    in the frame header (RFC 8878 3.1.1), compressed on `threads` threads.
//  - .img.gz: one gzip member (RFC 1952), sequential: gzip has no index.
//  - .img: raw; chunks of zeros become holes (a sparse file, lseek(2) SEEK_SET past the end).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "core/hashing.hpp"

namespace piprov::keep {

enum class OutFormat { Raw, Xz, Zstd, Gzip };

/// "raw", "xz", "zstd", "gzip".
std::string out_format_name(OutFormat f);

/// The format OUT's name asks for: ".img" raw, ".img.xz", ".img.zst", ".img.gz" (a disk image,
/// as tools that list images by name expect; a bare ".xz" is refused: docs/keep.md). Throws
/// Error{Usage} for any other name, listing these (one of them in another case: "did you mean
/// B.img.xz?", as xz and zstd take only lower-case suffixes), and for a file name that is only
/// the extension ("bk/.img": a hidden file with no name).
OutFormat out_format_for(const std::string& out);

/// The size of one independent unit (xz block, zstd frame) for a disk of
/// `disk_bytes`: 1/64 of it rounded down to a MiB, between 1 and 8 MiB (a
/// write of the backup then decodes at most one unit more per written range,
/// and a small disk still has units wholly in free space).
std::size_t unit_bytes_for(std::uint64_t disk_bytes);

/// Where the encoded bytes go: a file descriptor written sequentially, its
/// bytes counted and hashed (SHA-256 for the OUT.sha256 line).
class OutSink {
 public:
  OutSink(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  /// Appends `data`. Throws Error{Io} "writing OUT: No space left on device" etc.
  void write(std::span<const std::byte> data);
  /// Leaves a hole of `len` zero bytes (raw output), hashed as zeros.
  void hole(std::uint64_t len);
  /// Sets the file's size to what was written (a hole at the end) and fsyncs it.
  void finish();
  std::uint64_t bytes() const { return bytes_; }
  std::string sha256() { return sha_.hex(); }
  const std::string& path() const { return path_; }

 private:
  int fd_;
  std::string path_;
  std::uint64_t bytes_ = 0;
  Sha256 sha_;
};

/// Encodes the disk's bytes, in order, into an OutSink.
class Encoder {
 public:
  virtual ~Encoder() = default;
  Encoder() = default;
  Encoder(const Encoder&) = delete;
  Encoder& operator=(const Encoder&) = delete;
  /// The next bytes of the disk. Throws Error{Io} (from the sink), Error{Io} on an encoder error.
  virtual void write(std::span<const std::byte> data) = 0;
  /// The next `len` bytes are zeros (free space). `zeros` is a buffer of at least `len` zero bytes.
  virtual void zeros(std::span<const std::byte> zeros) { write(zeros); }
  /// Flushes the encoder; the sink then holds a complete file.
  virtual void finish() = 0;
  /// Seconds the caller spent inside write()/zeros()/finish() (compressing and writing).
  double busy_seconds() const { return busy_; }
  /// Encoder threads in use.
  virtual unsigned threads() const { return 1; }

 protected:
  double busy_ = 0;
};

/// The encoder for `f`. `threads`: 0 = online CPUs (xz, zstd; gzip and raw
/// use one); `unit_bytes`: xz block / zstd frame size (unit_bytes_for()).
std::unique_ptr<Encoder> make_encoder(OutFormat f, OutSink& sink, unsigned threads, std::size_t unit_bytes);

}  // namespace piprov::keep
