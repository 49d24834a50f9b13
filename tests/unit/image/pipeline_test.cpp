// The decoder/writer hand-off: order, totals, errors from either side.
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>

#include "image/pipeline.hpp"

namespace piprov::image {
namespace {

TEST(Pipeline, ConsumesEveryByteInOrderWithOffsets) {
  const std::uint64_t total = 10 * 4096 + 100;
  std::uint64_t seen = 0;
  std::uint64_t n = run_pipeline(
      3, 4096,
      [&](std::span<std::byte> b, std::uint64_t off) -> std::size_t {
        std::size_t len = static_cast<std::size_t>(std::min<std::uint64_t>(b.size(), total - off));
        for (std::size_t i = 0; i < len; ++i) b[i] = static_cast<std::byte>((off + i) % 251);
        return len;
      },
      [&](AlignedBuffer& b, std::size_t len, std::uint64_t off) {
        EXPECT_EQ(off, seen);
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(b.data()) % 4096, 0u);
        for (std::size_t i = 0; i < len; ++i) ASSERT_EQ(b.data()[i], static_cast<std::byte>((off + i) % 251));
        seen += len;
      });
  EXPECT_EQ(n, total);
  EXPECT_EQ(seen, total);
}

TEST(Pipeline, ProducerErrorArrivesAfterWhatWasDecoded) {
  std::uint64_t consumed = 0;
  EXPECT_THROW(run_pipeline(
                   2, 1024,
                   [&](std::span<std::byte> b, std::uint64_t off) -> std::size_t {
                     if (off >= 3 * 1024) throw std::runtime_error("corrupt");
                     return b.size();
                   },
                   [&](AlignedBuffer&, std::size_t len, std::uint64_t) { consumed += len; }),
               std::runtime_error);
  EXPECT_EQ(consumed, 3u * 1024);
}

TEST(Pipeline, ConsumerErrorStopsTheProducer) {
  std::atomic<int> produced{0};
  try {
    run_pipeline(
        2, 1024,
        [&](std::span<std::byte> b, std::uint64_t) -> std::size_t {
          ++produced;
          return b.size();  // endless
        },
        [&](AlignedBuffer&, std::size_t, std::uint64_t off) {
          if (off == 2048) throw std::runtime_error("ENOSPC");
        });
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "ENOSPC");
  }
  EXPECT_LE(produced.load(), 6);  // 3 consumed + at most the 2 buffers in flight + 1 being filled
}

TEST(Pipeline, EmptySourceConsumesNothing) {
  int calls = 0;
  EXPECT_EQ(run_pipeline(
                2, 512, [](std::span<std::byte>, std::uint64_t) -> std::size_t { return 0; },
                [&](AlignedBuffer&, std::size_t, std::uint64_t) { ++calls; }),
            0u);
  EXPECT_EQ(calls, 0);
}

}  // namespace
}  // namespace piprov::image
