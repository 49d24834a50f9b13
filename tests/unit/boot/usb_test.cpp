// The USB bridge scan against a fake /sys/bus/usb/devices.
#include "boot/usb.hpp"

#include <gtest/gtest.h>

#include "support/testsupport.hpp"

namespace piprov::boot {
namespace {

TEST(UsbScan, DevicesWithVendorAndProductSortedByName) {
  piprov::test::TempDir root("piprov-fake-usb");
  const auto devs = root.path / "sys/bus/usb/devices";
  piprov::test::write_file(devs / "usb1/idVendor", "1d6b\n");
  piprov::test::write_file(devs / "usb1/idProduct", "0002\n");
  piprov::test::write_file(devs / "2-1/idVendor", "152d\n");  // JMicron JMS578
  piprov::test::write_file(devs / "2-1/idProduct", "0578\n");
  piprov::test::write_file(devs / "2-1:1.0/bInterfaceClass", "08\n");  // an interface: no ids
  piprov::test::write_file(devs / "3-1/idVendor", "bad\n");            // not 4 hex digits
  piprov::test::write_file(devs / "3-1/idProduct", "0001\n");
  auto found = scan_usb_devices(SysRoot(root.path));
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].name, "2-1");
  EXPECT_EQ(found[0].vid_pid, "152d:0578");
  EXPECT_EQ(found[1].name, "usb1");
  EXPECT_EQ(found[1].vid_pid, "1d6b:0002");
}

TEST(UsbScan, NoUsbBusIsAnEmptyList) {
  piprov::test::TempDir root("piprov-fake-usb");
  EXPECT_TRUE(scan_usb_devices(SysRoot(root.path)).empty());
}

// usb-storage.quirks=VID:PID:FLAGS,... (kernel-parameters.txt).
TEST(UsbQuirks, EntriesIdsAndFlags) {
  auto q = parse_usb_quirks("152D:0578:u,174c:55aa:,0419:aaf5:rl,0421:0433:rcq,174c55aa,0bc2:33g2:u");
  ASSERT_EQ(q.size(), 6u);
  EXPECT_EQ(q[0].vid_pid, "152d:0578");
  EXPECT_TRUE(q[0].ignore_uas());
  EXPECT_EQ(q[0].error, "");
  EXPECT_EQ(q[1].vid_pid, "174c:55aa");  // empty flags: valid, sets nothing
  EXPECT_EQ(q[1].flags, "");
  EXPECT_FALSE(q[1].ignore_uas());
  EXPECT_EQ(q[2].flags, "rl");  // the documentation's own example
  EXPECT_EQ(q[2].unknown_flags, "");
  EXPECT_EQ(q[3].unknown_flags, "q");
  EXPECT_NE(q[4].error, "");
  EXPECT_EQ(q[4].vid_pid, "");
  EXPECT_NE(q[5].error, "");  // 'g' is not a hex digit
  EXPECT_TRUE(parse_usb_quirks("").empty());
}

}  // namespace
}  // namespace piprov::boot
