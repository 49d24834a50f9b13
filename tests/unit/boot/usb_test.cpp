// The USB bridge scan against a fake /sys/bus/usb/devices.
#include "boot/usb.hpp"

#include <gtest/gtest.h>

#include "support/testsupport.hpp"

namespace piprov::boot {
namespace {

TEST(UsbScan, DevicesWithVendorAndProductSortedByName) {
  test::TempDir root("piprov-fake-usb");
  const auto devs = root.path / "sys/bus/usb/devices";
  test::write_file(devs / "usb1/idVendor", "1d6b\n");
  test::write_file(devs / "usb1/idProduct", "0002\n");
  test::write_file(devs / "2-1/idVendor", "152d\n");  // JMicron JMS578
  test::write_file(devs / "2-1/idProduct", "0578\n");
  test::write_file(devs / "2-1:1.0/bInterfaceClass", "08\n");  // an interface: no ids
  test::write_file(devs / "3-1/idVendor", "bad\n");            // not 4 hex digits
  test::write_file(devs / "3-1/idProduct", "0001\n");
  auto found = scan_usb_devices(SysRoot(root.path));
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].name, "2-1");
  EXPECT_EQ(found[0].vid_pid, "152d:0578");
  EXPECT_EQ(found[1].name, "usb1");
  EXPECT_EQ(found[1].vid_pid, "1d6b:0002");
}

TEST(UsbScan, NoUsbBusIsAnEmptyList) {
  test::TempDir root("piprov-fake-usb");
  EXPECT_TRUE(scan_usb_devices(SysRoot(root.path)).empty());
}

}  // namespace
}  // namespace piprov::boot
