// The USB link of a disk, from a fake sysfs: the `speed` of the USB device
// above /sys/class/block/NAME and its interface's driver.
#include <gtest/gtest.h>

#include <filesystem>

#include "image/usb_link.hpp"
#include "support/testsupport.hpp"

namespace fs = std::filesystem;

namespace piprov::image {
namespace {

/// ROOT/sys/devices/.../usbB/B-1/B-1:1.0/host0/.../block/NAME, linked from
/// ROOT/sys/class/block/NAME, with the device's speed and the interface driver.
void fake_usb_disk(const fs::path& root, const std::string& name, const std::string& speed, const std::string& driver) {
  fs::path dev = root / "sys/devices/platform/scb/fd500000.pcie/pci0000:00/0000:01:00.0/usb2/2-1";
  fs::path intf = dev / "2-1:1.0";
  fs::path block = intf / "host0/target0:0:0/0:0:0:0/block" / name;
  fs::create_directories(block);
  fs::create_directories(root / "sys/bus/usb/drivers" / driver);
  fs::create_directories(root / "sys/class/block");
  test::write_file(dev / "speed", speed + "\n");
  test::write_file(dev.parent_path() / "speed", "5000\n");  // the root hub: never reached first
  fs::create_symlink(fs::relative(root / "sys/bus/usb/drivers" / driver, intf), intf / "driver");
  fs::create_symlink(fs::relative(block, root / "sys/class/block"), root / "sys/class/block" / name);
}

TEST(UsbLink, Usb2LinkSaysExpect35AndUseAUsb3Port) {
  test::TempDir d;
  fake_usb_disk(d.path, "sda", "480", "usb-storage");
  UsbLink l = usb_link("sda", SysRoot(d.path));
  EXPECT_TRUE(l.usb);
  EXPECT_EQ(l.device, "2-1");
  EXPECT_EQ(l.mbps, 480);
  EXPECT_EQ(l.version, "USB 2.0");
  EXPECT_EQ(l.expect_mb_s, 35);
  EXPECT_EQ(l.note, "USB 2.0 link (480 Mb/s, usb-storage): expect ~35 MB/s; use a USB 3 port");
}

TEST(UsbLink, Usb3LinkWithUasExpects400) {
  test::TempDir d;
  fake_usb_disk(d.path, "sdb", "5000", "uas");
  UsbLink l = usb_link("sdb", SysRoot(d.path));
  EXPECT_EQ(l.mbps, 5000);
  EXPECT_EQ(l.version, "USB 3.0");
  EXPECT_EQ(l.expect_mb_s, 400);
  EXPECT_EQ(l.note, "USB 3.0 link (5000 Mb/s, uas): expect ~400 MB/s");
}

TEST(UsbLink, Usb3LinkWithUsbStorageSaysBotAndExpects250) {
  UsbLink l = usb_link_from_speed("5000", piprov::UsbDriver::UsbStorage);
  EXPECT_EQ(l.expect_mb_s, 250);
  EXPECT_NE(l.note.find("usb-storage (BOT)"), std::string::npos) << l.note;
}

TEST(UsbLink, NonUsbDiskAndMissingDiskAreNotUsb) {
  test::TempDir d;
  fs::path block = d.path / "sys/devices/platform/ata1/host0/target0:0:0/0:0:0:0/block/sdc";
  fs::create_directories(block);
  fs::create_directories(d.path / "sys/class/block");
  fs::create_symlink(fs::relative(block, d.path / "sys/class/block"), d.path / "sys/class/block/sdc");
  EXPECT_FALSE(usb_link("sdc", SysRoot(d.path)).usb);
  EXPECT_FALSE(usb_link("sdz", SysRoot(d.path)).usb);
  EXPECT_EQ(usb_link("sdc", SysRoot(d.path)).note, "");
}

TEST(UsbLink, FullAndLowSpeedAreUsb11) {
  EXPECT_EQ(usb_link_from_speed("12", piprov::UsbDriver::Unknown).version, "USB 1.1");
  EXPECT_EQ(usb_link_from_speed("1.5", piprov::UsbDriver::Unknown).note,
            "USB 1.1 link (1.5 Mb/s): expect ~1 MB/s; use a USB 3 port");
  EXPECT_EQ(usb_link_from_speed("garbage", piprov::UsbDriver::Unknown).mbps, 0);
}

}  // namespace
}  // namespace piprov::image
