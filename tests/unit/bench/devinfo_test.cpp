// /sys/block/DEV/stat parsing and sar-style figures.
#include <gtest/gtest.h>

#include "bench/devinfo.hpp"

using namespace piprov::bench;

TEST(DiskStats, DeltasAndSarColumns) {
  auto a = parse_disk_counters("  100 5 800 40 200 10 3200 400 0 1000 2000 0 0 0 0\n");
  auto b = parse_disk_counters("  300 5 2400 140 1200 30 19200 2400 1 3000 7000 0 0 0 0\n");
  EXPECT_EQ(a.rios, 100u);
  EXPECT_EQ(b.time_in_queue, 7000u);
  DiskStats d = disk_delta("sda", a, b, 4.0);
  EXPECT_EQ(d.read_ios, 200u);
  EXPECT_EQ(d.write_ios, 1000u);
  EXPECT_EQ(d.write_merges, 20u);
  EXPECT_DOUBLE_EQ(d.tps(), 300.0);               // 1200 ios / 4 s
  EXPECT_DOUBLE_EQ(d.util_pct(), 50.0);           // 2000 ms busy of 4000
  EXPECT_DOUBLE_EQ(d.aqu_sz(), 1.25);             // 5000 ms in queue / 4000
  EXPECT_DOUBLE_EQ(d.await_ms(), 2100.0 / 1200);  // (100 + 2000) ms / ios
  EXPECT_DOUBLE_EQ(d.areq_sz_kb(), (1600.0 + 16000.0) / 2 / 1200);
  EXPECT_DOUBLE_EQ(d.wkb_s(), 2000.0);
}

TEST(DiskStats, ShortTextGivesZeros) {
  auto c = parse_disk_counters("1 2 3");
  EXPECT_EQ(c.rios, 0u);
}

// The bench's device context is core::Disk's description (core/blockdev.hpp).
TEST(DeviceInfo, BuiltFromTheCoreDisk) {
  piprov::Disk disk;
  disk.name = "sda";
  disk.model = "Extreme SSD";
  disk.transport = piprov::Transport::Usb;
  disk.driver = "uas";
  disk.usb_speed = "5000";
  disk.logical_block_size = 512;
  disk.max_sectors_kb = 120;
  disk.scheduler = "mq-deadline";
  disk.write_cache = "write back";
  DeviceInfo d = device_info_from(disk, "sda2");
  EXPECT_EQ(d.name, "sda");
  EXPECT_EQ(d.stat_name, "sda2");
  EXPECT_EQ(d.model, "Extreme SSD");
  EXPECT_EQ(d.driver, "uas");
  EXPECT_EQ(d.usb_speed, "5000");
  EXPECT_EQ(d.max_sectors_kb, 120u);
  EXPECT_EQ(d.scheduler, "mq-deadline");
  EXPECT_EQ(d.write_cache, "write back");
  EXPECT_FALSE(d.is_sd());
}
