#pragma once
// Reading a byte range of a target back at device speed: several O_DIRECT
// reads in flight on reader threads (a queue depth the device can overlap,
// as fio's psync engine with numjobs does), handed to one consumer in order
// while the next ones are read. The engine of verify's read-back; a caller
// with a list of ranges calls read_range() once per range.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>

#include "image/target.hpp"

namespace piprov::image {

/// How read_range() reads. Sizes in bytes.
struct ReadPlan {
  std::size_t read_bytes = 4u << 20;  ///< one request (a multiple of the logical block); the consumer's piece size
  unsigned depth = 4;                 ///< reads in flight (reader threads); 1 = one at a time, as dd does
};

/// Seconds read_range() spent waiting, per side.
struct RangeWaits {
  double for_device = 0;    ///< the consumer had no piece read yet (the device is the limit)
  double for_consumer = 0;  ///< the readers had no free buffer, averaged per reader (the consumer is the limit)
};

/// Receives, on the calling thread and in order, each piece of the range:
/// `data` holds the device's bytes at byte `offset` (the last piece may be short).
using RangeConsumer = std::function<void(std::span<const std::byte> data, std::uint64_t offset)>;

/// Reads bytes [offset, offset + len) of the target open as `fd` (from
/// open_target_for_read(); `offset` a multiple of t.logical_block, the end is
/// read rounded up to it) in pieces of plan.read_bytes, plan.depth of them in
/// flight, calling `consume` for each piece in order while later ones are read.
/// Memory: (depth + 1) * read_bytes. Throws Error{Io} "reading DEV back at byte
/// offset N failed: ..." (errno), Error{Verify} "DEV ends at byte offset N ...,
/// before the image does" when the target is shorter, Error{Interrupted} on
/// Ctrl-C, or what `consume` throws (the readers are stopped first).
RangeWaits read_range(int fd, const TargetInfo& t, std::uint64_t offset, std::uint64_t len,
                      const RangeConsumer& consume, const ReadPlan& plan = {});

/// One synchronous read of `len` bytes at byte `offset` into `buf` (O_DIRECT:
/// the request is rounded up to t.logical_block, at most buf.size()). Returns the
/// bytes available, < len when the target ends. Throws Error{Io} as read_range().
std::size_t read_target_at(int fd, const TargetInfo& t, std::span<std::byte> buf, std::size_t len,
                           std::uint64_t offset);

/// Throws Error{Verify} "DEV ends at byte offset N (size), before the image does".
[[noreturn]] void throw_target_too_short(const TargetInfo& t, std::uint64_t at);

}  // namespace piprov::image
