// read_table_partitions() (partitions.hpp) on image files made here with
// sfdisk (no root): an MBR's logical partitions listed from the EBR chain,
// the extended partition marked; a GPT; a file with no table. The last data
// partition and a logical partition's extended partition (last_data_partition(),
// extended_container_of()) on each.
#include <gtest/gtest.h>

#include "image/partitions.hpp"
#include "support/testsupport.hpp"

namespace piprov::image {
namespace {

using test::q;
using test::run;

TEST(TablePartitions, MbrLogicalPartitionsAreListedAndTheExtendedOneMarked) {
  PIPROV_REQUIRE_TOOL("sfdisk");
  test::TempDir tmp("piprov-table");
  const auto img = tmp.path / "d.img";
  ASSERT_EQ(run("truncate -s 200M " + q(img.string()) +
                " && printf 'label: dos\\n1MiB,16MiB,c\\n17MiB,,5\\n18MiB,16MiB,83\\n35MiB,,83\\n' | sfdisk -q " +
                q(img.string()))
                .exit_code,
            0);
  const TablePartitions t = read_table_partitions(img.string());
  EXPECT_EQ(t.scheme, TableScheme::Dos);
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
  EXPECT_EQ(t.parts[3].number, 6u);
  EXPECT_EQ(t.parts[3].offset, 35 * MiB);
  EXPECT_EQ(t.parts[3].size, 165 * MiB);
  EXPECT_FALSE(t.parts[3].extended);
  // The last partition is logical 6 (it ends where the extended partition 2 does), held by 2; 5 by 2 too; 1 by none.
  const auto last = last_data_partition(t);
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(last->number, 6u);
  const auto container = extended_container_of(t, *last);
  ASSERT_TRUE(container.has_value());
  EXPECT_EQ(container->number, 2u);
  EXPECT_EQ(extended_container_of(t, t.parts[2])->number, 2u);
  EXPECT_FALSE(extended_container_of(t, t.parts[0]).has_value());
}

TEST(TablePartitions, GptAndNoTable) {
  PIPROV_REQUIRE_TOOL("sfdisk");
  test::TempDir tmp("piprov-table");
  const auto img = tmp.path / "g.img";
  ASSERT_EQ(run("truncate -s 64M " + q(img.string()) + " && printf 'label: gpt\\n1MiB,8MiB\\n,16MiB\\n' | sfdisk -q " +
                q(img.string()))
                .exit_code,
            0);
  const TablePartitions t = read_table_partitions(img.string());
  EXPECT_EQ(t.scheme, TableScheme::Gpt);
  ASSERT_EQ(t.parts.size(), 2u);
  EXPECT_EQ(t.parts[1].number, 2u);
  EXPECT_EQ(t.parts[1].offset, 9u << 20);
  EXPECT_EQ(t.parts[1].size, 16u << 20);
  EXPECT_EQ(last_data_partition(t)->number, 2u);
  EXPECT_FALSE(extended_container_of(t, t.parts[1]).has_value());
  test::write_file(tmp.path / "zeros.img", std::string(1 << 20, '\0'));
  const TablePartitions none = read_table_partitions((tmp.path / "zeros.img").string());
  EXPECT_EQ(none.scheme, TableScheme::None);
  EXPECT_TRUE(none.parts.empty());
  EXPECT_FALSE(last_data_partition(none).has_value());
  EXPECT_TRUE(read_table_partitions((tmp.path / "missing.img").string()).parts.empty());
}

}  // namespace
}  // namespace piprov::image
