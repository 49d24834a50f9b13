// Format detection by content (magic bytes), not by name.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.hpp"
#include "image/source.hpp"

namespace piprov::image {
namespace {

std::vector<std::byte> bytes(std::initializer_list<unsigned> v, std::size_t pad = 16) {
  std::vector<std::byte> out;
  for (unsigned b : v) out.push_back(static_cast<std::byte>(b));
  out.resize(std::max(out.size(), pad));
  return out;
}

TEST(DetectFormat, CompressorsByMagicWhateverTheName) {
  EXPECT_EQ(detect_format(bytes({0xfd, '7', 'z', 'X', 'Z', 0}), "a.img"), Format::Xz);
  EXPECT_EQ(detect_format(bytes({0x1f, 0x8b, 8}), "a.xz.download"), Format::Gzip);
  EXPECT_EQ(detect_format(bytes({'B', 'Z', 'h', '9'}), "a"), Format::Bzip2);
  EXPECT_EQ(detect_format(bytes({0x28, 0xb5, 0x2f, 0xfd}), "a"), Format::Zstd);
  EXPECT_EQ(detect_format(bytes({0x04, 0x22, 0x4d, 0x18}), "a"), Format::Lz4);
  EXPECT_EQ(detect_format(bytes({'P', 'K', 3, 4}), "a"), Format::Zip);
}

TEST(DetectFormat, AnythingElseIsARawImage) {
  // An MBR boot sector starts with code, e.g. FA 33 C0 or EB 63 90.
  EXPECT_EQ(detect_format(bytes({0xfa, 0x33, 0xc0}), "disk.img"), Format::Raw);
  EXPECT_EQ(detect_format(bytes({}), "disk.img"), Format::Raw);
}

TEST(DetectFormat, UnsupportedArchivesAreNamed) {
  try {
    detect_format(bytes({'7', 'z', 0xbc, 0xaf, 0x27, 0x1c}), "x.7z");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Usage);
    EXPECT_EQ(std::string(e.what()),
              "x.7z is a 7-Zip file, which piprov cannot write: unpack it and give the .img "
              "(or an .img.xz/.gz/.zst/.bz2/.lz4/.zip)");
  }
  std::vector<std::byte> tar(512);
  const char* ustar = "ustar";
  for (int i = 0; i < 5; ++i) tar[257 + i] = static_cast<std::byte>(ustar[i]);
  EXPECT_THROW(detect_format(tar, "x.tar"), Error);
}

TEST(DetectFormat, CompressedNameWithRawContentIsABrokenDownload) {
  try {
    detect_format(bytes({'<', 'h', 't', 'm', 'l', '>'}), "/tmp/ubuntu.img.XZ");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "/tmp/ubuntu.img.XZ is named .xz but its content is not xz data (starts with "
              "3c 68 74 6d 6c 3e 00 00): the download is probably broken; fetch it again");
  }
}

TEST(DetectFormat, Names) {
  EXPECT_EQ(to_string(Format::Raw), "raw");
  EXPECT_EQ(to_string(Format::Xz), "xz");
  EXPECT_EQ(to_string(Format::Gzip), "gzip");
  EXPECT_EQ(to_string(Format::Bzip2), "bzip2");
  EXPECT_EQ(to_string(Format::Zstd), "zstd");
  EXPECT_EQ(to_string(Format::Lz4), "lz4");
  EXPECT_EQ(to_string(Format::Zip), "zip");
}

}  // namespace
}  // namespace piprov::image
