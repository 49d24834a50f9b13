// The free-space filter on real file systems made here (sfdisk, mkfs.vfat,
// mke2fs -d on a file; no root): the image is fed to SkipFilter in 4 MiB
// buffers as the decoder would, and every range it skips must be free in
// dumpe2fs's own listing of the ext4's free blocks.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <regex>

#include "image/image_fs.hpp"
#include "image/image_reader.hpp"
#include "image/skip_filter.hpp"
#include "support/testsupport.hpp"

namespace piprov::image {
namespace {

using test::q;
using test::run;

constexpr std::uint64_t kFsImgBytes = 64ull << 20;
constexpr std::uint64_t kFsExtStart = 34816;  // sectors

/// The 64 MiB image of skip_free_test.cpp: FAT "BOOT" (16 MiB), ext4 "writable" with ~12 MiB of files.
std::string make_fs_image(const std::filesystem::path& dir, const std::string& mke2fs_opts) {
  const std::uint64_t sectors = kFsImgBytes / 512 - kFsExtStart;
  auto r = run("set -e; cd " + q(dir.string()) +
               "; mkdir -p root/dir boot; head -c 6M /dev/urandom > root/big.bin; head -c 3M /dev/urandom > "
               "root/dir/mid.bin; for i in $(seq 1 40); do head -c $((i * 997)) /dev/urandom > root/dir/f$i; done; "
               "head -c 2M /dev/urandom > boot/kernel.img; truncate -s " +
               std::to_string(kFsImgBytes) + " t.img; printf 'label: dos\\nstart=2048, size=32768, type=c\\nstart=" +
               std::to_string(kFsExtStart) + ", size=" + std::to_string(sectors) +
               ", type=83\\n' | sfdisk -q t.img; mke2fs -q -F -t ext4 -b 4096 -g 2048 -L writable " + mke2fs_opts +
               " -d root ext.img " + std::to_string(sectors / 8) +
               "; dd if=ext.img of=t.img bs=512 seek=" + std::to_string(kFsExtStart) +
               " conv=notrunc status=none; mkfs.vfat -n BOOT -C fat.img 16384 >/dev/null; mcopy -s -i fat.img "
               "boot/* ::; dd if=fat.img of=t.img bs=512 seek=2048 conv=notrunc status=none");
  return r.exit_code == 0 ? "" : r.out + r.err;
}

/// Feeds the image file to a filter in buffers of `buf_bytes` (4 MiB: as the decoder would).
std::unique_ptr<SkipFilter> filter_file(const std::filesystem::path& img, std::size_t buf_bytes = 4u << 20) {
  auto reader = open_image_reader(img.string());  // the table, read as write reads it
  auto f = std::make_unique<SkipFilter>(read_partition_table(*reader, std::nullopt));
  std::ifstream in(img, std::ios::binary);
  std::vector<std::byte> buf(buf_bytes);
  for (std::uint64_t off = 0;;) {
    in.read(reinterpret_cast<char*>(buf.data()), static_cast<std::streamsize>(buf.size()));
    const auto n = static_cast<std::size_t>(in.gcount());
    if (n == 0) break;
    f->decide({buf.data(), n}, off);
    off += n;
  }
  return f;
}

/// dumpe2fs's free block ranges (all groups, merged), and its free block count.
std::vector<ByteRange> dumpe2fs_free(const std::filesystem::path& ext, std::uint64_t* count) {
  auto r = run("dumpe2fs " + q(ext.string()) + " 2>/dev/null");
  std::smatch m;
  if (std::regex_search(r.out, m, std::regex("\nFree blocks:\\s+(\\d+)"))) *count = std::stoull(m[1]);
  std::vector<ByteRange> out;
  std::regex line("\n  ([0-9]+) free blocks?, [^\n]*\n  Free blocks: ([^\n]*)");
  for (auto it = std::sregex_iterator(r.out.begin(), r.out.end(), line); it != std::sregex_iterator(); ++it) {
    std::string list = (*it)[2];
    std::regex item("(\\d+)(?:-(\\d+))?");
    for (auto j = std::sregex_iterator(list.begin(), list.end(), item); j != std::sregex_iterator(); ++j) {
      const std::uint64_t a = std::stoull((*j)[1]), b = (*j)[2].matched ? std::stoull((*j)[2]) : a;
      if (!out.empty() && out.back().end == a)
        out.back().end = b + 1;
      else
        out.push_back({a, b + 1});
    }
  }
  return out;
}

void expect_only_free_blocks_skipped(const std::string& mke2fs_opts) {
  PIPROV_REQUIRE_TOOL("mke2fs");
  PIPROV_REQUIRE_TOOL("mkfs.vfat");
  PIPROV_REQUIRE_TOOL("sfdisk");
  PIPROV_REQUIRE_TOOL("mcopy");
  test::TempDir tmp("piprov-freefs");
  ASSERT_EQ(make_fs_image(tmp.path, mke2fs_opts), "");
  auto f = filter_file(tmp.path / "t.img");
  auto parts = f->partitions();
  ASSERT_EQ(parts.size(), 2u) << f->note();
  EXPECT_EQ(parts[0].fs, "vfat");
  EXPECT_EQ(parts[0].label, "BOOT");
  EXPECT_GT(parts[0].skipped_bytes, 8ull << 20);
  EXPECT_EQ(parts[1].fs, "ext4") << parts[1].full_reason;
  EXPECT_EQ(parts[1].label, "writable");
  std::uint64_t free_blocks = 0;
  const auto free = dumpe2fs_free(tmp.path / "ext.img", &free_blocks);
  ASSERT_GT(free_blocks, 0u);
  EXPECT_LE(parts[1].skipped_bytes, free_blocks * 4096);
  EXPECT_GE(parts[1].skipped_bytes, free_blocks * 4096 * 85 / 100);
  const std::uint64_t base = kFsExtStart * 512;
  for (const auto& r : f->map().all()) {
    if (r.begin < base) continue;  // the FAT's
    const std::uint64_t b = (r.begin - base) / 4096, e = (r.end - base) / 4096;
    auto it = std::find_if(free.begin(), free.end(), [&](const ByteRange& x) { return x.begin <= b && e <= x.end; });
    EXPECT_NE(it, free.end()) << "blocks " << b << "-" << e << " skipped but not free";
  }
}

TEST(FreeSpaceFs, Ext4WithFlexBgAndBlockUninitGroupsSkipsOnlyFreeBlocks) { expect_only_free_blocks_skipped(""); }

TEST(FreeSpaceFs, Ext4WithoutFlexBgSkipsOnlyFreeBlocks) { expect_only_free_blocks_skipped("-O ^flex_bg"); }

TEST(FreeSpaceFs, DecisionsDoNotDependOnTheBufferSize) {
  PIPROV_REQUIRE_TOOL("mke2fs");
  PIPROV_REQUIRE_TOOL("mkfs.vfat");
  PIPROV_REQUIRE_TOOL("sfdisk");
  PIPROV_REQUIRE_TOOL("mcopy");
  test::TempDir tmp("piprov-freefs");
  ASSERT_EQ(make_fs_image(tmp.path, "-O ^flex_bg"), "");
  const auto a = filter_file(tmp.path / "t.img")->map().all();
  ASSERT_FALSE(a.empty());
  // A write's buffers (a multiple of max_sectors_kb) and verify's (4 MiB) differ; odd sizes too.
  for (std::size_t bytes : {std::size_t{1280} << 10, std::size_t{8} << 20, std::size_t{100003}})
    EXPECT_EQ(filter_file(tmp.path / "t.img", bytes)->map().all(), a) << bytes << "-byte buffers";
}

// The one ext2/3/4 superblock test (s_magic 0xEF53, little-endian, at byte 0x38 of the superblock at
// byte 1024): true for mke2fs's ext4, false for the FAT, a byte-swapped or cut magic, too small a partition.
TEST(ExtSuperblock, IsTheMagicLittleEndianAtByte56OfTheSuperblock) {
  std::vector<std::byte> sb(1024);
  EXPECT_FALSE(is_ext_superblock(sb));
  sb[56] = std::byte{0x53};
  sb[57] = std::byte{0xef};
  EXPECT_TRUE(is_ext_superblock(sb));
  EXPECT_TRUE(is_ext_superblock(std::span(sb).first(58)));
  EXPECT_FALSE(is_ext_superblock(std::span(sb).first(57)));  // the magic cut
  std::swap(sb[56], sb[57]);                                 // 0xEF53 written big-endian
  EXPECT_FALSE(is_ext_superblock(sb));

  PIPROV_REQUIRE_TOOL("mke2fs");
  PIPROV_REQUIRE_TOOL("mkfs.vfat");
  PIPROV_REQUIRE_TOOL("sfdisk");
  PIPROV_REQUIRE_TOOL("mcopy");
  test::TempDir tmp("piprov-freefs");
  ASSERT_EQ(make_fs_image(tmp.path, ""), "");
  auto reader = open_image_reader((tmp.path / "t.img").string());
  const std::uint64_t ext_at = kFsExtStart * 512, ext_bytes = kFsImgBytes - ext_at;
  EXPECT_TRUE(has_ext_superblock(*reader, ext_at, ext_bytes));
  EXPECT_FALSE(has_ext_superblock(*reader, 2048 * 512, 16ull << 20));  // the FAT
  EXPECT_FALSE(has_ext_superblock(*reader, ext_at, 2047));             // cannot hold the superblock
  std::vector<std::byte> from_file(1024);
  reader->read_at(from_file, ext_at + kExtSuperblockOffset);
  EXPECT_TRUE(is_ext_superblock(from_file));
}

TEST(FreeSpaceFs, DamagedSuperblockIsNotRead) {
  PIPROV_REQUIRE_TOOL("mke2fs");
  PIPROV_REQUIRE_TOOL("sfdisk");
  test::TempDir tmp("piprov-freefs");
  ASSERT_EQ(make_fs_image(tmp.path, ""), "");
  ASSERT_EQ(run("printf '\\377\\377\\377\\377' | dd of=" + q((tmp.path / "t.img").string()) +
                " bs=1 seek=" + std::to_string(kFsExtStart * 512 + 1024 + 48) + " conv=notrunc status=none")
                .exit_code,
            0);
  auto f = filter_file(tmp.path / "t.img");
  auto parts = f->partitions();
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[1].skipped_bytes, 0u);
  EXPECT_NE(parts[1].full_reason.find("superblock damaged: "), std::string::npos) << parts[1].full_reason;
  EXPECT_GT(parts[0].skipped_bytes, 0u);  // the FAT is still read
}

}  // namespace
}  // namespace piprov::image
