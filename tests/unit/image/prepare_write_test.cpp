// prepare_write() and run_write() (issue 31: a write prepared once): the
// checks before the first byte, the partition table read once through the
// image reader (read_head(): a sequential image is not decoded to its end),
// an image cut short refused by write and verify, provision's intent.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "core/error.hpp"
#include "image/image_fs.hpp"
#include "image/image_reader.hpp"
#include "image/partition_table.hpp"
#include "image/verify.hpp"
#include "image/write.hpp"
#include "support/testsupport.hpp"
#include "write_test_support.hpp"

namespace piprov::image {
namespace {

/// A 4 MiB image whose MBR names one Linux partition from 1 MiB to 9 MiB: an image cut
/// short (an interrupted download) ends inside it.
std::string cut_mbr_image() {
  std::string img = write_test::pattern(4u << 20);
  std::fill(img.begin(), img.begin() + 512, '\0');
  auto le32 = [&](std::size_t at, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) img[at + i] = static_cast<char>((v >> (8 * i)) & 0xff);
  };
  img[446 + 4] = static_cast<char>(0x83);
  le32(446 + 8, 2048);    // start LBA
  le32(446 + 12, 16384);  // 8 MiB of sectors
  img[510] = static_cast<char>(0x55), img[511] = static_cast<char>(0xaa);
  return img;
}

// A raw image cut short ends inside its last partition: refused before
// anything is written; the whole image is fine.
TEST(PrepareWrite, RawImageThatEndsBeforeItsPartitionIsRefused) {
  test::TempDir d;
  std::string img = cut_mbr_image();
  test::write_file(d.path / "cut.img", img);
  try {
    prepare_write(write_test::opts((d.path / "cut.img").string(), (d.path / "out.img").string()));
    FAIL() << "a cut image was prepared";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Usage);
    EXPECT_EQ(std::string(e.what()), (d.path / "cut.img").string() +
                                         " ends at byte 4194304 (4.0 MiB), before its partition 1 ends (byte 9437184, "
                                         "9.0 MiB): an incomplete download or a cut copy; download it again (nothing "
                                         "was written)");
  }
  EXPECT_FALSE(std::filesystem::exists(d.path / "out.img"));
  img.resize(9u << 20, '\0');  // complete: the partition ends at the file's end
  test::write_file(d.path / "whole.img", img);
  auto r = write_image(write_test::opts((d.path / "whole.img").string(), (d.path / "out.img").string()));
  EXPECT_EQ(r.succeeded(), 1u);
}

// An image cut before it was compressed (xz of a cut .img, issue 29): its
// decoded size (the xz index) ends inside its partition: write and verify
// refuse it, for a single-block and a multi-block .xz alike.
TEST(PrepareWrite, XzOfACutImageIsRefusedByWriteAndVerify) {
  test::TempDir d;
  const std::string img = cut_mbr_image();
  test::write_file(d.path / "cut.img", img);
  test::write_file(d.path / "other.img", img);
  for (const std::string flags : {"-T1", "-T2 --block-size=1MiB"}) {
    auto r = test::run("xz -0 -k -c " + flags + " " + test::q((d.path / "cut.img").string()) + " > " +
                       test::q((d.path / "cut.img.xz").string()));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string xz = (d.path / "cut.img.xz").string();
    const std::string want = xz +
                             " ends at byte 4194304 (4.0 MiB) once decoded, before its partition 1 ends (byte "
                             "9437184, 9.0 MiB): an incomplete download or a cut copy; download it again (";
    test::expect_error(ErrorKind::Usage, want + "nothing was written)",
                       [&] { write_image(write_test::opts(xz, (d.path / "out.img").string())); });
    EXPECT_FALSE(std::filesystem::exists(d.path / "out.img"));
    test::expect_error(ErrorKind::Usage, want + "nothing was compared)",
                       [&] { verify_image(xz, (d.path / "other.img").string(), 0, {}, false); });
  }
}

// The prepared write holds the image's table, read once; nothing is written
// until run_write(), which then writes the image.
TEST(PrepareWrite, HoldsThePartitionTableAndWritesOnlyWhenRun) {
  test::TempDir d;
  std::string img = cut_mbr_image();
  img.resize(9u << 20, '\0');
  test::write_file(d.path / "in.img", img);
  const std::string out = (d.path / "out.img").string();
  PreparedWrite p = prepare_write(write_test::opts((d.path / "in.img").string(), out));
  const PartitionTable& t = p.partition_table();
  EXPECT_EQ(t.scheme, TableScheme::Dos);
  ASSERT_EQ(t.parts.size(), 1u);
  EXPECT_EQ(t.parts[0].number, 1u);
  EXPECT_EQ(t.parts[0].offset, 1u << 20);
  EXPECT_EQ(t.parts[0].size, 8u << 20);
  EXPECT_EQ(t.parts[0].kind, PartKind::Linux);
  EXPECT_EQ(p.reader().size(), 9u << 20);
  EXPECT_FALSE(std::filesystem::exists(out));  // prepared: nothing written, nothing asked
  WriteResult r = run_write(std::move(p));
  EXPECT_EQ(r.succeeded(), 1u);
  EXPECT_EQ(test::read_file(out), img);
}

// An image of no partition table prepares with scheme None (provision refuses it).
TEST(PrepareWrite, AnImageWithoutATableHasNoScheme) {
  test::TempDir d;
  test::write_file(d.path / "in.img", write_test::pattern(1u << 20));
  PreparedWrite p = prepare_write(write_test::opts((d.path / "in.img").string(), (d.path / "out.img").string()));
  EXPECT_EQ(p.partition_table().scheme, TableScheme::None);
  EXPECT_TRUE(p.partition_table().parts.empty());
}

// provision's intent: only whole disks; a file target is refused before anything.
TEST(PrepareWrite, ProvisionIntentRefusesAFileTarget) {
  test::TempDir d;
  test::write_file(d.path / "in.img", write_test::pattern(1u << 20));
  WriteOptions o = write_test::opts((d.path / "in.img").string(), (d.path / "out.img").string());
  EXPECT_NO_THROW(prepare_write(o));  // write takes a file
  o.intent = WriteIntent::ProvisionDisk;
  try {
    prepare_write(o);
    FAIL() << "provision took a file";
  } catch (const TargetsRefused& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Usage);
    ASSERT_EQ(e.per_target().size(), 1u);
    EXPECT_NE(e.per_target()[0].find(o.targets[0]), std::string::npos) << e.per_target()[0];
  }
  EXPECT_FALSE(std::filesystem::exists(d.path / "out.img"));
}

// read_head() of a sequential image (gzip: no size in its header) decodes its
// first bytes only; the table read through it is the raw file's.
TEST(PrepareWrite, TableOfASequentialImageIsReadFromItsHeadOnly) {
  test::TempDir d;
  std::string img = cut_mbr_image();
  img.resize(24u << 20, '\0');
  test::write_file(d.path / "in.img", img);
  ASSERT_EQ(test::run("gzip -1 -k " + test::q((d.path / "in.img").string())).exit_code, 0);
  auto reader = open_image_reader((d.path / "in.img.gz").string());
  ASSERT_FALSE(reader->random_access());
  std::vector<std::byte> head(100);
  ASSERT_EQ(reader->read_head(head), 100u);
  EXPECT_EQ(std::memcmp(head.data(), img.data(), 100), 0);
  const PartitionTable t = read_partition_table(*reader, std::nullopt);
  ASSERT_EQ(t.parts.size(), 1u);
  EXPECT_EQ(t.parts[0].offset + t.parts[0].size, 9u << 20);
  EXPECT_LE(reader->stats().bytes_decoded, 2 * kPartitionTableBytes);   // its head (twice), not the 24 MiB image
  EXPECT_EQ(read_partition_table(*reader, 4u << 20).parts.size(), 0u);  // bounded at 4 MiB: outside
  EXPECT_EQ(read_partition_table(*reader, 4u << 20).note, "partition 1 lies outside the image");
}

}  // namespace
}  // namespace piprov::image
