// `piprov devices --json`: every field of a Disk and its partitions under its documented key.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/blockdev_json.hpp"

namespace piprov {
namespace {

Disk sample() {
  Disk d;
  d.name = "sdb";
  d.path = "/dev/sdb";
  d.model = "Extreme SSD";
  d.vendor = "SanDisk";
  d.serial = "1234";
  d.transport = Transport::Usb;
  d.size_bytes = 500107862016ull;
  d.removable = true;
  d.rotational = false;
  d.logical_block_size = 512;
  d.physical_block_size = 4096;
  d.max_sectors_kb = 240;
  Partition p;
  p.name = "sdb1";
  p.path = "/dev/sdb1";
  p.number = 1;
  p.start_bytes = 1048576;
  p.size_bytes = 536870912;
  p.label = "system-boot";
  p.fstype = "vfat";
  p.uuid = "F1E2-0001";
  p.partuuid = "4ec8ea53-01";
  p.mountpoints = {"/media/u/system-boot"};
  d.partitions.push_back(p);
  return d;
}

TEST(DiskJson, HoldsEveryFieldUnderItsKey) {
  nlohmann::json j = disk_json(sample());
  EXPECT_EQ(j["name"], "sdb");
  EXPECT_EQ(j["path"], "/dev/sdb");
  EXPECT_EQ(j["model"], "Extreme SSD");
  EXPECT_EQ(j["vendor"], "SanDisk");
  EXPECT_EQ(j["transport"], "usb");
  EXPECT_EQ(j["size_bytes"], 500107862016ull);
  EXPECT_EQ(j["removable"], true);
  EXPECT_EQ(j["read_only"], false);
  EXPECT_EQ(j["physical_block_size"], 4096);
  EXPECT_EQ(j["max_sectors_kb"], 240);
  EXPECT_EQ(j["system_disk"], false);
  EXPECT_EQ(j["mountpoints"], nlohmann::json::array({"/dev/sdb1 on /media/u/system-boot"}));
  ASSERT_EQ(j["partitions"].size(), 1u);
  const auto& p = j["partitions"][0];
  EXPECT_EQ(p["path"], "/dev/sdb1");
  EXPECT_EQ(p["number"], 1);
  EXPECT_EQ(p["start_bytes"], 1048576);
  EXPECT_EQ(p["label"], "system-boot");
  EXPECT_EQ(p["fstype"], "vfat");
  EXPECT_EQ(p["uuid"], "F1E2-0001");
  EXPECT_EQ(p["partuuid"], "4ec8ea53-01");
  EXPECT_EQ(p["mountpoints"], nlohmann::json::array({"/media/u/system-boot"}));
  EXPECT_EQ(j.size(), 19u);
  EXPECT_EQ(p.size(), 11u);
}

TEST(DiskJson, ListIsAnArrayInOrder) {
  Disk a = sample(), b = sample();
  b.name = "sdc";
  nlohmann::json j = disks_json({a, b});
  ASSERT_TRUE(j.is_array());
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[1]["name"], "sdc");
  EXPECT_EQ(disks_json({}), nlohmann::json::array());
}

}  // namespace
}  // namespace piprov
