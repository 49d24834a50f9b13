// renew_disk_identity() on image files made by sfdisk (no root needed), read
// back with sfdisk --json; replace_partuuids() on cmdline.txt and fstab text.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>

#include "core/error.hpp"
#include "core/strings.hpp"
#include "image/disk_identity.hpp"
#include "image/partition_table.hpp"
#include "support/testsupport.hpp"

namespace piprov::image {
namespace {

using test::q;
using test::run;

nlohmann::json sfdisk_json(const std::filesystem::path& img) {
  auto r = run("sfdisk --json " + q(img.string()));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out)["partitiontable"];
}

/// A 40 MiB image with two partitions; `boot code` bytes in the MBR's first 440.
std::filesystem::path make_disk(const test::TempDir& d, const std::string& table) {
  auto img = d.path / "disk.img";
  auto r = run("truncate -s 40M " + q(img.string()) + " && printf " + q(table) + " | sfdisk -q " + q(img.string()) +
               " && printf 'BOOTCODE-KEEP-ME' | dd of=" + q(img.string()) + " bs=1 seek=16 conv=notrunc status=none");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return img;
}

TEST(DiskIdentity, MbrGetsANewIdAndTheSamePartitions) {
  PIPROV_REQUIRE_TOOL("sfdisk");
  test::TempDir d;
  auto img = make_disk(d,
                       "label: dos\nlabel-id: 0x4ec8ea53\n\nstart=2048, size=20480, type=c, bootable\n"
                       "start=22528, type=83\n");
  auto before = sfdisk_json(img);
  auto id = renew_disk_identity(img.string());
  EXPECT_EQ(id.label, TableScheme::Dos);
  EXPECT_EQ(id.old_id, "0x4ec8ea53");
  EXPECT_TRUE(std::regex_match(id.new_id, std::regex("0x[0-9a-f]{8}"))) << id.new_id;
  EXPECT_NE(id.new_id, id.old_id);
  auto after = sfdisk_json(img);
  EXPECT_EQ(after["id"], id.new_id);
  EXPECT_EQ(after["partitions"], before["partitions"]);  // start, size, type, bootable
  const std::string hex = id.new_id.substr(2);
  EXPECT_EQ(id.partuuids,
            (std::map<std::string, std::string>{{"4ec8ea53-01", hex + "-01"}, {"4ec8ea53-02", hex + "-02"}}));
  EXPECT_EQ(test::read_bytes(img, 16, 16), "BOOTCODE-KEEP-ME");
  // partx (libblkid) reads the same PARTUUID the map promises.
  auto b = run("partx -g -o UUID -n 2 " + q(img.string()));
  EXPECT_EQ(b.exit_code, 0) << b.err;
  EXPECT_EQ(to_lower(trim(b.out)), hex + "-02");
  // Twice: a different id each time.
  auto again = renew_disk_identity(img.string());
  EXPECT_EQ(again.old_id, id.new_id);
  EXPECT_NE(again.new_id, id.new_id);
}

TEST(DiskIdentity, GptGetsNewDiskAndPartitionGuids) {
  PIPROV_REQUIRE_TOOL("sfdisk");
  test::TempDir d;
  auto img = make_disk(d,
                       "label: gpt\nlabel-id: 11111111-2222-4333-8444-555555555555\n\n"
                       "start=2048, size=20480, type=C12A7328-F81F-11D2-BA4B-00A0C93EC93B, "
                       "uuid=AAAAAAAA-0000-4000-8000-000000000001, name=boot\n"
                       "start=22528, size=40000, type=0FC63DAF-8483-4772-8E79-3D69D8477DE4, "
                       "uuid=AAAAAAAA-0000-4000-8000-000000000002, name=root\n");
  auto id = renew_disk_identity(img.string());
  EXPECT_EQ(id.label, TableScheme::Gpt);
  EXPECT_EQ(id.old_id, "11111111-2222-4333-8444-555555555555");
  ASSERT_EQ(id.partuuids.size(), 2u);
  auto after = sfdisk_json(img);
  EXPECT_EQ(to_lower(after["id"].get<std::string>()), id.new_id);
  for (int i = 0; i < 2; ++i) {
    auto& p = after["partitions"][i];
    std::string old = "aaaaaaaa-0000-4000-8000-00000000000" + std::to_string(i + 1);
    ASSERT_TRUE(id.partuuids.count(old)) << old;
    EXPECT_EQ(to_lower(p["uuid"].get<std::string>()), id.partuuids.at(old));
    EXPECT_TRUE(std::regex_match(id.partuuids.at(old),
                                 std::regex("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")));
    EXPECT_EQ(p["name"], i == 0 ? "boot" : "root");
    EXPECT_EQ(p["start"], i == 0 ? 2048 : 22528);
  }
  EXPECT_NE(id.partuuids.begin()->second, std::next(id.partuuids.begin())->second);
  // Both headers consistent (CRCs, backup): sfdisk --verify is clean.
  auto v = run("sfdisk --verify " + q(img.string()));
  EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
}

// parse_partition_table() reads what sfdisk wrote: partitions, their unique GUIDs (lower case, as
// root=PARTUUID= names them) and the primary header's LastUsableLBA and AlternateLBA.
TEST(PartitionTableGpt, ReadsEntriesAndTheHeadersBackupPlacementAsSfdiskDoes) {
  PIPROV_REQUIRE_TOOL("sfdisk");
  test::TempDir d;
  auto img = make_disk(d,
                       "label: gpt\n\nstart=2048, size=20480, type=C12A7328-F81F-11D2-BA4B-00A0C93EC93B, "
                       "uuid=AAAAAAAA-0000-4000-8000-00000000000A\n"
                       "start=22528, size=40000, type=0FC63DAF-8483-4772-8E79-3D69D8477DE4\n");
  const std::string head = test::read_bytes(img, 0, kPartitionTableBytes);
  const auto t = parse_partition_table(std::as_bytes(std::span(head)), 40u << 20);
  const auto sf = sfdisk_json(img);
  EXPECT_EQ(t.scheme, TableScheme::Gpt);
  ASSERT_TRUE(t.gpt.has_value());
  EXPECT_EQ(t.gpt->last_usable_lba, sf["lastlba"].get<std::uint64_t>());
  EXPECT_EQ(t.gpt->alternate_lba, (40u << 20) / 512 - 1);  // the disk's last sector
  ASSERT_EQ(t.parts.size(), 2u);
  EXPECT_EQ(t.parts[0].partuuid, "aaaaaaaa-0000-4000-8000-00000000000a");
  EXPECT_EQ(t.parts[1].partuuid, to_lower(sf["partitions"][1]["uuid"].get<std::string>()));
  EXPECT_EQ(t.parts[1].offset, 22528u * 512);
  EXPECT_EQ(t.parts[1].kind, PartKind::Linux);
  // An MBR has no GPT header: no bounds.
  auto mbr = make_disk(d, "label: dos\n\nstart=2048, size=20480, type=83\n");
  const std::string mhead = test::read_bytes(mbr, 0, kPartitionTableBytes);
  EXPECT_FALSE(parse_partition_table(std::as_bytes(std::span(mhead)), 40u << 20).gpt.has_value());
}

TEST(DiskIdentity, NoPartitionTableIsAUsageError) {
  test::TempDir d;
  test::write_file(d.path / "blank.img", std::string(1 << 20, '\0'));
  test::expect_error(ErrorKind::Usage, "has no MBR or GPT partition table",
                     [&] { renew_disk_identity((d.path / "blank.img").string()); });
  test::expect_error(ErrorKind::Io, "cannot open", [&] { renew_disk_identity((d.path / "absent.img").string()); });
}

TEST(ReplacePartuuids, RewritesOnlyKnownIdsAndKeepsEverythingElse) {
  std::map<std::string, std::string> m{{"4ec8ea53-01", "0badf00d-01"}, {"4ec8ea53-02", "0badf00d-02"}};
  int n = -1;
  EXPECT_EQ(replace_partuuids("console=tty1 root=PARTUUID=4EC8EA53-02 rootfstype=ext4 rootwait\n", m, &n),
            "console=tty1 root=PARTUUID=0badf00d-02 rootfstype=ext4 rootwait\n");
  EXPECT_EQ(n, 1);
  std::string fstab =
      "proc /proc proc defaults 0 0\nPARTUUID=4ec8ea53-01  /boot/firmware  vfat  defaults  0  2\n"
      "PARTUUID=\"4ec8ea53-02\"  /  ext4  defaults,noatime  0  1\nPARTUUID=12345678-03 /data ext4 defaults 0 2\n";
  EXPECT_EQ(
      replace_partuuids(fstab, m, &n),
      "proc /proc proc defaults 0 0\nPARTUUID=0badf00d-01  /boot/firmware  vfat  defaults  0  2\n"
      "PARTUUID=\"0badf00d-02\"  /  ext4  defaults,noatime  0  1\nPARTUUID=12345678-03 /data ext4 defaults 0 2\n");
  EXPECT_EQ(n, 2);
  EXPECT_EQ(replace_partuuids("root=LABEL=writable", m, &n), "root=LABEL=writable");
  EXPECT_EQ(n, 0);
  // A longer id that only starts with a known one is not it.
  EXPECT_EQ(replace_partuuids("root=PARTUUID=4ec8ea53-021", m, &n), "root=PARTUUID=4ec8ea53-021");
  EXPECT_EQ(n, 0);
}

}  // namespace
}  // namespace piprov::image
