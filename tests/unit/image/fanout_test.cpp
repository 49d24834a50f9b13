// One decoder, several consumers: every consumer sees every byte in order
// from shared buffers; a consumer that fails is dropped, the others finish.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "image/fanout.hpp"

namespace piprov::image {
namespace {

std::size_t fill(std::span<std::byte> b, std::uint64_t off, std::uint64_t total) {
  std::size_t len = static_cast<std::size_t>(std::min<std::uint64_t>(b.size(), total - off));
  for (std::size_t i = 0; i < len; ++i) b[i] = static_cast<std::byte>((off + i) % 251);
  return len;
}

TEST(Fanout, EveryConsumerSeesEveryByteInOrderAndTheTailIsZero) {
  const std::uint64_t total = 37 * 4096 + 100;
  std::vector<std::uint64_t> seen(3, 0);
  std::vector<FanoutConsumeFn> cs;
  for (std::size_t c = 0; c < 3; ++c)
    cs.push_back([&seen, c](const AlignedBuffer& b, std::size_t len, std::uint64_t off) {
      EXPECT_EQ(off, seen[c]);
      for (std::size_t i = 0; i < len; ++i) ASSERT_EQ(b.data()[i], static_cast<std::byte>((off + i) % 251));
      for (std::size_t i = len; i < (len + 4095) / 4096 * 4096; ++i) ASSERT_EQ(b.data()[i], std::byte{0});
      seen[c] += len;
    });
  std::atomic<int> produced{0};
  auto r = run_fanout(
      3, 4 * 4096,
      [&](std::span<std::byte> b, std::uint64_t off) {
        ++produced;
        return fill(b, off, total);
      },
      cs);
  EXPECT_EQ(r.total, total);
  EXPECT_EQ(seen, std::vector<std::uint64_t>(3, total));
  EXPECT_EQ(produced, 10);  // decoded once, not once per consumer
  for (const auto& e : r.consumer_errors) EXPECT_FALSE(e);
  EXPECT_EQ(r.consumer_waited_seconds.size(), 3u);
}

TEST(Fanout, AFailingConsumerIsDroppedAndTheOthersFinish) {
  const std::uint64_t total = 50 * 4096;
  std::uint64_t a = 0, b = 0;
  std::vector<FanoutConsumeFn> cs = {[&](const AlignedBuffer&, std::size_t len, std::uint64_t off) {
                                       if (off >= 10 * 4096) throw std::runtime_error("EIO");
                                       a += len;
                                     },
                                     [&](const AlignedBuffer&, std::size_t len, std::uint64_t) { b += len; }};
  auto r = run_fanout(
      2, 4096, [&](std::span<std::byte> buf, std::uint64_t off) { return fill(buf, off, total); }, cs);
  EXPECT_EQ(a, 10u * 4096);
  EXPECT_EQ(b, total);
  ASSERT_TRUE(r.consumer_errors[0]);
  EXPECT_FALSE(r.consumer_errors[1]);
  EXPECT_EQ(r.total, total);
}

TEST(Fanout, WhenEveryConsumerFailsTheProducerStops) {
  std::atomic<int> produced{0};
  std::vector<FanoutConsumeFn> cs(2, [](const AlignedBuffer&, std::size_t, std::uint64_t off) {
    if (off >= 4096) throw std::runtime_error("gone");
  });
  auto r = run_fanout(
      2, 4096,
      [&](std::span<std::byte> buf, std::uint64_t) {
        ++produced;
        return buf.size();  // endless
      },
      cs);
  EXPECT_TRUE(r.consumer_errors[0]);
  EXPECT_TRUE(r.consumer_errors[1]);
  EXPECT_LE(produced, 6);
}

TEST(Fanout, ProducerErrorIsRethrownAfterEveryoneStopped) {
  std::uint64_t seen = 0;
  std::vector<FanoutConsumeFn> cs = {[&](const AlignedBuffer&, std::size_t len, std::uint64_t) { seen += len; }};
  EXPECT_THROW(run_fanout(
                   2, 1024,
                   [&](std::span<std::byte> b, std::uint64_t off) -> std::size_t {
                     if (off >= 3 * 1024) throw std::runtime_error("corrupt");
                     return b.size();
                   },
                   cs),
               std::runtime_error);
  EXPECT_LE(seen, 3u * 1024);
}

// Ranges the producer marks as needing no data (free space of zeros) reach
// the consumers without a buffer, and their buffers return to the pool at
// once: with two buffers, one held by a slow consumer, the producer still gets
// through six such ranges.
TEST(Fanout, RangesWithoutDataNeedNoBufferSoTheProducerRunsAhead) {
  constexpr std::size_t cap = 4096;
  constexpr std::uint64_t total = 8 * cap;
  std::atomic<int> no_data_seen{0};
  std::vector<std::uint64_t> offsets;
  std::vector<FanoutConsumeFn> cs = {[&](const AlignedBuffer& b, std::size_t len, std::uint64_t off) {
    if (off == 0)  // hold the first buffer until the producer went past the free range
      for (int i = 0; i < 5000 && no_data_seen < 6; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    const bool data = off == 0 || off == 7 * cap;
    EXPECT_EQ(b.capacity() == 0, !data) << off;
    if (data) EXPECT_EQ(b.data()[len - 1], static_cast<std::byte>(off / cap + 1)) << off;
    EXPECT_EQ(len, cap);
    offsets.push_back(off);
  }};
  auto r = run_fanout(
      2, cap,
      [&](std::span<std::byte> b, std::uint64_t off) -> std::size_t {
        if (off >= total) return 0;
        std::fill(b.begin(), b.end(), static_cast<std::byte>(off / cap + 1));
        return b.size();
      },
      cs,
      [&](std::span<const std::byte>, std::uint64_t off) {
        const bool none = off >= cap && off < 7 * cap;
        if (none) ++no_data_seen;
        return none;
      });
  EXPECT_EQ(no_data_seen, 6);
  EXPECT_EQ(r.total, total);
  EXPECT_EQ(offsets, (std::vector<std::uint64_t>{0, cap, 2 * cap, 3 * cap, 4 * cap, 5 * cap, 6 * cap, 7 * cap}));
  EXPECT_FALSE(r.consumer_errors[0]);
}

}  // namespace
}  // namespace piprov::image
