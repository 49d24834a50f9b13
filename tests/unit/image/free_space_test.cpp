// The pieces of the free-space filter that need no tools: written/skipped
// range arithmetic, the stream capture, the MBR/GPT and FAT parsers.
#include <gtest/gtest.h>

#include <cstring>

#include "image/fat_map.hpp"
#include "image/partition_table.hpp"
#include "image/scan.hpp"
#include "image/skip_filter.hpp"

namespace piprov::image {
namespace {

void put_le(std::vector<std::byte>& b, std::size_t off, std::uint64_t v, unsigned n) {
  for (unsigned i = 0; i < n; ++i) b[off + i] = static_cast<std::byte>((v >> (8 * i)) & 0xff);
}

TEST(FreeSpaceRanges, ForEachWrittenGivesThePiecesBetweenSkippedRanges) {
  std::vector<ByteRange> skipped{{100, 200}, {300, 400}};
  std::vector<ByteRange> got;
  for_each_written(150, 300, skipped, [&](std::uint64_t b, std::uint64_t e) { got.push_back({b, e}); });
  EXPECT_EQ(got, (std::vector<ByteRange>{{200, 300}, {400, 450}}));
  got.clear();
  for_each_written(0, 50, skipped, [&](std::uint64_t b, std::uint64_t e) { got.push_back({b, e}); });
  EXPECT_EQ(got, (std::vector<ByteRange>{{0, 50}}));
  EXPECT_EQ(bytes_within(skipped, 150, 350), 100u);
}

TEST(FreeSpaceRanges, WriteMapMergesAndClips) {
  WriteMap m;
  m.add({4096, 8192});
  m.add({8192, 16384});
  m.add({32768, 40960});
  EXPECT_EQ(m.all(), (std::vector<ByteRange>{{4096, 16384}, {32768, 40960}}));
  EXPECT_EQ(m.skipped_bytes(), 20480u);
  EXPECT_EQ(m.skipped_in(10000, 30000), (std::vector<ByteRange>{{10000, 16384}, {32768, 40000}}));
}

TEST(FreeSpaceCapture, RequestsAreServedAcrossFeedsAndFromTheSameFeedInCallbacks) {
  StreamCapture cap;
  std::vector<std::byte> data(1000);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::byte>(i & 0xff);
  std::vector<std::byte> second;
  bool late = true;
  ASSERT_TRUE(cap.request(10, 20, [&](std::vector<std::byte>&& d) {
    EXPECT_EQ(std::to_integer<int>(d[0]), 10);
    late = cap.request(100, 900, [&](std::vector<std::byte>&& d2) { second = std::move(d2); });  // same feed
  }));
  cap.feed({data.data(), 500}, 0);
  EXPECT_TRUE(late);
  EXPECT_TRUE(second.empty());
  cap.feed({data.data() + 500, 500}, 500);
  ASSERT_EQ(second.size(), 900u);
  EXPECT_EQ(std::to_integer<int>(second[899]), 999 & 0xff);
  EXPECT_FALSE(cap.request(10, 4, [](std::vector<std::byte>&&) {}));  // already streamed by
}

TEST(FreeSpacePartitions, MbrEntriesWithKinds) {
  std::vector<std::byte> head(kPartitionTableBytes);
  head[510] = std::byte{0x55};
  head[511] = std::byte{0xaa};
  auto entry = [&](int i, unsigned type, std::uint64_t start, std::uint64_t sectors) {
    head[446 + 16 * i + 4] = static_cast<std::byte>(type);
    put_le(head, 446 + 16 * i + 8, start, 4);
    put_le(head, 446 + 16 * i + 12, sectors, 4);
  };
  entry(0, 0x0c, 2048, 2048);
  entry(1, 0x83, 4096, 8192);
  entry(2, 0xda, 12288, 100);
  auto t = parse_partition_table(head, 0);
  EXPECT_EQ(t.scheme, TableScheme::Dos);
  ASSERT_EQ(t.parts.size(), 3u);
  EXPECT_EQ(t.parts[0].kind, PartKind::Fat);
  EXPECT_EQ(t.parts[1].kind, PartKind::Linux);
  EXPECT_EQ(t.parts[1].offset, 4096u * 512);
  EXPECT_EQ(t.parts[2].kind, PartKind::Other);
  EXPECT_EQ(t.parts[2].type, "0xda");
  entry(2, 0xda, 12000, 100);  // overlaps partition 2: nothing is read
  t = parse_partition_table(head, 0);
  EXPECT_TRUE(t.parts.empty());
  EXPECT_NE(t.note.find("overlaps"), std::string::npos);
  head[510] = std::byte{0};
  EXPECT_EQ(parse_partition_table(head, 0).scheme, TableScheme::None);
}

// The scheme names are the JSON values ("table", "disk_label") and libblkid's/libfdisk's names.
TEST(FreeSpacePartitions, SchemeNamesRoundTrip) {
  for (auto s : {TableScheme::None, TableScheme::Dos, TableScheme::Gpt}) EXPECT_EQ(parse_scheme(scheme_name(s)), s);
  EXPECT_EQ(scheme_name(TableScheme::Dos), "dos");
  EXPECT_EQ(scheme_name(TableScheme::Gpt), "gpt");
  EXPECT_EQ(scheme_name(TableScheme::None), "");
  EXPECT_EQ(parse_scheme("gpt"), TableScheme::Gpt);
  EXPECT_EQ(parse_scheme("bsd"), std::nullopt);  // another libblkid table type
  EXPECT_EQ(parse_scheme("DOS"), std::nullopt);
}

/// A FAT16 boot sector: 512-byte sectors, 4 sectors per cluster, 1 reserved, 2 FATs of 32 sectors, 512 root entries.
std::vector<std::byte> fat16_boot(std::uint64_t total_sectors) {
  std::vector<std::byte> s(512);
  s[0] = std::byte{0xEB};
  put_le(s, 11, 512, 2);
  s[13] = std::byte{4};
  put_le(s, 14, 1, 2);
  s[16] = std::byte{2};
  put_le(s, 17, 512, 2);
  put_le(s, 19, total_sectors, 2);
  put_le(s, 22, 32, 2);
  std::memcpy(s.data() + 43, "BOOT       ", 11);
  s[510] = std::byte{0x55};
  s[511] = std::byte{0xaa};
  return s;
}

TEST(FreeSpaceFat, BootSectorLayoutAndFreeClustersFromEveryCopy) {
  std::string why;
  auto l = parse_fat_boot_sector(fat16_boot(20000), 20000 * 512, &why);
  ASSERT_TRUE(l) << why;
  EXPECT_EQ(l->bits, 16u);  // (20000 - 1 - 64 - 32) / 4 = 4975 clusters
  EXPECT_EQ(l->clusters, 4975u);
  EXPECT_EQ(l->data_offset, (1u + 64 + 32) * 512);
  EXPECT_EQ(l->label, "BOOT");
  std::vector<std::byte> fats(l->fat_bytes * 2);
  put_le(fats, 2 * 2, 0xFFFF, 2);                 // cluster 2 used in FAT 1
  put_le(fats, l->fat_bytes + 2 * 4, 0xFFFF, 2);  // cluster 4 used in FAT 2 only
  auto free = fat_free_ranges(*l, fats);
  ASSERT_EQ(free.size(), 2u);
  EXPECT_EQ(free[0], (ByteRange{l->data_offset + 2048, l->data_offset + 2 * 2048}));  // cluster 3
  EXPECT_EQ(free[1].begin, l->data_offset + 3 * 2048);
  EXPECT_EQ(free[1].end, l->data_offset + 4975 * 2048);
}

TEST(FreeSpaceFat, InconsistentBootSectorsAreRefused) {
  std::string why;
  EXPECT_FALSE(parse_fat_boot_sector(fat16_boot(20000), 10000 * 512, &why));  // larger than its partition
  EXPECT_NE(why.find("larger than its partition"), std::string::npos);
  auto s = fat16_boot(20000);
  s[13] = std::byte{3};  // sectors per cluster not a power of two
  EXPECT_FALSE(parse_fat_boot_sector(s, 20000 * 512, &why));
  s = fat16_boot(20000);
  s[0] = std::byte{0};
  EXPECT_FALSE(parse_fat_boot_sector(s, 20000 * 512, &why));
}

TEST(FreeSpaceSummary, SaysWhatWasWrittenSkippedAndWhy) {
  std::vector<PartitionSkip> parts(3);
  parts[0].number = 1, parts[0].label = "system-boot", parts[0].skipped_bytes = 100u << 20;
  parts[1].number = 2, parts[1].label = "writable", parts[1].skipped_bytes = 1u << 30;
  parts[2].number = 3, parts[2].full_reason = "type 0xda is not a file system piprov reads";
  EXPECT_EQ(skip_summary(false, 3ull << 30, (1u << 30) + (100u << 20), parts, ""),
            "wrote 1.9 GiB of 3.0 GiB; skipped 100.0 MiB free in system-boot, 1.0 GiB in writable; partition 3: "
            "type 0xda is not a file system piprov reads: written in full");
  EXPECT_EQ(skip_summary(true, 3ull << 30, 0, {}, ""), "wrote every byte of 3.0 GiB (--full)");
}

}  // namespace
}  // namespace piprov::image
