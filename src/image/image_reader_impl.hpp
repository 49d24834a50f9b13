#pragma once
// The pieces the image readers share (image_reader*.cpp only): the reader of
// independently decodable blocks with its small LRU cache, and the format
// back ends (xz blocks, zst frames, sequential decoders).
#include <lzma.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "image/image_reader.hpp"
#include "image/source.hpp"

namespace piprov::image {

/// One independently decodable unit: its decoded bytes and where its
/// compressed bytes lie in IMAGE.
struct CompressedBlock {
  ByteRange out;                ///< decoded bytes [begin, end) of the image
  std::uint64_t in_offset = 0;  ///< byte offset of the compressed unit in IMAGE
  std::uint64_t in_size = 0;    ///< its compressed bytes (header, data, padding, check)
};

/// Most decoded bytes the block cache keeps (at least one block is kept).
inline constexpr std::uint64_t kReaderCacheBytes = 32u << 20;

/// A reader over blocks that decode alone. read_at() decodes a block wholly
/// asked for straight into the caller's buffer; a block read in part goes
/// through the LRU cache. Thread-safe: decoding runs outside the lock.
class BlockImageReader : public ImageReader {
 public:
  std::uint64_t size() const override { return size_; }
  void read_at(std::span<std::byte> out, std::uint64_t offset) override;
  std::vector<ByteRange> blocks() const override;
  bool random_access() const override { return true; }
  std::string sequential_note() const override { return ""; }
  Format format() const override { return format_; }
  std::uint64_t input_bytes() const override { return in_->size(); }
  ReaderStats stats() const override;
  void drop_cache() override;

 protected:
  BlockImageReader(std::unique_ptr<InputFile> in, Format f, std::vector<CompressedBlock> blocks);
  /// Decodes block `index` into `out` (exactly its decoded size). Throws
  /// what corrupt() builds, Error{Io} on read errors.
  virtual void decode(std::size_t index, std::span<std::byte> out) const = 0;
  /// The compressed bytes of block `index` (pread). Throws Error{Io}.
  std::vector<std::uint8_t> compressed(std::size_t index) const;
  /// ErrorAt{Io} "IMAGE is corrupt: block N (decoded bytes A-B, compressed
  /// byte offset C): WHY; download it again", at decoded offset A.
  [[noreturn]] void corrupt(std::size_t index, const std::string& why) const;
  const std::vector<CompressedBlock>& units() const { return blocks_; }
  const std::string& path() const { return in_->path(); }

 private:
  void decode_counted(std::size_t index, std::span<std::byte> out) const;
  std::shared_ptr<const std::vector<std::byte>> cached(std::size_t index) const;

  std::unique_ptr<InputFile> in_;
  Format format_;
  std::vector<CompressedBlock> blocks_;
  std::uint64_t size_ = 0;
  mutable std::mutex m_;
  mutable std::list<std::pair<std::size_t, std::shared_ptr<const std::vector<std::byte>>>> lru_;  ///< front = newest
  mutable std::uint64_t cache_bytes_ = 0;
  mutable std::vector<std::uint8_t> seen_;  ///< per block: decoded at least once
  mutable std::atomic<std::uint64_t> decoded_blocks_{0}, decoded_bytes_{0};
};

/// The .xz index of `in` (every stream's, combined; lzma_file_info_decoder,
/// seeking with pread). The caller frees it with lzma_index_end(). Throws
/// Error{Usage} when the index cannot be read (truncated or corrupt file).
lzma_index* read_xz_index(const InputFile& in);

/// The xz reader when IMAGE has more than one block, else nullptr.
std::unique_ptr<ImageReader> make_xz_reader(std::unique_ptr<InputFile>& in);
/// The zst reader when IMAGE has more than one frame, all with a known
/// content size (or a seek table), else nullptr.
std::unique_ptr<ImageReader> make_zst_reader(std::unique_ptr<InputFile>& in);
/// The raw reader (pread).
std::unique_ptr<ImageReader> make_raw_reader(std::unique_ptr<InputFile> in);
/// The sequential reader over open_source()'s decoder; `why` is its sequential_note().
std::unique_ptr<ImageReader> make_sequential_reader(const std::string& path, unsigned threads, Format f,
                                                    std::string why);

}  // namespace piprov::image
