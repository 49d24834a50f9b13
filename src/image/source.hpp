#pragma once
// Sources: pull the uncompressed image bytes out of IMAGE, whatever its
// format. Format is detected from the first bytes (magic numbers), not the
// extension. .xz goes through liblzma's multi-threaded
// decoder; gz/bz2/zst/lz4 and a .zip holding one image through libarchive;
// anything else that is not a known archive/compressor is a raw image.
// Magic numbers: xz "FD 37 7A 58 5A 00" (xz-file-format.txt 2.1.1.1),
// gzip "1F 8B" (RFC 1952), bzip2 "BZh", zstd "28 B5 2F FD" (RFC 8878),
// lz4 frame "04 22 4D 18", zip "PK\3\4".
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "core/fd.hpp"
#include "core/hashing.hpp"

namespace piprov::image {

enum class Format { Raw, Xz, Gzip, Bzip2, Zstd, Lz4, Zip };

/// "raw", "xz", "gzip", "bzip2", "zstd", "lz4", "zip".
std::string to_string(Format f);

/// What a write tells of IMAGE before decoding it: its format and decoded
/// size in bytes (nullopt when the format does not say: gzip, bzip2, lz4,
/// a single-frame .zst without a content size). From the Source, or from a
/// random-access ImageReader (image_reader.hpp) when no Source is opened.
struct ImageShape {
  Format format = Format::Raw;
  std::optional<std::uint64_t> size;
};

/// Format from the first bytes of a file. Throws Error{Usage} for formats
/// piprov cannot write (7z, rar, lzip, legacy .lzma, tar, ...), naming them.
Format detect_format(std::span<const std::byte> head, const std::string& path);

/// The IMAGE file as read sequentially by a decoder: counts bytes and,
/// when asked, feeds them to SHA-256 (the checksum published for the
/// compressed file). Throws Error{Io} naming the file on read errors.
class InputFile {
 public:
  InputFile(const std::string& path, bool sha256);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  /// Reads up to out.size() bytes; 0 at end of file. Retries EINTR unless cancelled.
  std::size_t read(std::span<std::byte> out);
  /// Moves the read position (libarchive's seekable zip reader). A seek
  /// that breaks sequential order makes finish_sha256() re-read the file.
  std::uint64_t seek(std::uint64_t pos);
  /// Reads (and hashes) whatever a decoder left unread, then returns the hex
  /// SHA-256 of the whole file ("" when not hashing).
  std::string finish_sha256();
  std::uint64_t size() const { return size_; }
  std::uint64_t consumed() const { return consumed_.load(std::memory_order_relaxed); }
  const std::string& path() const { return path_; }
  int fd() const { return fd_.get(); }

 private:
  std::string path_;
  UniqueFd fd_;
  std::uint64_t size_ = 0;
  std::atomic<std::uint64_t> consumed_{0};  ///< current read position (read by the progress thread)
  std::unique_ptr<Sha256> sha_;
  bool hash_wanted_ = false;
  bool sequential_ = true;
};

/// Uncompressed bytes of an image, read front to back once.
class Source {
 public:
  virtual ~Source() = default;
  /// Fills `out` completely unless the image ends first; returns bytes stored
  /// (0 = end). Throws Error{Usage} for corrupt/truncated data ("IMAGE is
  /// corrupt: ..."), Error{Io} for read errors, Error{Interrupted} on Ctrl-C.
  virtual std::size_t read_full(std::span<std::byte> out) = 0;
  /// Uncompressed size when known before decoding (raw file size, xz index,
  /// zip entry header); nullopt when the format does not say.
  virtual std::optional<std::uint64_t> size() const = 0;
  /// Decoder threads in use (1 unless xz MT).
  virtual unsigned threads() const { return 1; }
  /// Blocks in the .xz index (lzma_index_block_count); 0 for other formats.
  virtual std::uint64_t blocks() const { return 0; }
  Format format() const { return format_; }
  InputFile& input() { return *input_; }

 protected:
  Source(Format f, std::unique_ptr<InputFile> in) : format_(f), input_(std::move(in)) {}
  Format format_;
  std::unique_ptr<InputFile> input_;
};

/// Opens IMAGE, detects its format and returns the matching decoder.
/// `threads`: xz decoder threads (0 = online CPUs). `sha256`: hash the file.
/// Throws Error{Usage} (missing, empty, unsupported, zip without exactly one
/// file), Error{Io}.
std::unique_ptr<Source> open_source(const std::string& path, unsigned threads, bool sha256);

// Decoders (one file each), used by open_source().
std::unique_ptr<Source> make_xz_source(std::unique_ptr<InputFile> in, unsigned threads);
std::unique_ptr<Source> make_archive_source(std::unique_ptr<InputFile> in, Format f);

}  // namespace piprov::image
