#pragma once
// Writes the image stream to an opened target: aligned O_DIRECT writes (the
// final partial block padded; files truncated back), the first MiB held back
// and written last so an interrupted write never leaves a disk that looks
// bootable (as rpi-imager does: it zeroes the first and last MiB first).
#include <cstdint>
#include <string>

#include "core/fd.hpp"
#include "image/pipeline.hpp"
#include "image/scan.hpp"
#include "image/target.hpp"

namespace piprov::image {

class WriteMap;

/// Bytes at the start of the image written only after everything else is
/// written and synced: the MBR/GPT and boot code live there.
inline constexpr std::size_t kHeadBytes = 1u << 20;

class TargetWriter {
 public:
  /// Takes ownership of `fd` (from open_target_for_write).
  TargetWriter(const TargetInfo& t, UniqueFd fd, bool direct);
  ~TargetWriter();
  TargetWriter(const TargetWriter&) = delete;
  TargetWriter& operator=(const TargetWriter&) = delete;

  /// Skips the ranges `map` records (free space, issue 20): they are not
  /// written, and on a block device that supports it they are discarded
  /// (BLKDISCARD). nullptr (the default) writes every byte.
  void set_skip_map(const WriteMap* map) { map_ = map; }
  /// Zeroes the first MiB (and the last MiB of a disk, where a backup GPT
  /// lives), then fdatasync, so an old partition table cannot survive a failed write.
  void wipe_edges();
  /// Writes `len` stream bytes at `offset`. With O_DIRECT the final partial
  /// block is written padded: the buffer's bytes after `len` up to the next
  /// logical block must be zero (run_fanout() zeroes them; the buffer is shared
  /// by every target's writer and never modified).
  /// Throws Error{Io} "... at byte offset N: <strerror> (<ERRNO>)", or when the
  /// image does not fit ("device is full").
  void write(const AlignedBuffer& buf, std::size_t len, std::uint64_t offset);
  /// Discards what is pending, then fdatasync. Throws Error{Io}.
  void sync();
  /// Writes the held-back first MiB, fdatasync; files are truncated to
  /// `image_bytes`. Call after sync() and any checksum check.
  void commit_head(std::uint64_t image_bytes);
  /// Closes the fd (BLKRRPART is done on a fresh open afterwards).
  void close();

  std::uint64_t written() const { return written_; }
  /// Stream bytes not written because the skip map said they are free.
  std::uint64_t skipped() const { return skipped_; }
  /// Of those, bytes discarded on the device (0 for files, or without discard support).
  std::uint64_t discarded() const { return discarded_; }

 private:
  void pwrite_all(const std::byte* p, std::size_t n, std::uint64_t offset, std::size_t image_len);
  void put(const AlignedBuffer& buf, std::uint64_t buf_offset, std::uint64_t begin, std::uint64_t end);
  void discard(ByteRange r);
  void flush_discard();
  const TargetInfo& t_;
  UniqueFd fd_;
  bool direct_;
  AlignedBuffer head_;
  std::size_t head_len_ = 0;
  std::uint64_t written_ = 0;  ///< stream bytes accepted so far (incl. the held-back head)
  const WriteMap* map_ = nullptr;
  std::uint64_t skipped_ = 0, discarded_ = 0;
  ByteRange pending_discard_;
  bool discard_ok_ = true;
};

}  // namespace piprov::image
