#include <gtest/gtest.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "support/testsupport.hpp"

#include "core/blockdev.hpp"
#include "core/error.hpp"
#include "support/testsupport.hpp"

using namespace piprov;

TEST(ClassifyPath, FilesAndMissing) {
  EXPECT_EQ(classify_path("/nonexistent/piprov"), TargetKind::Missing);
  EXPECT_EQ(classify_path("/proc/self/exe"), TargetKind::RegularFile);
  EXPECT_EQ(classify_path("/dev/null"), TargetKind::Other);
}

TEST(ListDisks, RootFilesystemDiskIsASystemDisk) {
  // Whatever disk holds / must be flagged; in containers / may be an overlay with no disk.
  auto disks = list_disks();
  bool any_root = false;
  for (const auto& d : disks) {
    for (const auto& r : d.system_reasons)
      if (r.find("mounted at /") != std::string::npos && r.substr(r.size() - 2) == " /") any_root = true;
    if (any_root) {
      EXPECT_TRUE(d.system_disk);
      break;
    }
  }
  if (!any_root) PIPROV_SKIP("/ is not on a block device here");
}

// The system-disk rules against a fake /sys made in a temp dir: a disk
// "pvfake0" (a name no real machine has, so libblkid finds nothing to probe)
// on a USB bridge, with two partitions.
namespace {

struct FakeSysfs {
  piprov::test::TempDir root{"piprov-fake-sysfs"};
  std::filesystem::path disk;  ///< ROOT/sys/devices/.../block/pvfake0
  FakeSysfs() {
    namespace fs = std::filesystem;
    using piprov::test::write_file;
    disk = root.path / "sys/devices/platform/usb2/2-1/2-1:1.0/host0/target0:0:0/0:0:0:0/block/pvfake0";
    write_file(disk / "size", "62914560\n");  // 512-byte sectors: 30 GiB
    write_file(disk / "ro", "0\n");
    write_file(disk / "removable", "1\n");
    write_file(disk / "dev", "259:0\n");
    write_file(disk / "device/model", "Extreme SSD    \n");
    write_file(disk / "queue/logical_block_size", "512\n");
    write_file(disk / "queue/max_sectors_kb", "120\n");
    fs::create_directories(disk / "holders");
    for (int n : {1, 2}) {
      auto p = disk / ("pvfake0p" + std::to_string(n));
      write_file(p / "partition", std::to_string(n) + "\n");
      write_file(p / "dev", "259:" + std::to_string(n) + "\n");
      write_file(p / "start", n == 1 ? "8192\n" : "1056768\n");
      write_file(p / "size", n == 1 ? "1048576\n" : "61857792\n");
      fs::create_directories(p / "holders");
    }
    fs::create_directories(root.path / "sys/class/block");
    fs::create_directories(root.path / "sys/block");
    fs::create_symlink(disk, root.path / "sys/class/block/pvfake0");
    fs::create_symlink(disk, root.path / "sys/block/pvfake0");
    // A loop device with no backing file is not a disk a user could mean.
    write_file(root.path / "sys/class/block/loop9/size", "0\n");
    fs::create_symlink(root.path / "sys/class/block/loop9", root.path / "sys/block/loop9");
  }
  piprov::Disk read(const std::vector<piprov::MountEntry>& mounts, const std::vector<dev_t>& swaps = {}) const {
    return piprov::read_disk(piprov::SysRoot(root.path), "pvfake0", mounts, swaps);
  }
};

piprov::MountEntry mount_of(int minor_no, const std::string& dir) {
  return {"/dev/pvfake0p" + std::to_string(minor_no), dir, "ext4", makedev(259, minor_no)};
}

}  // namespace

// Queue settings, the driver and the USB link (the one walk up to the USB
// device: its speed, its interface's driver) from the fake tree.
TEST(DiskFacts, QueueSettingsDriverAndUsbLinkFromSysfs) {
  namespace fs = std::filesystem;
  FakeSysfs sys;
  const fs::path usbdev = sys.root.path / "sys/devices/platform/usb2/2-1";
  piprov::test::write_file(usbdev / "speed", "5000\n");
  piprov::test::write_file(usbdev.parent_path() / "speed", "10000\n");  // the root hub: never reached first
  fs::create_directories(sys.root.path / "sys/bus/usb/drivers/uas");
  fs::create_symlink(sys.root.path / "sys/bus/usb/drivers/uas", usbdev / "2-1:1.0/driver");
  piprov::test::write_file(sys.disk / "queue/scheduler", "[mq-deadline] none\n");
  piprov::test::write_file(sys.disk / "queue/write_cache", "write back\n");
  piprov::test::write_file(sys.disk / "queue/nr_requests", "60\n");
  piprov::test::write_file(sys.disk / "queue/max_hw_sectors_kb", "240\n");
  piprov::test::write_file(sys.disk / "queue/optimal_io_size", "33553920\n");
  const piprov::SysRoot root(sys.root.path);

  const auto u = piprov::usb_attachment("pvfake0", root);
  EXPECT_TRUE(u.usb);
  EXPECT_EQ(u.device, "2-1");
  EXPECT_EQ(u.speed, "5000");
  EXPECT_EQ(u.driver, UsbDriver::Uas);

  auto d = sys.read({});
  EXPECT_EQ(d.driver, "uas");
  EXPECT_EQ(d.usb_speed, "5000");
  EXPECT_EQ(d.scheduler, "mq-deadline");
  EXPECT_EQ(d.write_cache, "write back");
  EXPECT_EQ(d.nr_requests, 60u);
  EXPECT_EQ(d.max_hw_sectors_kb, 240u);
  EXPECT_EQ(d.optimal_io_size, 33553920u);
  EXPECT_EQ(piprov::sysfs_attr("pvfake0", "queue/nr_requests", root), "60");

  EXPECT_FALSE(piprov::usb_attachment("loop9", root).usb);  // not on a USB bus
  EXPECT_FALSE(piprov::usb_attachment("nosuch", root).usb);
}

TEST(SystemDiskRules, AttributesPartitionsAndTransportFromSysfs) {
  FakeSysfs sys;
  auto d = sys.read({});
  EXPECT_EQ(d.path, "/dev/pvfake0");
  EXPECT_EQ(d.model, "Extreme SSD");
  EXPECT_EQ(d.transport, Transport::Usb);
  EXPECT_EQ(d.size_bytes, 62914560ull * 512);
  EXPECT_TRUE(d.removable);
  EXPECT_FALSE(d.read_only);
  EXPECT_EQ(d.max_sectors_kb, 120u);
  ASSERT_EQ(d.partitions.size(), 2u);
  EXPECT_EQ(d.partitions[0].path, "/dev/pvfake0p1");
  EXPECT_EQ(d.partitions[1].start_bytes, 1056768ull * 512);
  EXPECT_FALSE(d.system_disk);
  EXPECT_TRUE(d.system_reasons.empty());
}

TEST(SystemDiskRules, SystemMountPointsMakeASystemDisk) {
  FakeSysfs sys;
  for (const char* dir : {"/", "/boot", "/boot/firmware", "/boot/efi", "/home", "/var", "/usr"}) {
    auto d = sys.read({mount_of(2, dir)});
    EXPECT_TRUE(d.system_disk) << dir;
    EXPECT_EQ(d.system_reasons, std::vector<std::string>{std::string("partition pvfake0p2 is mounted at ") + dir});
  }
  auto d = sys.read({mount_of(1, "/media/u/system-boot"), mount_of(2, "/mnt")});
  EXPECT_FALSE(d.system_disk);
  EXPECT_EQ(d.mounted(),
            (std::vector<std::string>{"/dev/pvfake0p1 on /media/u/system-boot", "/dev/pvfake0p2 on /mnt"}));
}

TEST(SystemDiskRules, SwapAndHoldersMakeASystemDisk) {
  FakeSysfs sys;
  auto d = sys.read({}, {makedev(259, 1)});
  EXPECT_EQ(d.system_reasons, std::vector<std::string>{"partition pvfake0p1 is active swap"});
  std::filesystem::create_directories(sys.disk / "pvfake0p2/holders/dm-0");
  d = sys.read({});
  EXPECT_EQ(d.system_reasons, std::vector<std::string>{"partition pvfake0p2 is held by dm-0 (LVM/MD/dm)"});
  std::filesystem::create_directories(sys.disk / "holders/md0");
  d = sys.read({{"/dev/pvfake0", "/", "ext4", makedev(259, 0)}});
  EXPECT_EQ(d.system_reasons, (std::vector<std::string>{"pvfake0 is mounted at /", "pvfake0 is held by md0 (LVM/MD/dm)",
                                                        "partition pvfake0p2 is held by dm-0 (LVM/MD/dm)"}));
}

TEST(SystemDiskRules, ListDisksSkipsLoopDevicesWithoutBackingFile) {
  FakeSysfs sys;
  auto disks = list_disks(SysRoot(sys.root.path));
  ASSERT_EQ(disks.size(), 1u);
  EXPECT_EQ(disks[0].name, "pvfake0");
}

TEST(DiskPartitionList, NumbersTypesAndLabelsForMessages) {
  Disk d;
  EXPECT_EQ(d.partition_list(), "none");
  Partition a;
  a.number = 1;
  a.fstype = "vfat";
  a.label = "BOOT";
  Partition b;
  b.number = 2;
  d.partitions = {a, b};
  EXPECT_EQ(d.partition_list(), "1 (vfat, LABEL=BOOT), 2 (no filesystem)");
}
