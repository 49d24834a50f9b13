// vmlinuz -> Image through libarchive: every compression, corrupt input, non-arm64 output.
#include <gtest/gtest.h>

#include "boot/kernel_image.hpp"
#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "support/boot_fixture.hpp"
#include "support/testsupport.hpp"

namespace fs = std::filesystem;
using namespace piprov::boot;
using piprov::test::read_file;
using piprov::test::TempDir;

TEST(KernelImage, DetectsMagics) {
  auto img = test::fake_image(4096, 7);
  auto head = std::as_bytes(std::span(img.data(), img.size()));
  EXPECT_TRUE(is_arm64_image(head));
  EXPECT_EQ(detect_compression(head), KernelCompression::None);
  EXPECT_FALSE(is_arm64_image(head.subspan(0, 0x3b)));  // too short for the magic
  std::string bad = img;
  bad[0x38] = 'X';
  EXPECT_FALSE(is_arm64_image(std::as_bytes(std::span(bad.data(), bad.size()))));
}

class KernelDecompress : public ::testing::TestWithParam<std::pair<std::string, KernelCompression>> {};

TEST_P(KernelDecompress, DecodesToTheSameImage) {
  auto [tool, kind] = GetParam();
  std::string name = tool.substr(0, tool.find(' '));
  PIPROV_REQUIRE_TOOL(name);
  TempDir d;
  auto img = test::fake_image(300000, 3);
  test::compress_to(d.path / "vmlinuz", img, tool);
  EXPECT_EQ(detect_compression_file(d.path / "vmlinuz"), kind);
  piprov::AtomicFile out(d.path / "vmlinux");
  auto r = decompress_kernel(d.path / "vmlinuz", out);
  out.commit();
  EXPECT_EQ(r.compression, kind);
  EXPECT_EQ(r.out_bytes, img.size());
  EXPECT_EQ(r.in_bytes, fs::file_size(d.path / "vmlinuz"));
  EXPECT_EQ(r.out_sha256, test::sha256(img));
  EXPECT_EQ(read_file(d.path / "vmlinux"), img);
}

INSTANTIATE_TEST_SUITE_P(
    Formats, KernelDecompress,
    ::testing::Values(std::make_pair("gzip -n", KernelCompression::Gzip), std::make_pair("xz", KernelCompression::Xz),
                      std::make_pair("zstd -q", KernelCompression::Zstd),
                      std::make_pair("lz4 -l", KernelCompression::Lz4),  // legacy frame, as the kernel's lz4 uses
                      std::make_pair("lz4", KernelCompression::Lz4), std::make_pair("bzip2", KernelCompression::Bzip2),
                      std::make_pair("cat", KernelCompression::None)));

TEST(KernelImage, CorruptGzipIsAVerifyErrorAndLeavesTargetAlone) {
  TempDir d;
  auto img = test::fake_image(200000, 5);
  test::compress_to(d.path / "vmlinuz", img);
  std::string gz = read_file(d.path / "vmlinuz");
  gz.resize(gz.size() / 2);  // truncated
  piprov::test::write_file(d.path / "vmlinuz", gz);
  piprov::test::write_file(d.path / "vmlinux", "old");
  piprov::test::expect_error(piprov::ErrorKind::Verify, "corrupt or truncated (gzip", [&] {
    piprov::AtomicFile out(d.path / "vmlinux");
    decompress_kernel(d.path / "vmlinuz", out);
  });
  EXPECT_EQ(read_file(d.path / "vmlinux"), "old");
  EXPECT_EQ(std::distance(fs::directory_iterator(d.path), fs::directory_iterator{}), 2);  // no temp left
}

TEST(KernelImage, NonArm64PayloadIsRejected) {
  TempDir d;
  test::compress_to(d.path / "vmlinuz", std::string(100000, 'x'));
  piprov::AtomicFile out(d.path / "vmlinux");
  piprov::test::expect_error(piprov::ErrorKind::Verify, "does not decode to an arm64 Linux Image",
                             [&] { decompress_kernel(d.path / "vmlinuz", out); });
}
