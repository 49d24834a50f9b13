// An MBR's logical partitions (partition_table.hpp with_logical_partitions(),
// read_logical_partitions()): EBR chains written here byte by byte into a
// memory image (Wikipedia "Extended boot record": an EBR's first entry is its
// logical partition, relative to the EBR; its second the next EBR, relative to
// the extended partition's start), read through a counting positional read: a
// chain of two, a cycle, a link and a partition outside the extended
// partition, an EBR without 55 AA, a chain past the cap.
#include <gtest/gtest.h>

#include <cstring>

#include "image/partition_table.hpp"

namespace piprov::image {
namespace {

constexpr std::uint64_t kEbrTestSector = 512;

/// A memory image of `sectors` sectors and the reads made of it.
struct EbrTestImage {
  std::vector<std::byte> bytes;
  std::vector<std::uint64_t> reads;  ///< offsets asked for
  explicit EbrTestImage(std::uint64_t sectors) : bytes(sectors * kEbrTestSector) {}

  /// Entry `slot` (0-3) of the table in the sector at `sector`, and its 55 AA.
  void entry(std::uint64_t sector, unsigned slot, unsigned type, std::uint32_t start, std::uint32_t count) {
    std::byte* s = bytes.data() + sector * kEbrTestSector;
    std::byte* e = s + 446 + 16 * slot;
    e[4] = std::byte(type);
    for (int i = 0; i < 4; ++i) {
      e[8 + i] = std::byte((start >> (8 * i)) & 0xff);
      e[12 + i] = std::byte((count >> (8 * i)) & 0xff);
    }
    s[510] = std::byte{0x55};
    s[511] = std::byte{0xaa};
  }
  ReadAtFn read() {
    return [this](std::span<std::byte> out, std::uint64_t at) {
      reads.push_back(at);
      ASSERT_LE(at + out.size(), bytes.size());
      std::memcpy(out.data(), bytes.data() + at, out.size());
    };
  }
  PartitionTable table() { return parse_partition_table(std::span(bytes).first(64 << 10), bytes.size()); }
};

/// 1 MiB images: p1 FAT at sector 8 (8 sectors), p2 extended from sector 64 to the end (1984 sectors).
EbrTestImage ebr_test_disk(unsigned extended_type = 0x05) {
  EbrTestImage img(2048);
  img.entry(0, 0, 0x0c, 8, 8);
  img.entry(0, 1, extended_type, 64, 1984);
  return img;
}

TEST(LogicalPartitions, AChainOfTwoIsNumberedFiveAndSixAfterTheExtendedPartition) {
  for (unsigned type : {0x05u, 0x0fu, 0x85u}) {
    SCOPED_TRACE(type);
    EbrTestImage img = ebr_test_disk(type);
    img.entry(64, 0, 0x83, 16, 100);   // logical 5: sectors 80-179 (relative to its EBR at 64)
    img.entry(64, 1, 0x05, 200, 300);  // next EBR at 64 + 200 = 264 (relative to the extended partition)
    img.entry(264, 0, 0x0c, 8, 1000);  // logical 6: sectors 272-1271
    const PartitionTable primary = img.table();
    ASSERT_EQ(primary.parts.size(), 2u);
    EXPECT_TRUE(primary.parts[1].extended);
    EXPECT_EQ(primary.parts[1].kind, PartKind::Other);
    EXPECT_FALSE(primary.parts[0].extended);

    const PartitionTable t = with_logical_partitions(primary, img.read());
    EXPECT_EQ(t.logical_note, "");
    ASSERT_EQ(t.parts.size(), 4u);
    EXPECT_EQ(t.parts[2].number, 5u);
    EXPECT_EQ(t.parts[2].offset, 80 * kEbrTestSector);
    EXPECT_EQ(t.parts[2].size, 100 * kEbrTestSector);
    EXPECT_EQ(t.parts[2].type, "0x83");
    EXPECT_EQ(t.parts[2].kind, PartKind::Linux);
    EXPECT_TRUE(t.parts[2].logical);
    EXPECT_EQ(t.parts[3].number, 6u);
    EXPECT_EQ(t.parts[3].offset, 272 * kEbrTestSector);
    EXPECT_EQ(t.parts[3].size, 1000 * kEbrTestSector);
    EXPECT_EQ(t.parts[3].type, "0x0c");
    EXPECT_EQ(t.parts[3].kind, PartKind::Fat);
    EXPECT_FALSE(t.parts[0].logical);
    EXPECT_EQ(img.reads, (std::vector<std::uint64_t>{64 * kEbrTestSector, 264 * kEbrTestSector}));
    // A logical partition inside its extended partition is no overlap: the table stays usable.
    const PartitionTable bounded = bounded_table(t, img.bytes.size());
    EXPECT_EQ(bounded.note, "");
    EXPECT_EQ(bounded.parts.size(), 4u);
  }
}

TEST(LogicalPartitions, ACycleIsReadOnceAndNoted) {
  EbrTestImage img = ebr_test_disk();
  img.entry(64, 0, 0x83, 16, 100);
  img.entry(64, 1, 0x05, 200, 300);
  img.entry(264, 0, 0x83, 8, 100);
  img.entry(264, 1, 0x05, 0, 300);  // back to the first EBR
  const PartitionTable t = with_logical_partitions(img.table(), img.read());
  ASSERT_EQ(t.parts.size(), 4u);
  EXPECT_EQ(t.parts[3].number, 6u);
  EXPECT_EQ(t.logical_note,
            "the EBR chain of extended partition 2 comes back to byte 32768 (a loop): it was read once");
  EXPECT_EQ(img.reads.size(), 2u);

  // An EBR linking to itself.
  EbrTestImage self = ebr_test_disk();
  self.entry(64, 0, 0x83, 16, 100);
  self.entry(64, 1, 0x05, 0, 300);
  const PartitionTable s = with_logical_partitions(self.table(), self.read());
  EXPECT_EQ(s.parts.size(), 3u);
  EXPECT_EQ(s.logical_note,
            "the EBR chain of extended partition 2 comes back to byte 32768 (a loop): it was read once");
  EXPECT_EQ(self.reads.size(), 1u);
}

TEST(LogicalPartitions, ALinkOrAPartitionOutsideTheExtendedPartitionStopsTheWalk) {
  EbrTestImage img = ebr_test_disk();
  img.entry(64, 0, 0x83, 16, 100);
  img.entry(64, 1, 0x05, 1984, 300);  // 64 + 1984 = 2048: past the extended partition (and the image)
  const PartitionTable t = with_logical_partitions(img.table(), img.read());
  ASSERT_EQ(t.parts.size(), 3u);
  EXPECT_EQ(t.parts[2].number, 5u);
  EXPECT_EQ(t.logical_note, "the EBR chain of extended partition 2 links outside it (byte 1048576)");
  EXPECT_EQ(img.reads.size(), 1u);

  EbrTestImage big = ebr_test_disk();
  big.entry(64, 0, 0x83, 16, 1984);  // sectors 80-2063: past the extended partition's end (2047)
  const PartitionTable b = with_logical_partitions(big.table(), big.read());
  EXPECT_EQ(b.parts.size(), 2u);
  EXPECT_EQ(b.logical_note, "logical partition 5 (EBR at byte 32768) does not lie inside extended partition 2");

  EbrTestImage own = ebr_test_disk();
  own.entry(64, 0, 0x83, 0, 10);  // starts on its own EBR
  EXPECT_EQ(with_logical_partitions(own.table(), own.read()).parts.size(), 2u);
}

TEST(LogicalPartitions, AMissingEbrAndTheCapStopWithANote) {
  EbrTestImage none = ebr_test_disk();  // no 55 AA at the extended partition's start
  const PartitionTable n = with_logical_partitions(none.table(), none.read());
  EXPECT_EQ(n.parts.size(), 2u);
  EXPECT_EQ(n.logical_note, "extended partition 2 has no EBR (55 AA) at byte 32768");

  // 200 EBRs, each followed by its one-sector logical partition: the first kMaxLogicalPartitions are read.
  EbrTestImage img = ebr_test_disk();
  for (std::uint32_t i = 0; i < 200; ++i) {
    img.entry(64 + 2 * i, 0, 0x83, 1, 1);
    if (i + 1 < 200) img.entry(64 + 2 * i, 1, 0x05, 2 * (i + 1), 2);
  }
  const PartitionTable t = with_logical_partitions(img.table(), img.read());
  ASSERT_EQ(t.parts.size(), 2u + kMaxLogicalPartitions);
  EXPECT_EQ(t.parts.back().number, 4u + kMaxLogicalPartitions);
  EXPECT_EQ(t.parts.back().offset, (64 + 2 * (kMaxLogicalPartitions - 1) + 1) * kEbrTestSector);
  EXPECT_EQ(img.reads.size(), kMaxLogicalPartitions);
  EXPECT_EQ(t.logical_note, "the EBR chain of extended partition 2 goes on past 128 EBRs: the rest was not read");
}

TEST(LogicalPartitions, GptAndTablesWithoutAnExtendedPartitionAreReadAsTheyAre) {
  EbrTestImage img(2048);
  img.entry(0, 0, 0x0c, 8, 8);
  img.entry(0, 1, 0x83, 64, 1984);
  const PartitionTable t = with_logical_partitions(img.table(), img.read());
  EXPECT_EQ(t.parts.size(), 2u);
  EXPECT_TRUE(img.reads.empty());
  EXPECT_FALSE(t.parts[1].extended);
}

}  // namespace
}  // namespace piprov::image
