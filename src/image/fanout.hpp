#pragma once
// One producer, several consumers, each on its own thread: the decoder fills
// a bounded pool of aligned buffers once, and every consumer (one writer per
// target, the stream hasher) reads each buffer in order, read-only. A buffer
// goes back to the pool when every consumer still running has seen it, so
// memory is bounded by buffers * capacity whatever the image size and the
// number of targets. A consumer that throws is dropped (its error kept); the
// others go on. Wait times say who waited for whom (the write summary's
// "decode-bound" / "device-bound").
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <span>
#include <vector>

#include "image/pipeline.hpp"

namespace piprov::image {

/// Consumes `len` bytes at stream `offset` of a shared buffer (read-only: the
/// bytes after `len` up to the next 4096 are zero, so O_DIRECT writers can
/// pad without touching the buffer). Runs on the consumer's own thread. For a
/// range the producer marked as needing no data (see run_fanout()) `buf` is
/// empty (capacity() 0): only `len` and `offset` mean anything.
using FanoutConsumeFn = std::function<void(const AlignedBuffer& buf, std::size_t len, std::uint64_t offset)>;

/// After `produce` filled a buffer with `bytes` at stream `offset`: true
/// when no consumer needs them (free space a write skips, all zeros). Runs on
/// the producer thread.
using NoDataFn = std::function<bool(std::span<const std::byte> bytes, std::uint64_t offset)>;

/// What run_fanout() measured and how each consumer ended.
struct FanoutResult {
  std::uint64_t total = 0;             ///< bytes the producer delivered
  double producer_waited_seconds = 0;  ///< producer blocked: no free buffer (waiting for the slowest consumer)
  std::vector<double>
      consumer_waited_seconds;  ///< per consumer: blocked with no filled buffer (waiting for the producer)
  std::vector<std::exception_ptr> consumer_errors;  ///< per consumer: what it threw (null = consumed everything)
};

/// Runs `produce` on the calling thread and each of `consumers` on its own
/// thread until produce returns less than a full buffer (the end). A consumer
/// that throws is dropped; when all are dropped the producer stops. A
/// producer exception stops everyone and is rethrown here after all threads
/// joined (consumer errors are in the result only when the producer did not
/// fail).
/// `no_data` (optional): a range it accepts goes to the consumers without its
/// buffer, which returns to the pool at once, so the producer can decode on
/// through free space while the consumers still write the data before it
/// (the slots of such ranges hold no memory).
FanoutResult run_fanout(std::size_t buffers, std::size_t capacity, const ProduceFn& produce,
                        const std::vector<FanoutConsumeFn>& consumers, const NoDataFn& no_data = {});

}  // namespace piprov::image
