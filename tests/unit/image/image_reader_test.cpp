// The random-access image reader (issue 27 item 1): every format gives the
// bytes the real tools compressed, at any offset; .xz with several blocks and
// .zst with several frames decode only the blocks a read touches; a corrupt
// block is named by its decoded offset; the other formats say they are sequential.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <thread>

#include "core/error.hpp"
#include "image/image_reader.hpp"
#include "image/target.hpp"
#include "support/testsupport.hpp"

namespace piprov::image {
namespace {

using test::q;

/// 5 MiB + 4321 bytes: runs of zeros and a pseudo-random pattern, like a disk.
std::string reader_pattern() {
  std::string s(5 * 1048576 + 4321, '\0');
  std::uint32_t x = 777;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if ((i / 65536) % 3 == 0) continue;
    x = x * 1103515245u + 12345u;
    s[i] = static_cast<char>((x >> 24) & 0x3f);  // compressible, so blocks differ in compressed size
  }
  return s;
}

std::string read_range(ImageReader& r, std::uint64_t offset, std::size_t n) {
  std::string out(n, '\0');
  r.read_at(std::as_writable_bytes(std::span(out.data(), out.size())), offset);
  return out;
}

void flip_byte(const std::string& path, std::uint64_t at) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(static_cast<std::streamoff>(at));
  char c = 0;
  f.get(c);
  f.seekp(static_cast<std::streamoff>(at));
  f.put(static_cast<char>(c ^ 0x55));
}

class Reader : public ::testing::Test {
 protected:
  void SetUp() override {
    data_ = reader_pattern();
    img_ = (dir_.path / "p.img").string();
    test::write_file(img_, data_);
  }
  std::string make(const std::string& name, const std::string& cmd) {
    auto r = test::run("cd " + q(dir_.path.string()) + " && " + cmd);
    EXPECT_EQ(r.exit_code, 0) << cmd << ": " << r.err;
    return (dir_.path / name).string();
  }
  /// Ranges across block edges, the start, the end and the whole image.
  void expect_reads_match(ImageReader& r) {
    ASSERT_EQ(r.size(), data_.size());
    const std::uint64_t n = data_.size();
    for (auto [off, len] : std::vector<std::pair<std::uint64_t, std::size_t>>{
             {0, 512}, {1048576 - 100, 200}, {3 * 1048576 + 7, 1048576 + 9}, {n - 33, 33}, {0, data_.size()}, {12, 1}})
      EXPECT_EQ(read_range(r, off, len), data_.substr(off, len)) << "at " << off << " len " << len;
  }
  /// A multi-frame .zst: one frame per MiB piece, as rpi-imager's are independent frames.
  std::string make_multiframe_zst() {
    return make("p.img.zst",
                "split -b 1M -d p.img piece. && for f in piece.*; do zstd -q -3 $f -o $f.zst; done && "
                "cat piece.*.zst > p.img.zst");
  }
  test::TempDir dir_;
  std::string data_, img_;
};

TEST_F(Reader, RawIsRandomAccessWithPread) {
  auto r = open_image_reader(img_);
  EXPECT_EQ(r->format(), Format::Raw);
  EXPECT_TRUE(r->random_access());
  EXPECT_EQ(r->sequential_note(), "");
  ASSERT_EQ(r->blocks().size(), 1u);
  EXPECT_EQ(r->blocks()[0], (ByteRange{0, data_.size()}));
  expect_reads_match(*r);
}

TEST_F(Reader, MultiBlockXzDecodesOnlyTheBlocksARangeTouches) {
  auto xz = make("p.img.xz", "xz -k -0 -T2 --block-size=1MiB p.img");
  auto r = open_image_reader(xz);
  EXPECT_EQ(r->format(), Format::Xz);
  EXPECT_TRUE(r->random_access());
  const auto blocks = r->blocks();
  ASSERT_EQ(blocks.size(), 6u);  // 5 whole MiB and the tail
  EXPECT_EQ(blocks[2], (ByteRange{2u << 20, 3u << 20}));
  EXPECT_EQ(r->stats().blocks_total, 6u);
  EXPECT_EQ(read_range(*r, (2u << 20) + 5, 100), data_.substr((2u << 20) + 5, 100));
  EXPECT_EQ(r->stats().blocks_decoded, 1u);  // only block 2
  EXPECT_EQ(r->stats().bytes_decoded, 1u << 20);
  expect_reads_match(*r);
  EXPECT_EQ(r->stats().blocks_decoded, 6u);
}

TEST_F(Reader, XzOfSeveralStreamsWithPaddingAndEveryCheck) {
  // Two streams (CRC32 and SHA-256 checks) with stream padding between them.
  make("two.xz",
       "head -c 3145728 p.img | xz -0 -T2 --block-size=1MiB -C crc32 > a.xz && "
       "tail -c +3145729 p.img | xz -0 -T2 --block-size=1MiB -C sha256 > b.xz && "
       "cat a.xz > two.xz && head -c 8 /dev/zero >> two.xz && cat b.xz >> two.xz");
  auto r = open_image_reader((dir_.path / "two.xz").string());
  EXPECT_TRUE(r->random_access());
  EXPECT_EQ(r->blocks().size(), 6u);
  expect_reads_match(*r);
}

TEST_F(Reader, SingleBlockXzIsSequentialAndReadsBackwards) {
  auto xz = make("p.img.xz", "xz -k -0 -T1 p.img");
  auto r = open_image_reader(xz);
  EXPECT_FALSE(r->random_access());
  EXPECT_NE(r->sequential_note().find("single-block .xz is sequential"), std::string::npos) << r->sequential_note();
  EXPECT_EQ(r->blocks().size(), 1u);
  EXPECT_EQ(read_range(*r, 4u << 20, 64), data_.substr(4u << 20, 64));
  EXPECT_EQ(read_range(*r, 10, 64), data_.substr(10, 64));  // behind the decoder: restarts
  expect_reads_match(*r);
}

TEST_F(Reader, MultiFrameZstIsRandomAccess) {
  auto zst = make_multiframe_zst();
  auto r = open_image_reader(zst);
  EXPECT_EQ(r->format(), Format::Zstd);
  EXPECT_TRUE(r->random_access());
  ASSERT_EQ(r->blocks().size(), 6u);
  EXPECT_EQ(r->blocks()[5], (ByteRange{5u << 20, data_.size()}));
  EXPECT_EQ(read_range(*r, (4u << 20) + 1, 10), data_.substr((4u << 20) + 1, 10));
  EXPECT_EQ(r->stats().blocks_decoded, 1u);
  expect_reads_match(*r);
}

TEST_F(Reader, SingleFrameZstAndGzipAreSequential) {
  auto zst = make("p.img.zst", "zstd -q -k p.img");
  auto z = open_image_reader(zst);
  EXPECT_FALSE(z->random_access());
  EXPECT_NE(z->sequential_note().find("single-frame .zst"), std::string::npos);
  expect_reads_match(*z);
  auto gz = make("p.img.gz", "gzip -k -n p.img");
  auto g = open_image_reader(gz);
  EXPECT_EQ(g->format(), Format::Gzip);
  EXPECT_FALSE(g->random_access());
  EXPECT_EQ(g->sequential_note(), "gzip is sequential: every byte before a range is decoded to read it");
  expect_reads_match(*g);  // gzip does not say its size: size() decodes to the end once
}

TEST_F(Reader, ReadsFromSeveralThreadsAtOnce) {
  auto xz = make("p.img.xz", "xz -k -0 -T2 --block-size=256KiB p.img");
  auto r = open_image_reader(xz);
  ASSERT_GT(r->blocks().size(), 20u);
  std::vector<std::thread> ts;
  std::atomic<int> bad{0};
  for (int t = 0; t < 4; ++t)
    ts.emplace_back([&, t] {
      for (std::uint64_t off = static_cast<std::uint64_t>(t) * 7919; off + 300000 < data_.size(); off += 611953)
        if (read_range(*r, off, 300000) != data_.substr(off, 300000)) ++bad;
    });
  for (auto& t : ts) t.join();
  EXPECT_EQ(bad.load(), 0);
}

TEST_F(Reader, CorruptXzBlockIsNamedByItsDecodedOffset) {
  auto xz = make("p.img.xz", "xz -k -0 -T2 --block-size=1MiB p.img");
  // xz --robot --list -vv: "block" lines give each block's compressed offset (column 5) and size (7).
  auto list = test::run("xz --robot --list -vv " + q(xz) + " | awk '$1 == \"block\" && $4 == 3 {print $5, $7}'");
  std::istringstream in(list.out);
  std::uint64_t c_off = 0, c_size = 0;
  ASSERT_TRUE(in >> c_off >> c_size) << list.out << list.err;
  flip_byte(xz, c_off + c_size / 2);
  auto r = open_image_reader(xz);
  EXPECT_EQ(read_range(*r, 0, 1u << 20), data_.substr(0, 1u << 20));  // block 0 is intact
  try {
    read_range(*r, (2u << 20) + 1000, 10);
    FAIL() << "a corrupt block read";
  } catch (const ErrorAt& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Io);
    EXPECT_EQ(e.offset(), 2u << 20);
    EXPECT_NE(std::string(e.what()).find("is corrupt: block 2 (decoded bytes 2097152-3145728"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(read_range(*r, 3u << 20, 100), data_.substr(3u << 20, 100));  // the block after it is intact
}

TEST_F(Reader, CorruptZstFrameIsNamedByItsDecodedOffset) {
  auto zst = make_multiframe_zst();
  const auto first = std::filesystem::file_size(dir_.path / "piece.00.zst");
  const auto second = std::filesystem::file_size(dir_.path / "piece.01.zst");
  flip_byte(zst, first + second / 2);
  auto r = open_image_reader(zst);
  try {
    read_range(*r, (1u << 20) + 5, 10);
    FAIL() << "a corrupt frame read";
  } catch (const ErrorAt& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Io);
    EXPECT_EQ(e.offset(), 1u << 20);
    EXPECT_NE(std::string(e.what()).find("is corrupt: block 1 (decoded bytes 1048576-2097152"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(read_range(*r, 0, 4096), data_.substr(0, 4096));
}

TEST_F(Reader, ARangePastTheEndIsRefused) {
  auto r = open_image_reader(img_);
  test::expect_error(ErrorKind::Usage, "but the image ends at", [&] { read_range(*r, data_.size() - 10, 11); });
}

// The summary line of what a reader decoded: raw images are read, compressed ones say their blocks,
// and a block decoded again (a sequential image read back) says why the total passes the image size.
TEST(ReaderStatsText, RawBlocksAndDecodedAgain) {
  EXPECT_EQ(reader_stats_text({0, 0, 21u << 20}, 21u << 20), "read 21.0 MiB");
  EXPECT_EQ(reader_stats_text({321, 23, 27u << 20}, 300u << 20), "23 of 321 blocks decoded, 27.0 MiB");
  EXPECT_EQ(reader_stats_text({1, 1, 741u << 20}, 513u << 20),
            "1 of 1 blocks decoded, 741.0 MiB in all: more than the 513.0 MiB image, as going back within a block "
            "decodes it again from its start");
  EXPECT_EQ(reader_stats_text({1, 1, 741u << 20}, 0), "1 of 1 blocks decoded, 741.0 MiB");  // size unknown
}

}  // namespace
}  // namespace piprov::image
