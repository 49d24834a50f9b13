// The reader feed (issue 27 item 2): hands out the image's bytes in order,
// decoding only the blocks that overlap what is not skipped, on any number
// of threads and with blocks larger than its look-ahead budget.
#include <gtest/gtest.h>

#include "image/image_reader.hpp"
#include "image/reader_feed.hpp"
#include "support/testsupport.hpp"

namespace piprov::image {
namespace {

using test::q;

std::string feed_pattern(std::size_t n) {
  std::string s(n, '\0');
  std::uint32_t x = 4242;
  for (std::size_t i = 0; i < n; ++i) {
    if ((i / 65536) % 4 == 0) continue;
    x = x * 1103515245u + 12345u;
    s[i] = static_cast<char>((x >> 24) & 0x0f);
  }
  return s;
}

/// Every buffer of `buf_bytes` through fill(), skipped ranges read as zeros.
std::string feed_all(ReaderFeed& f, std::uint64_t size, std::size_t buf_bytes) {
  std::string out;
  std::vector<std::byte> buf(buf_bytes);
  for (std::uint64_t at = 0; at < size;) {
    const std::size_t n = f.fill(buf, at);
    if (f.wholly_skipped(at, n))
      out.append(n, '\0');
    else
      out.append(reinterpret_cast<const char*>(buf.data()), n);
    at += n;
  }
  return out;
}

class Feed : public ::testing::Test {
 protected:
  /// IMAGE of `bytes` compressed as independent xz blocks of `block`.
  std::unique_ptr<ImageReader> xz(std::size_t bytes, const std::string& block) {
    data_ = feed_pattern(bytes);
    test::write_file(dir_.path / "p.img", data_);
    auto r = test::run("cd " + q(dir_.path.string()) + " && xz -0 -T2 --block-size=" + block + " -k -c p.img > p.xz");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return open_image_reader((dir_.path / "p.xz").string());
  }
  test::TempDir dir_;
  std::string data_;
};

TEST_F(Feed, BlocksLargerThanTheBudgetOnOneThreadAndOnThree) {
  // 3 blocks (5, 5 and 2 MiB), the first two larger than an 8 MiB budget allows two of.
  auto r = xz((12u << 20) + 777, "5MiB");
  ASSERT_EQ(r->blocks().size(), 3u);
  for (unsigned threads : {1u, 3u}) {
    ReaderFeed f(*r, nullptr, threads, 8u << 20);
    EXPECT_EQ(feed_all(f, r->size(), 1u << 20), data_) << threads;
    EXPECT_EQ(f.stats().units_decoded, 3u);
    EXPECT_EQ(f.stats().units_not_decoded, 0u);
  }
}

TEST_F(Feed, BlocksWhollySkippedAreNotDecoded) {
  auto r = xz((24u << 20) + 777, "1MiB");
  ASSERT_EQ(r->blocks().size(), 25u);
  WriteMap skip;
  skip.add({(3u << 20) + 4096, 20u << 20});  // blocks 4..19 wholly, 3 in part
  ReaderFeed f(*r, &skip, 2);
  std::string want = data_;
  std::fill(want.begin() + (3u << 20) + 4096, want.begin() + (20u << 20), '\0');
  EXPECT_EQ(feed_all(f, r->size(), 1u << 20), want);
  EXPECT_EQ(f.stats().units_not_decoded, 16u);
  EXPECT_EQ(f.stats().bytes_not_decoded, 16u << 20);
  EXPECT_EQ(f.stats().units_decoded, 9u);
  EXPECT_EQ(f.stats().bytes_decoded, (8u << 20) + 777);  // 8 whole MiB and the 777-byte tail
  EXPECT_EQ(r->stats().blocks_decoded, 9u);
  EXPECT_EQ(feed_summary(f.stats(), Format::Xz),
            "decoded 9 of 25 xz blocks (8.0 MiB); 16 (16.0 MiB) wholly in free space not decoded (their checks not "
            "run)");
}

}  // namespace
}  // namespace piprov::image
