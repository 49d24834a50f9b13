#pragma once
// The free-space filter of `piprov write` (issue 20; docs/write.md "Free
// space"): one pipeline, one decode. The decoder thread hands each decoded
// buffer to SkipFilter::decide() before any writer sees it; decide() reads
// the partition table and file system metadata out of the stream and records
// in the WriteMap which bytes of that buffer are free space (not written).
// The writers, the chunk hasher and verify then ask the WriteMap, which
// never changes for a buffer once it is published. Only ranges a file
// system says are free are skipped: partition tables, gaps, unknown or
// damaged file systems, metadata and the first MiB are always written.
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "image/partition_table.hpp"
#include "image/scan.hpp"

namespace piprov::image {

/// A free range shorter than this (after aligning it to 4096 bytes) is
/// written: small holes would split the writes into small ones.
inline constexpr std::uint64_t kMinSkipBytes = 256u << 10;

/// Decisions are made per window of this many bytes, from the metadata that
/// streamed by before the window began, so they do not depend on the
/// buffer sizes of the caller (a later `piprov verify` skips what the write skipped).
inline constexpr std::uint64_t kDecideWindow = 64u << 10;

/// The skip decisions of one write: ranges of the stream not written, in
/// stream order. Thread-safe: decide() appends, the writers read.
class WriteMap {
 public:
  /// Appends a range (begin >= the last end; touching ranges are merged).
  void add(ByteRange r);
  /// The skipped ranges within [offset, offset + len), clipped to it.
  std::vector<ByteRange> skipped_in(std::uint64_t offset, std::uint64_t len) const;
  /// Every skipped range (sorted, non-overlapping).
  std::vector<ByteRange> all() const;
  std::uint64_t skipped_bytes() const;

 private:
  mutable std::mutex m_;
  std::vector<ByteRange> ranges_;
  std::uint64_t bytes_ = 0;
};

/// What the filter did in one partition.
struct PartitionSkip {
  unsigned number = 0;       ///< 1-based
  std::string type;          ///< "0x83" or a GPT type GUID
  std::string fs;            ///< "ext4", "vfat", ... ("" when not read)
  std::string label;         ///< volume label ("" when none)
  std::uint64_t offset = 0;  ///< bytes from the start of the image
  std::uint64_t size = 0;
  std::uint64_t skipped_bytes = 0;
  std::string full_reason;  ///< why it was written in full ("" when its free space was skipped)
};

class SkipFilter {
 public:
  /// A filter that learns the file systems of `table` (the image's, read once:
  /// read_partition_table()) from the stream (decide()): sequential formats.
  explicit SkipFilter(const PartitionTable& table);
  /// A filter that reads every file system's allocation maps of `table`
  /// first, through `read` (a random-access reader: issue 27), so map() is
  /// complete when it returns and decide() is not called. A table with a
  /// partition past `image_size` is not used (note()). Throws what `read` throws.
  SkipFilter(const ReadAtFn& read, std::uint64_t image_size, const PartitionTable& table);
  ~SkipFilter();
  SkipFilter(const SkipFilter&) = delete;
  SkipFilter& operator=(const SkipFilter&) = delete;
  /// Records which of the next decoded bytes (stream order, offset = bytes
  /// before) are free in map(), then reads the metadata it needs from them.
  /// A byte is free when the metadata that says so came before its
  /// kDecideWindow window. Call on the decoder thread, before the buffer is
  /// handed to the writers.
  void decide(std::span<const std::byte> data, std::uint64_t offset);
  const WriteMap& map() const { return map_; }
  /// Per partition, once the stream has ended. Empty without a usable table.
  std::vector<PartitionSkip> partitions() const;
  /// Why the image as a whole was written in full ("no partition table",
  /// "partition 2 overlaps the next one"); "" when partitions were read.
  std::string note() const;

 private:
  void use_table(const PartitionTable& table);
  void plan_window(std::uint64_t begin);
  /// Free ranges of a file system as skipped: whole 4 KiB blocks, past the
  /// first MiB, at least kMinSkipBytes; `fn` gets each one.
  void for_each_skippable(const std::vector<ByteRange>& free, std::uint64_t begin, std::uint64_t end,
                          const std::function<void(ByteRange)>& fn) const;
  std::unique_ptr<Capture> cap_;
  StreamCapture* stream_ = nullptr;  ///< cap_ when learning from the stream
  PartitionTable table_;
  std::vector<std::unique_ptr<FsScan>> scans_;  ///< per table_.parts entry (null: not a file system piprov reads)
  WriteMap map_;
  std::vector<ByteRange> window_;  ///< the free ranges of the current window
  bool window_valid_ = false;
};

/// The summary line: "wrote 1.2 GiB of 3.5 GiB; skipped 2.3 GiB free in
/// writable, 200.0 MiB in system-boot", then "partition 3: ...: written in
/// full" for each partition that was not read. `full` (--full): "wrote every
/// byte (--full)".
std::string skip_summary(bool full, std::uint64_t image_bytes, std::uint64_t skipped,
                         const std::vector<PartitionSkip>& parts, const std::string& note);

}  // namespace piprov::image
