#pragma once
// Free-space scanning of a decoded image (issues 20 and 27): the pieces
// shared by the partition table, ext2/3/4 and FAT readers and the skip
// filter. A reader asks a Capture for the byte ranges it needs (a
// superblock, group descriptors, bitmaps, a FAT) and is called back with
// them. Two captures serve them: ReaderCapture reads them at once through a
// random-access image reader (the free map is complete before any data is
// decoded); StreamCapture serves them from a stream read once, front to
// back, when the stream has passed them (sequential formats). What a reader learns
// applies only to bytes not yet handed to the writers, so metadata must come
// before the blocks it describes (it does, in every layout mke2fs and
// mkfs.vfat make); anything else is written.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace piprov::image {

/// Bytes [begin, end) of the image stream.
struct ByteRange {
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
  std::uint64_t size() const { return end - begin; }
  bool operator==(const ByteRange&) const = default;
};

/// Calls fn(begin, end) for each piece of [offset, offset + len) not in
/// `skipped` (sorted, non-overlapping), in order.
void for_each_written(std::uint64_t offset, std::uint64_t len, const std::vector<ByteRange>& skipped,
                      const std::function<void(std::uint64_t begin, std::uint64_t end)>& fn);

/// Bytes of `skipped` (sorted, non-overlapping) inside [begin, end).
std::uint64_t bytes_within(const std::vector<ByteRange>& skipped, std::uint64_t begin, std::uint64_t end);

/// Where the file system readers get the bytes they ask for.
class Capture {
 public:
  /// Called with the bytes of a completed request (size = the len asked for).
  using Done = std::function<void(std::vector<std::byte>&& data)>;
  virtual ~Capture() = default;
  Capture() = default;
  Capture(const Capture&) = delete;
  Capture& operator=(const Capture&) = delete;
  /// Asks for [offset, offset + len). Returns false when it can never be
  /// served (it has already streamed by: the caller must not rely on it);
  /// `done` runs later, never from within request(). A range past the end
  /// of the image is never served.
  virtual bool request(std::uint64_t offset, std::size_t len, Done done) = 0;
};

/// Reads `out.size()` bytes at byte `offset` of the decoded image (throws as ImageReader::read_at()).
using ReadAtFn = std::function<void(std::span<std::byte> out, std::uint64_t offset)>;

/// Serves requests by reading them (a random-access reader): run() answers
/// every request, including those the callbacks make, in the order asked.
class ReaderCapture final : public Capture {
 public:
  ReaderCapture(ReadAtFn read, std::uint64_t image_size) : read_(std::move(read)), size_(image_size) {}
  bool request(std::uint64_t offset, std::size_t len, Done done) override;
  /// Answers the requests until none is left. Throws what `read` throws.
  void run();

 private:
  struct Req {
    std::uint64_t offset;
    std::size_t len;
    Done done;
  };
  ReadAtFn read_;
  std::uint64_t size_;
  std::vector<Req> queue_;
};

/// Collects byte ranges of a stream fed to it in order.
class StreamCapture final : public Capture {
 public:
  /// Asks for [offset, offset + len). Returns false when part of it has
  /// already streamed by (the caller must not rely on it); `done` runs from
  /// feed() once the last byte has passed. During a feed() callback, ranges
  /// starting in the data being fed are still served.
  bool request(std::uint64_t offset, std::size_t len, Done done) override;
  /// The next bytes of the stream (offset = bytes fed before). Runs the
  /// callbacks of the requests it completes.
  void feed(std::span<const std::byte> data, std::uint64_t offset);
  /// Requests still waiting for bytes.
  std::size_t pending() const { return pending_.size(); }

 private:
  struct Req {
    std::uint64_t offset;
    std::vector<std::byte> data;
    std::uint64_t have_until;  ///< stream offset up to which data is filled
    Done done;
  };
  std::vector<Req> pending_;
  std::uint64_t floor_ = 0;  ///< the first stream offset still to come (or being fed)
};

/// One file system of the image, learning its free space as the stream passes.
class FsScan {
 public:
  virtual ~FsScan() = default;
  FsScan() = default;
  FsScan(const FsScan&) = delete;
  FsScan& operator=(const FsScan&) = delete;
  /// After each feed: take in what was captured. Producer thread.
  virtual void update() = 0;
  /// Ranges known to be free (absolute stream offsets, sorted, non-overlapping).
  virtual const std::vector<ByteRange>& free_ranges() const = 0;
  /// Why nothing of it may be skipped ("" while it is read with certainty).
  virtual const std::string& failure() const = 0;
  /// "ext4", "ext3", "ext2", "vfat" (FAT12/16/32).
  virtual std::string type() const = 0;
  /// The volume label ("" when none).
  virtual std::string label() const = 0;
};

}  // namespace piprov::image
