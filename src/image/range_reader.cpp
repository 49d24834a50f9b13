#include "image/range_reader.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "core/cancel.hpp"
#include "core/error.hpp"
#include "core/file.hpp"
#include "core/units.hpp"
#include "image/pipeline.hpp"

namespace piprov::image {
namespace {

using Clock = std::chrono::steady_clock;

/// One buffer of the ring: piece i of the range lives in slot i % slots.size().
struct RangeSlot {
  std::unique_ptr<AlignedBuffer> buf;
  std::uint64_t piece = 0;  ///< the piece it holds, or may hold next
  bool filled = false;
  std::size_t len = 0;  ///< bytes available (< the piece's size: the target ended)
  std::exception_ptr error;
};

/// What the readers and the consumer share; `stop` ends the readers.
struct RangeRing {
  std::mutex m;
  std::condition_variable cv;
  std::vector<RangeSlot> slots;
  std::uint64_t next_piece = 0;  ///< the next piece a reader claims
  std::uint64_t pieces = 0;
  bool stop = false;
  double readers_waited = 0;
};

/// The geometry of one read_range() call.
struct RangeJob {
  int fd;
  const TargetInfo& t;
  std::uint64_t offset, len;
  std::size_t read_bytes;
  std::size_t piece_len(std::uint64_t i) const {
    return static_cast<std::size_t>(std::min<std::uint64_t>(read_bytes, len - i * read_bytes));
  }
};

/// A reader thread: claims the next piece, waits for its slot to be free,
/// reads it and marks it filled (an error is stored in the slot, in order).
void read_pieces(RangeRing& r, const RangeJob& job) {
  for (;;) {
    std::uint64_t i = 0;
    RangeSlot* slot = nullptr;
    {
      std::unique_lock lk(r.m);
      if (r.stop || r.next_piece >= r.pieces) return;
      i = r.next_piece++;
      slot = &r.slots[i % r.slots.size()];
      auto t0 = Clock::now();
      r.cv.wait(lk, [&] { return r.stop || (slot->piece == i && !slot->filled); });
      r.readers_waited += std::chrono::duration<double>(Clock::now() - t0).count();
      if (r.stop) return;
    }
    std::size_t got = 0;
    std::exception_ptr error;
    try {
      throw_if_cancelled("while verifying");
      got = read_target_at(job.fd, job.t, slot->buf->span(), job.piece_len(i), job.offset + i * job.read_bytes);
    } catch (...) {
      error = std::current_exception();
    }
    std::lock_guard lk(r.m);
    slot->len = got;
    slot->error = error;
    slot->filled = true;
    r.cv.notify_all();
    if (error) return;
  }
}

/// The reader threads, stopped and joined on every exit path.
struct RangeReaders {
  RangeRing& ring;
  std::vector<std::thread> threads;
  RangeReaders(RangeRing& r, const RangeJob& job, unsigned n) : ring(r) {
    threads.reserve(n);
    for (unsigned k = 0; k < n; ++k) threads.emplace_back([&r, &job] { read_pieces(r, job); });
  }
  RangeReaders(const RangeReaders&) = delete;
  RangeReaders& operator=(const RangeReaders&) = delete;
  ~RangeReaders() {
    {
      std::lock_guard lk(ring.m);
      ring.stop = true;
    }
    ring.cv.notify_all();
    for (auto& t : threads) t.join();
  }
};

}  // namespace

std::size_t read_target_at(int fd, const TargetInfo& t, std::span<std::byte> buf, std::size_t len,
                           std::uint64_t offset) {
  std::size_t want = std::min(buf.size(), (len + t.logical_block - 1) / t.logical_block * t.logical_block);
  FdResult r = read_fd_full(fd, buf.first(want), offset, [] { throw_if_cancelled("while verifying"); });
  if (r.err)
    throw Error(ErrorKind::Io, fmt::format("reading {} back at byte offset {} failed: {} ({})", t.path,
                                           offset + r.bytes, std::strerror(r.err), errno_name(r.err)));
  return std::min(r.bytes, len);
}

void throw_target_too_short(const TargetInfo& t, std::uint64_t at) {
  throw Error(ErrorKind::Verify,
              fmt::format("{} ends at byte offset {} ({}), before the image does", t.path, at, format_bytes(at)));
}

RangeWaits read_range(int fd, const TargetInfo& t, std::uint64_t offset, std::uint64_t len,
                      const RangeConsumer& consume, const ReadPlan& plan) {
  const RangeJob job{fd, t, offset, len, std::max<std::size_t>(plan.read_bytes, t.logical_block)};
  const unsigned depth = std::max(1u, plan.depth);
  RangeRing ring;
  ring.pieces = (len + job.read_bytes - 1) / job.read_bytes;
  ring.slots.resize(std::min<std::uint64_t>(depth + 1, std::max<std::uint64_t>(ring.pieces, 1)));
  for (std::size_t k = 0; k < ring.slots.size(); ++k) {
    ring.slots[k].buf = std::make_unique<AlignedBuffer>(job.read_bytes);
    ring.slots[k].piece = k;
  }
  RangeWaits w;
  {
    RangeReaders readers(ring, job, static_cast<unsigned>(std::min<std::uint64_t>(depth, ring.pieces)));
    for (std::uint64_t i = 0; i < ring.pieces; ++i) {
      RangeSlot& slot = ring.slots[i % ring.slots.size()];
      {
        std::unique_lock lk(ring.m);
        auto t0 = Clock::now();
        ring.cv.wait(lk, [&] { return slot.filled; });
        w.for_device += std::chrono::duration<double>(Clock::now() - t0).count();
      }
      if (slot.error) std::rethrow_exception(slot.error);
      const std::uint64_t at = offset + i * job.read_bytes;
      if (slot.len < job.piece_len(i)) throw_target_too_short(t, at + slot.len);
      consume(std::span<const std::byte>(slot.buf->data(), slot.len), at);
      std::lock_guard lk(ring.m);
      slot.filled = false;
      slot.piece = i + ring.slots.size();
      ring.cv.notify_all();
    }
  }
  w.for_consumer = ring.readers_waited / depth;
  return w;
}

}  // namespace piprov::image
