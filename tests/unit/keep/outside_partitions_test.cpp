// The regions outside every partition that backup reads or does not copy
// (keep/outside_partitions.hpp; docs/keep.md "Backups").
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "keep/outside_partitions.hpp"

namespace piprov::keep {
namespace {

constexpr std::uint64_t kOpMiB = 1ull << 20;

image::PartitionTable op_table(const std::string& scheme, std::vector<std::pair<std::uint64_t, std::uint64_t>> parts) {
  image::PartitionTable t;
  t.scheme = image::parse_scheme(scheme).value();
  unsigned n = 0;
  for (auto [off, size] : parts) t.parts.push_back({++n, off, size, "0x83", image::PartKind::Linux});
  return t;
}

/// A GPT table whose primary header names `alternate` and `last_usable`.
image::PartitionTable op_gpt(std::vector<std::pair<std::uint64_t, std::uint64_t>> parts, std::uint64_t alternate,
                             std::uint64_t last_usable) {
  image::PartitionTable t = op_table("gpt", std::move(parts));
  t.gpt = image::GptBounds{last_usable, alternate};
  return t;
}

TEST(KeepOutside, MbrCardWithAnUnpartitionedEnd) {
  // An 8 GiB card: partition 1 at 4 MiB (512 MiB), a 4 MiB gap, partition 2 at 520 MiB (1000 MiB), the end.
  const std::uint64_t disk = 8192 * kOpMiB;
  auto r = outside_partitions(op_table("dos", {{4 * kOpMiB, 512 * kOpMiB}, {520 * kOpMiB, 1000 * kOpMiB}}), disk);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].where, "before partition 1");
  EXPECT_EQ(r[0].offset, 0u);
  EXPECT_EQ(r[0].size, 4 * kOpMiB);
  EXPECT_TRUE(r[0].read);
  EXPECT_EQ(r[1].where, "between partitions 1 and 2");
  EXPECT_EQ(r[1].offset, 516 * kOpMiB);
  EXPECT_EQ(r[1].size, 4 * kOpMiB);
  EXPECT_FALSE(r[1].read);
  EXPECT_EQ(r[2].where, "after partition 2");
  EXPECT_EQ(r[2].offset, 1520 * kOpMiB);
  EXPECT_EQ(r[2].size, disk - 1520 * kOpMiB);
  EXPECT_FALSE(r[2].read);
  EXPECT_EQ(unpartitioned_skipped_bytes(r), 4 * kOpMiB + disk - 1520 * kOpMiB);
  EXPECT_EQ(outside_region_line(r[2]),
            "unpartitioned: 6.5 GiB after partition 2 (from 1.5 GiB to 8.0 GiB): not copied (zeros in the image)");
  EXPECT_EQ(outside_region_line(r[0]),
            "outside the partitions: 4.0 MiB before partition 1 (from 0 B to 4.0 MiB): the partition table and boot "
            "loader area: read in full");
}

TEST(KeepOutside, AGapWithinTheFirstMiBIsRead) {
  // Old DOS alignment: partition 1 at sector 63 ending at 512 KiB, partition 2 at 2 MiB.
  auto r =
      outside_partitions(op_table("dos", {{63 * 512, 512 * 1024 - 63 * 512}, {2 * kOpMiB, 2 * kOpMiB}}), 4 * kOpMiB);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[1].offset, 512u * 1024);
  EXPECT_EQ(r[1].size, 512u * 1024);
  EXPECT_TRUE(r[1].read);
  EXPECT_EQ(r[1].why, "within the first MiB (partition table, boot loader)");
  EXPECT_EQ(r[2].offset, kOpMiB);
  EXPECT_EQ(r[2].size, kOpMiB);
  EXPECT_FALSE(r[2].read);
}

TEST(KeepOutside, GptBackupIsReadTheSpaceAroundItIsNot) {
  // A 64 MiB image's GPT (backup header at LBA 131071) on a 128 MiB disk: the image's end, then the rest.
  auto r = outside_partitions(op_gpt({{kOpMiB, 32 * kOpMiB}}, 131071, 131038), 128 * kOpMiB);
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[1].where, "after partition 1");
  EXPECT_EQ(r[1].offset, 33 * kOpMiB);
  EXPECT_EQ(r[1].size, 131039 * 512 - 33 * kOpMiB);
  EXPECT_FALSE(r[1].read);
  EXPECT_EQ(r[2].where, "at the end of the disk");
  EXPECT_EQ(r[2].offset, 131039u * 512);
  EXPECT_EQ(r[2].size, 33u * 512);
  EXPECT_TRUE(r[2].read);
  EXPECT_EQ(r[2].why, "the GPT's backup entries and header (LBA 131039 to 131071)");
  EXPECT_EQ(r[3].where, "after the GPT's backup header");
  EXPECT_EQ(r[3].offset, 64 * kOpMiB);
  EXPECT_EQ(r[3].size, 64 * kOpMiB);
  EXPECT_FALSE(r[3].read);
  EXPECT_EQ(outside_region_line(r[2]),
            "outside the partitions: 16.5 KiB at the end of the disk: the GPT's backup entries and header (LBA 131039 "
            "to 131071): read in full");
}

TEST(KeepOutside, AGptHeaderThatDoesNotPlaceItsBackupLeavesTheEndRead) {
  // Last usable LBA inside partition 1: the header does not fit the table.
  auto r = outside_partitions(op_gpt({{kOpMiB, 32 * kOpMiB}}, 131071, 1000), 64 * kOpMiB);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[1].offset, 33 * kOpMiB);
  EXPECT_EQ(r[1].size, 31 * kOpMiB);
  EXPECT_TRUE(r[1].read);
  EXPECT_NE(r[1].why.find("last usable LBA 1000 and backup header LBA 131071"), std::string::npos) << r[1].why;
  // No header read: the end is read too.
  r = outside_partitions(op_table("gpt", {{kOpMiB, 32 * kOpMiB}}), 64 * kOpMiB);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_TRUE(r[1].read);
}

TEST(KeepOutside, NoTableOrOneNotUsedGivesNoRegionsAndTheMapIsTheFilesystemsOnly) {
  EXPECT_TRUE(outside_partitions(op_table("", {}), 64 * kOpMiB).empty());
  // Partition 2 overlaps partition 1: bounded_table() refuses the table, the whole disk is read.
  EXPECT_TRUE(
      outside_partitions(op_table("dos", {{kOpMiB, 32 * kOpMiB}, {16 * kOpMiB, 8 * kOpMiB}}), 64 * kOpMiB).empty());
  // The merged map: free space and the regions not read, overlaps clipped, in order.
  image::WriteMap free_space, merged;
  free_space.add({2 * kOpMiB, 3 * kOpMiB});
  free_space.add({30 * kOpMiB, 33 * kOpMiB});
  auto r = outside_partitions(op_table("dos", {{kOpMiB, 32 * kOpMiB}}), 64 * kOpMiB);
  merge_skip_map(free_space, r, merged);
  EXPECT_EQ(merged.all(), (std::vector<image::ByteRange>{{2 * kOpMiB, 3 * kOpMiB}, {30 * kOpMiB, 64 * kOpMiB}}));
  EXPECT_EQ(merged.skipped_bytes(), kOpMiB + 34 * kOpMiB);
}

}  // namespace
}  // namespace piprov::keep
