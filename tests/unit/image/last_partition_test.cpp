// last_data_partition() and extended_container_of() (partition_table.hpp) on
// the tables read_image_partitions() (image_fs.hpp) reads from image files
// made here with sfdisk (no root): an MBR's logical partitions listed from the
// EBR chain, the extended partition marked; a GPT; a file with no table.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "image/disk_reader.hpp"
#include "image/image_fs.hpp"
#include "image/partition_table.hpp"
#include "support/testsupport.hpp"

namespace piprov::image {
namespace {

using test::q;
using test::run;

PartitionTable last_test_table(const std::filesystem::path& img) {
  return read_image_partitions(*open_disk_reader(img.string()));
}

TEST(LastPartition, MbrLogicalPartitionsAreListedAndTheExtendedOneMarked) {
  PIPROV_REQUIRE_TOOL("sfdisk");
  test::TempDir tmp("piprov-table");
  const auto img = tmp.path / "d.img";
  ASSERT_EQ(run("truncate -s 200M " + q(img.string()) +
                " && printf 'label: dos\\n1MiB,16MiB,c\\n17MiB,,5\\n18MiB,16MiB,83\\n35MiB,,83\\n' | sfdisk -q " +
                q(img.string()))
                .exit_code,
            0);
  const PartitionTable t = last_test_table(img);
  EXPECT_EQ(t.scheme, TableScheme::Dos);
  EXPECT_EQ(t.note, "");
  EXPECT_EQ(t.logical_note, "");
  ASSERT_EQ(t.parts.size(), 4u);
  const std::uint64_t MiB = 1u << 20;
  EXPECT_EQ(t.parts[0].number, 1u);
  EXPECT_EQ(t.parts[0].offset, 1 * MiB);
  EXPECT_EQ(t.parts[0].size, 16 * MiB);
  EXPECT_FALSE(t.parts[0].extended);
  EXPECT_EQ(t.parts[1].number, 2u);
  EXPECT_EQ(t.parts[1].offset, 17 * MiB);
  EXPECT_EQ(t.parts[1].size, 183 * MiB);
  EXPECT_TRUE(t.parts[1].extended);
  EXPECT_EQ(t.parts[2].number, 5u);
  EXPECT_EQ(t.parts[2].offset, 18 * MiB);
  EXPECT_EQ(t.parts[2].size, 16 * MiB);
  EXPECT_FALSE(t.parts[2].extended);
  EXPECT_TRUE(t.parts[2].logical);
  EXPECT_EQ(t.parts[3].number, 6u);
  EXPECT_EQ(t.parts[3].offset, 35 * MiB);
  EXPECT_EQ(t.parts[3].size, 165 * MiB);
  EXPECT_FALSE(t.parts[3].extended);
  EXPECT_TRUE(t.parts[3].logical);
  // The last partition is logical 6 (it ends where the extended partition 2 does), held by 2; 5 by 2 too; 1 by none.
  const auto last = last_data_partition(t);
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(last->number, 6u);
  const auto container = extended_container_of(t, *last);
  ASSERT_TRUE(container.has_value());
  EXPECT_EQ(container->number, 2u);
  EXPECT_EQ(extended_container_of(t, t.parts[2])->number, 2u);
  EXPECT_FALSE(extended_container_of(t, t.parts[0]).has_value());
  EXPECT_FALSE(extended_container_of(t, t.parts[1]).has_value());  // the container is not inside itself

  // The second EBR (at 34 MiB, right before logical 6) wiped: the walk stops at it with a note, logical 6 is
  // missing, and which partition is last is not known (logical 5 is not: cutting or growing it would harm 6).
  ASSERT_EQ(run("dd if=/dev/zero of=" + q(img.string()) + " bs=512 seek=" + std::to_string(34 * 2048) +
                " count=1 conv=notrunc status=none")
                .exit_code,
            0);
  const PartitionTable broken = last_test_table(img);
  ASSERT_EQ(broken.parts.size(), 3u);
  EXPECT_EQ(broken.parts[2].number, 5u);
  EXPECT_EQ(broken.logical_note, "extended partition 2 has no EBR (55 AA) at byte 35651584");
  EXPECT_FALSE(last_data_partition(broken).has_value());
}

TEST(LastPartition, APrimaryPartitionAfterABrokenChainIsStillTheLast) {
  PIPROV_REQUIRE_TOOL("sfdisk");
  test::TempDir tmp("piprov-table");
  const auto img = tmp.path / "e.img";
  ASSERT_EQ(run("truncate -s 100M " + q(img.string()) +
                " && printf 'label: dos\\n1MiB,16MiB,c\\n17MiB,40MiB,5\\n57MiB,,83\\n18MiB,16MiB,83\\n' | sfdisk -q " +
                q(img.string()) + " && dd if=/dev/zero of=" + q(img.string()) +
                " bs=512 seek=" + std::to_string(17 * 2048) + " count=1 conv=notrunc status=none")
                .exit_code,
            0);
  const PartitionTable t = last_test_table(img);
  ASSERT_EQ(t.parts.size(), 3u);  // 1, 2 (extended, its EBR wiped), 3
  EXPECT_EQ(t.logical_note, "extended partition 2 has no EBR (55 AA) at byte 17825792");
  const auto last = last_data_partition(t);
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(last->number, 3u);
  EXPECT_EQ(last->offset, 57u << 20);
  EXPECT_FALSE(extended_container_of(t, *last).has_value());
}

TEST(LastPartition, GptAndNoTable) {
  PIPROV_REQUIRE_TOOL("sfdisk");
  test::TempDir tmp("piprov-table");
  const auto img = tmp.path / "g.img";
  ASSERT_EQ(run("truncate -s 64M " + q(img.string()) + " && printf 'label: gpt\\n1MiB,8MiB\\n,16MiB\\n' | sfdisk -q " +
                q(img.string()))
                .exit_code,
            0);
  const PartitionTable t = last_test_table(img);
  EXPECT_EQ(t.scheme, TableScheme::Gpt);
  ASSERT_EQ(t.parts.size(), 2u);
  EXPECT_EQ(t.parts[1].number, 2u);
  EXPECT_EQ(t.parts[1].offset, 9u << 20);
  EXPECT_EQ(t.parts[1].size, 16u << 20);
  EXPECT_EQ(last_data_partition(t)->number, 2u);
  EXPECT_FALSE(extended_container_of(t, t.parts[1]).has_value());
  test::write_file(tmp.path / "zeros.img", std::string(1 << 20, '\0'));
  const PartitionTable none = last_test_table(tmp.path / "zeros.img");
  EXPECT_EQ(none.scheme, TableScheme::None);
  EXPECT_TRUE(none.parts.empty());
  EXPECT_FALSE(last_data_partition(none).has_value());
  EXPECT_THROW(last_test_table(tmp.path / "missing.img"), Error);
}

}  // namespace
}  // namespace piprov::image
