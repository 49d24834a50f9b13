#include "image/fanout.hpp"

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

namespace piprov::image {
namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

struct Slot {
  AlignedBuffer* buf;  ///< nullptr: a range no consumer needs the bytes of (NoDataFn)
  std::size_t len;
  std::uint64_t offset;
  std::size_t remaining;  ///< consumers still to see it
};

/// Shared state: slots[i] is the buffer of sequence number base + i.
struct Fan {
  std::mutex m;
  std::condition_variable cv;
  std::deque<AlignedBuffer*> free;
  std::deque<Slot> slots;
  std::uint64_t base = 0;
  std::size_t active = 0;  ///< consumers not dropped and not finished
  bool producer_done = false;
  bool stop = false;

  /// Frees the leading slots every consumer has seen. Caller holds m.
  void release_front() {
    while (!slots.empty() && slots.front().remaining == 0) {
      if (slots.front().buf) free.push_back(slots.front().buf);
      slots.pop_front();
      ++base;
    }
  }
};

/// Zeroes buf[len .. next multiple of 4096) (within capacity).
void zero_tail(AlignedBuffer& b, std::size_t len) {
  std::size_t end = std::min(b.capacity(), (len + 4095) / 4096 * 4096);
  if (end > len) std::memset(b.data() + len, 0, end - len);
}

void produce_loop(Fan& f, std::size_t capacity, const ProduceFn& produce, const NoDataFn& no_data, double& waited,
                  std::uint64_t& offset) {
  for (;;) {
    AlignedBuffer* b = nullptr;
    {
      std::unique_lock lk(f.m);
      auto t0 = Clock::now();
      f.cv.wait(lk, [&] { return f.stop || f.active == 0 || !f.free.empty(); });
      waited += seconds(Clock::now() - t0);
      if (f.stop || f.active == 0) return;
      b = f.free.front();
      f.free.pop_front();
    }
    std::size_t n = produce(b->span(), offset);
    zero_tail(*b, n);
    const bool bytes_needed = n > 0 && !(no_data && no_data({b->data(), n}, offset));
    std::lock_guard lk(f.m);
    if (n > 0) f.slots.push_back({bytes_needed ? b : nullptr, n, offset, f.active});
    if (!bytes_needed) f.free.push_back(b);
    f.release_front();  // no consumer left for a slot pushed with remaining 0
    offset += n;
    f.cv.notify_all();
    if (n < capacity) return;
  }
}

void consume_loop(Fan& f, const FanoutConsumeFn& consume, const AlignedBuffer& none, double& waited,
                  std::exception_ptr& error) {
  std::uint64_t seq = 0;  // next sequence number to consume
  bool dropped = false;
  try {
    for (;;) {
      Slot s{};
      {
        std::unique_lock lk(f.m);
        auto t0 = Clock::now();
        f.cv.wait(lk, [&] { return f.stop || seq < f.base + f.slots.size() || f.producer_done; });
        waited += seconds(Clock::now() - t0);
        if (f.stop || seq >= f.base + f.slots.size()) break;
        s = f.slots[static_cast<std::size_t>(seq - f.base)];
      }
      consume(s.buf ? *s.buf : none, s.len, s.offset);
      std::lock_guard lk(f.m);
      --f.slots[static_cast<std::size_t>(seq - f.base)].remaining;
      ++seq;
      f.release_front();
      f.cv.notify_all();
    }
  } catch (...) {
    error = std::current_exception();
    dropped = true;
  }
  std::lock_guard lk(f.m);
  if (dropped)  // give back every buffer this consumer will not see
    for (std::uint64_t i = seq; i < f.base + f.slots.size(); ++i)
      --f.slots[static_cast<std::size_t>(i - f.base)].remaining;
  --f.active;
  f.release_front();
  f.cv.notify_all();
}

}  // namespace

FanoutResult run_fanout(std::size_t buffers, std::size_t capacity, const ProduceFn& produce,
                        const std::vector<FanoutConsumeFn>& consumers, const NoDataFn& no_data) {
  std::vector<std::unique_ptr<AlignedBuffer>> pool;
  const AlignedBuffer none(0);  // what a consumer gets for a range without bytes
  Fan f;
  for (std::size_t i = 0; i < buffers; ++i) {
    pool.push_back(std::make_unique<AlignedBuffer>(capacity));
    f.free.push_back(pool.back().get());
  }
  f.active = consumers.size();
  FanoutResult r;
  r.consumer_waited_seconds.assign(consumers.size(), 0.0);
  r.consumer_errors.assign(consumers.size(), nullptr);

  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < consumers.size(); ++i)
    threads.emplace_back(
        [&, i] { consume_loop(f, consumers[i], none, r.consumer_waited_seconds[i], r.consumer_errors[i]); });
  std::exception_ptr producer_error;
  try {
    produce_loop(f, capacity, produce, no_data, r.producer_waited_seconds, r.total);
  } catch (...) {
    producer_error = std::current_exception();
  }
  {
    std::lock_guard lk(f.m);
    if (producer_error) f.stop = true;
    f.producer_done = true;
    f.cv.notify_all();
  }
  for (auto& t : threads) t.join();
  if (producer_error) std::rethrow_exception(producer_error);
  return r;
}

}  // namespace piprov::image
