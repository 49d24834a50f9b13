// --sha256 / --sha256-file parsing (sha256sum and BSD tag formats).
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "image/checksum.hpp"
#include "support/testsupport.hpp"

namespace piprov::image {
namespace {

const std::string kA = "ab" + std::string(62, '1');
const std::string kB = std::string(63, 'c') + "d";

TEST(ExpectedSha256, NoneGivenIsEmpty) { EXPECT_EQ(expected_sha256("", "", "x.img.xz"), ""); }

TEST(ExpectedSha256, HexIsLowercased) { EXPECT_EQ(expected_sha256("AB" + std::string(62, '1'), "", "x"), kA); }

TEST(ExpectedSha256, BadHexIsAUsageError) {
  try {
    expected_sha256("abc", "", "x");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Usage);
    EXPECT_EQ(std::string(e.what()), "invalid SHA-256 'abc' (--sha256): expected 64 hex digits");
  }
  EXPECT_THROW(expected_sha256(std::string(63, 'a') + "g", "", "x"), Error);
}

TEST(ExpectedSha256, BothGivenIsAUsageError) { EXPECT_THROW(expected_sha256(kA, "SUMS", "x"), Error); }

TEST(ExpectedSha256, FindsTheImageByFileNameInSha256sumsFormats) {
  test::TempDir d;
  auto sums = (d.path / "SHA256SUMS").string();
  test::write_file(sums, kB + " *other.img.xz\n" + kA + "  ubuntu-20.04.5-preinstalled-server-arm64+raspi.img.xz\n" +
                             "SHA256 (bsd.img.xz) = " + kB + "\n");
  EXPECT_EQ(expected_sha256("", sums, "/dl/ubuntu-20.04.5-preinstalled-server-arm64+raspi.img.xz"), kA);
  EXPECT_EQ(expected_sha256("", sums, "other.img.xz"), kB);
  EXPECT_EQ(expected_sha256("", sums, "bsd.img.xz"), kB);
  try {
    expected_sha256("", sums, "/dl/missing.img.xz");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), sums + " has no SHA-256 line for missing.img.xz: check the file names it lists");
  }
}

TEST(ExpectedSha256, UnreadableFileIsAUsageError) {
  EXPECT_THROW(expected_sha256("", "/nonexistent/SHA256SUMS", "x"), Error);
}

}  // namespace
}  // namespace piprov::image
