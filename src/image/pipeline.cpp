#include "image/pipeline.hpp"

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <new>
#include <thread>
#include <vector>

namespace piprov::image {

AlignedBuffer::AlignedBuffer(std::size_t capacity) : capacity_(capacity) {
  void* p = nullptr;
  if (::posix_memalign(&p, 4096, capacity ? capacity : 4096) != 0) throw std::bad_alloc();
  data_ = static_cast<std::byte*>(p);
  std::memset(data_, 0, capacity_);
}
AlignedBuffer::~AlignedBuffer() { std::free(data_); }

namespace {

struct Filled {
  AlignedBuffer* buf;
  std::size_t len;
  std::uint64_t offset;
};

/// Shared state; `stop` ends both sides.
struct Channel {
  std::mutex m;
  std::condition_variable cv;
  std::deque<AlignedBuffer*> free;
  std::deque<Filled> filled;
  bool producer_done = false;
  bool stop = false;
  std::exception_ptr producer_error;
};

}  // namespace

std::uint64_t run_pipeline(std::size_t buffers, std::size_t capacity, const ProduceFn& produce,
                           const ConsumeFn& consume, PipelineWaits* waits) {
  using Clock = std::chrono::steady_clock;
  auto secs = [](Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); };
  PipelineWaits w;
  std::vector<std::unique_ptr<AlignedBuffer>> pool;
  Channel ch;
  for (std::size_t i = 0; i < buffers; ++i) {
    pool.push_back(std::make_unique<AlignedBuffer>(capacity));
    ch.free.push_back(pool.back().get());
  }

  std::thread producer([&] {
    std::uint64_t offset = 0;
    try {
      for (;;) {
        AlignedBuffer* b = nullptr;
        {
          std::unique_lock lk(ch.m);
          auto t0 = Clock::now();
          ch.cv.wait(lk, [&] { return ch.stop || !ch.free.empty(); });
          w.producer += secs(t0);
          if (ch.stop) break;
          b = ch.free.front();
          ch.free.pop_front();
        }
        std::size_t n = produce(b->span(), offset);
        std::lock_guard lk(ch.m);
        if (n > 0)
          ch.filled.push_back({b, n, offset});
        else
          ch.free.push_back(b);
        offset += n;
        ch.cv.notify_all();
        if (n < capacity) break;
      }
    } catch (...) {
      std::lock_guard lk(ch.m);
      ch.producer_error = std::current_exception();
    }
    std::lock_guard lk(ch.m);
    ch.producer_done = true;
    ch.cv.notify_all();
  });

  std::uint64_t total = 0;
  std::exception_ptr consumer_error;
  try {
    for (;;) {
      Filled f{};
      {
        std::unique_lock lk(ch.m);
        auto t0 = Clock::now();
        ch.cv.wait(lk, [&] { return !ch.filled.empty() || ch.producer_done; });
        w.consumer += secs(t0);
        if (ch.filled.empty()) break;  // producer finished (or failed) and everything is consumed
        f = ch.filled.front();
        ch.filled.pop_front();
      }
      consume(*f.buf, f.len, f.offset);
      total += f.len;
      std::lock_guard lk(ch.m);
      ch.free.push_back(f.buf);
      ch.cv.notify_all();
    }
  } catch (...) {
    consumer_error = std::current_exception();
  }
  {
    std::lock_guard lk(ch.m);
    ch.stop = true;
    ch.cv.notify_all();
  }
  producer.join();
  if (waits) *waits = w;
  if (consumer_error) std::rethrow_exception(consumer_error);
  if (ch.producer_error) std::rethrow_exception(ch.producer_error);
  return total;
}

}  // namespace piprov::image
