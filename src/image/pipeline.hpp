#pragma once
// Two threads joined by a bounded queue of aligned buffers: a producer thread
// fills buffers (decoder, or device reader), the calling thread consumes them
// in order (writer, or comparer). Memory is bounded by count * capacity
// whatever the image size (peak RSS stays under 100 MiB).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>

namespace piprov::image {

/// Heap buffer aligned for O_DIRECT (4096 bytes, which covers every logical
/// block size Linux supports for I/O). Zero-initialised.
class AlignedBuffer {
 public:
  explicit AlignedBuffer(std::size_t capacity);
  ~AlignedBuffer();
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  std::byte* data() const { return data_; }
  std::size_t capacity() const { return capacity_; }
  std::span<std::byte> span() const { return {data_, capacity_}; }

 private:
  std::byte* data_ = nullptr;
  std::size_t capacity_ = 0;
};

/// Fills `buf` from the start; returns bytes stored (0 = end of data). Runs on
/// the producer thread. `offset` = stream offset of buf[0].
using ProduceFn = std::function<std::size_t(std::span<std::byte> buf, std::uint64_t offset)>;
/// Consumes `len` bytes at stream `offset`; the buffer's capacity is usable
/// (e.g. for padding to a block). Runs on the calling thread.
using ConsumeFn = std::function<void(AlignedBuffer& buf, std::size_t len, std::uint64_t offset)>;

/// Seconds each side of run_pipeline() spent blocked on the other.
struct PipelineWaits {
  double producer = 0;  ///< no free buffer: waiting for the consumer
  double consumer = 0;  ///< no filled buffer: waiting for the producer
};

/// Runs produce/consume until produce returns 0 or less than a full buffer
/// (the end). An exception on either side stops both; the first one is
/// rethrown here (the producer's when the consumer only saw the shutdown).
/// Returns the total bytes consumed; `waits` (when given) receives the wait times.
std::uint64_t run_pipeline(std::size_t buffers, std::size_t capacity, const ProduceFn& produce,
                           const ConsumeFn& consume, PipelineWaits* waits = nullptr);

}  // namespace piprov::image
