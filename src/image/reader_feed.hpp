#pragma once
// The data path of a write (and of verify) from a random-access image reader
// (issue 27 item 2, docs/write.md "Decoding only what is written"): the
// blocks that overlap a range to be written are decoded in parallel, ahead
// of the writers, on `threads` decoder threads, and handed out in disk
// order; a block wholly in skipped free space is never decoded. Memory is
// bounded: at most kFeedAheadBytes of decoded blocks, or one block per
// thread when blocks are larger, wait for the writers.
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "image/image_reader.hpp"
#include "image/skip_filter.hpp"

namespace piprov::image {

/// Decoded bytes the decoder threads may hold ahead of the writers.
inline constexpr std::uint64_t kFeedAheadBytes = 32u << 20;

/// What a feed decoded and what it left alone.
struct FeedStats {
  std::uint64_t units = 0;              ///< decodable units of the image (xz blocks, zst frames, 4 MiB of a raw file)
  std::uint64_t units_decoded = 0;      ///< decoded (they overlap a range written or compared)
  std::uint64_t bytes_decoded = 0;      ///< their decoded bytes
  std::uint64_t units_not_decoded = 0;  ///< wholly in skipped free space
  std::uint64_t bytes_not_decoded = 0;  ///< their decoded bytes
};

/// "decoded 150 of 412 xz blocks (146.3 MiB); 262 blocks (255.8 MiB) wholly
/// in free space not decoded" (raw: "read ... 4 MiB pieces ... not read").
std::string feed_summary(const FeedStats& s, Format f);

class ReaderFeed {
 public:
  /// `skip`: the complete free-space map (nullptr: every byte is needed,
  /// --full). `threads`: decoder threads (0 = online CPUs). `ahead_bytes`:
  /// the look-ahead budget in decoded bytes (tests give a small one). Drops
  /// the reader's block cache (the metadata reads are done), then starts decoding.
  ReaderFeed(ImageReader& reader, const WriteMap* skip, unsigned threads, std::uint64_t ahead_bytes = kFeedAheadBytes);
  ~ReaderFeed();
  ReaderFeed(const ReaderFeed&) = delete;
  ReaderFeed& operator=(const ReaderFeed&) = delete;

  /// Fills `buf` with the image's bytes at `offset` (calls in increasing
  /// order, each starting where the last ended), skipped free space as
  /// zeros, and returns how many (less than buf.size() only at the end). A
  /// buffer wholly in skipped free space past the first MiB is left as it
  /// is (wholly_skipped() says so: it goes to the writers without its
  /// bytes). Throws what the reader threw for a block in it (a corrupt
  /// block: ErrorAt{Io} naming its decoded offset), Error{Interrupted}.
  std::size_t fill(std::span<std::byte> buf, std::uint64_t offset);
  /// True when [offset, offset + len) lies wholly in skipped free space past the first MiB.
  bool wholly_skipped(std::uint64_t offset, std::uint64_t len) const;
  /// Decoder threads in use.
  unsigned threads() const { return nworkers_; }
  FeedStats stats() const { return stats_; }

 private:
  struct Slot {
    std::vector<std::byte> data;
    std::exception_ptr error;
    bool ready = false;
  };
  void work();
  /// Waits for unit `u` (an index into need_) and returns it.
  Slot& wait_for(std::size_t u);
  void release_before(std::size_t u);

  ImageReader& reader_;
  const WriteMap* skip_;
  std::uint64_t size_;
  std::uint64_t budget_;           ///< look-ahead budget, decoded bytes
  std::vector<ByteRange> units_;   ///< every unit of the image, in order
  std::vector<std::size_t> need_;  ///< indices of units_ to decode, in order
  FeedStats stats_;
  std::mutex m_;
  std::condition_variable cv_;
  std::map<std::size_t, Slot> slots_;  ///< by index into need_: decoding or decoded, not yet consumed
  std::size_t next_ = 0;               ///< the next index into need_ a thread takes
  std::size_t consumed_ = 0;           ///< need_ indices below this were handed out
  std::uint64_t ahead_bytes_ = 0;      ///< decoded bytes held in slots_
  bool stop_ = false;
  unsigned nworkers_ = 0;  ///< decoder threads (set before they start; workers_ grows while they run)
  std::vector<std::thread> workers_;
};

}  // namespace piprov::image
