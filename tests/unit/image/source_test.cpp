// Sources decode what the real tools wrote, byte for byte; sizes are known
// where the format says them (raw, xz index, zip header).
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "image/source.hpp"
#include "support/testsupport.hpp"

namespace piprov::image {
namespace {

using test::q;

/// 5 MiB + 123 bytes: runs of zeros and a pseudo-random pattern, like a disk.
std::string pattern() {
  std::string s(5 * 1048576 + 123, '\0');
  std::uint32_t x = 12345;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if ((i / 65536) % 3 == 0) continue;
    x = x * 1103515245u + 12345u;
    s[i] = static_cast<char>(x >> 24);
  }
  return s;
}

std::string decode_all(Source& src) {
  std::string out;
  std::vector<std::byte> buf(1 << 20);
  for (;;) {
    std::size_t n = src.read_full(buf);
    out.append(reinterpret_cast<const char*>(buf.data()), n);
    if (n < buf.size()) break;
  }
  return out;
}

class Sources : public ::testing::Test {
 protected:
  void SetUp() override {
    data_ = pattern();
    img_ = (dir_.path / "p.img").string();
    test::write_file(img_, data_);
  }
  std::string make(const std::string& name, const std::string& cmd) {
    std::string out = (dir_.path / name).string();
    auto r = test::run("cd " + q(dir_.path.string()) + " && " + cmd);
    EXPECT_EQ(r.exit_code, 0) << cmd << ": " << r.err;
    return out;
  }
  test::TempDir dir_;
  std::string data_, img_;
};

TEST_F(Sources, RawKnowsItsSize) {
  auto s = open_source(img_, 0, false);
  EXPECT_EQ(s->format(), Format::Raw);
  EXPECT_EQ(s->size(), data_.size());
  EXPECT_EQ(decode_all(*s), data_);
}

TEST_F(Sources, MultiBlockXzDecodesOnTwoThreadsWithSizeFromTheIndex) {
  auto f = make("p.img.xz", "xz -0 -T2 --block-size=1MiB -k p.img");
  auto s = open_source(f, 2, false);
  EXPECT_EQ(s->format(), Format::Xz);
  EXPECT_EQ(s->size(), data_.size());
  EXPECT_EQ(s->threads(), 2u);
  EXPECT_EQ(decode_all(*s), data_);
}

TEST_F(Sources, SingleBlockXzFallsBackToOneThread) {
  auto f = make("single.xz", "xz -0 -T1 -c p.img > single.xz");
  auto s = open_source(f, 2, false);
  EXPECT_EQ(s->threads(), 1u);
  EXPECT_EQ(s->size(), data_.size());
  EXPECT_EQ(decode_all(*s), data_);
}

TEST_F(Sources, LibarchiveFormatsDecodeExactly) {
  struct C {
    const char* name;
    const char* cmd;
    Format f;
  } cases[] = {{"p.gz", "gzip -c p.img > p.gz", Format::Gzip},
               {"p.bz2", "bzip2 -c p.img > p.bz2", Format::Bzip2},
               {"p.zst", "zstd -q -c p.img > p.zst", Format::Zstd},
               {"p.lz4", "lz4 -q -c p.img > p.lz4", Format::Lz4},
               {"p.zip", "zip -q p.zip p.img", Format::Zip}};
  for (const auto& c : cases) {
    auto s = open_source(make(c.name, c.cmd), 0, false);
    EXPECT_EQ(s->format(), c.f) << c.name;
    EXPECT_EQ(decode_all(*s), data_) << c.name;
    if (c.f == Format::Zip)
      EXPECT_EQ(s->size(), data_.size());
    else
      EXPECT_EQ(s->size(), std::nullopt) << c.name;
  }
}

TEST_F(Sources, Sha256IsOfTheCompressedFile) {
  auto f = make("p.zst", "zstd -q -c p.img > p.zst");
  auto s = open_source(f, 0, true);
  decode_all(*s);
  auto want = test::run("sha256sum " + q(f)).out.substr(0, 64);
  EXPECT_EQ(s->input().finish_sha256(), want);
  auto z = make("p.zip", "zip -q p.zip p.img");  // the zip reader seeks: re-hashed from the start
  auto sz = open_source(z, 0, true);
  decode_all(*sz);
  EXPECT_EQ(sz->input().finish_sha256(), test::run("sha256sum " + q(z)).out.substr(0, 64));
}

TEST_F(Sources, TruncatedGzipIsCorruptInput) {
  auto f = make("t.gz", "gzip -c p.img | head -c 100000 > t.gz");
  auto s = open_source(f, 0, false);
  try {
    decode_all(*s);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Usage);
    EXPECT_EQ(std::string(e.what()).rfind(f + " is truncated or corrupt (gzip data): ", 0), 0u) << e.what();
  }
}

TEST_F(Sources, ZipWithoutFilesIsRefused) {
  auto f = make("d.zip", "mkdir -p d && zip -q -r d.zip d");
  try {
    open_source(f, 0, false);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), f + " holds no file: a zip must hold exactly one image");
  }
}

TEST_F(Sources, MissingAndEmptyFilesAreUsageErrors) {
  try {
    open_source((dir_.path / "nope.img").string(), 0, false);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Usage);
    EXPECT_EQ(std::string(e.what()),
              (dir_.path / "nope.img").string() + " does not exist: give the path of the image file");
  }
  test::write_file(dir_.path / "empty.img", "");
  EXPECT_THROW(open_source((dir_.path / "empty.img").string(), 0, false), Error);
}

}  // namespace
}  // namespace piprov::image
