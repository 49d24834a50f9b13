#include <gtest/gtest.h>

#include "boot/cmdline_txt.hpp"
#include "core/error.hpp"
#include "support/testsupport.hpp"

using namespace piprov::boot;

namespace {
const char* kUbuntu =
    "net.ifnames=0 dwc_otg.lpm_enable=0 console=serial0,115200 console=tty1 root=LABEL=writable rootfstype=ext4 "
    "elevator=deadline rootwait fixrtc\n";
}

TEST(CmdlineTxt, UbuntuLineIsClean) {
  auto c = CmdlineTxt::parse(kUbuntu);
  EXPECT_TRUE(c.lint().empty());
  EXPECT_EQ(c.get("root"), "LABEL=writable");
  EXPECT_EQ(c.params().size(), 9u);
  PIPROV_REQUIRE_SHARED("config-txt/cmdline-01-ubuntu2004.txt", f);
  EXPECT_TRUE(CmdlineTxt::parse(piprov::test::read_file(f)).lint().empty());
}

TEST(CmdlineTxt, Lint) {
  auto two = CmdlineTxt::parse("console=tty1\nroot=/dev/sda2 rootwait\n").lint();
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0].rule, "multiple-lines");
  EXPECT_EQ(two[1].rule, "no-root");  // only the first line counts
  auto empty = CmdlineTxt::parse("\n").lint();
  ASSERT_EQ(empty.size(), 1u);
  EXPECT_EQ(empty[0].rule, "empty");
}

TEST(CmdlineTxt, AddsUasQuirkKeepingTheRest) {
  auto c = CmdlineTxt::parse("console=tty1 root=LABEL=writable rootwait\n");
  EXPECT_FALSE(c.has_uas_quirk("152d:0578"));
  EXPECT_TRUE(c.add_uas_quirk("152D:0578"));
  EXPECT_EQ(c.to_string(), "console=tty1 root=LABEL=writable rootwait usb-storage.quirks=152d:0578:u\n");
  EXPECT_TRUE(c.has_uas_quirk("152d:0578"));
  EXPECT_FALSE(c.add_uas_quirk("152d:0578"));
  EXPECT_TRUE(c.add_uas_quirk("174c:55aa"));
  EXPECT_EQ(c.to_string(), "console=tty1 root=LABEL=writable rootwait usb-storage.quirks=152d:0578:u,174c:55aa:u\n");
  auto crlf = CmdlineTxt::parse("root=/dev/sda2 rootwait \r\n");
  crlf.add_uas_quirk("0634:5605");
  EXPECT_EQ(crlf.to_string(), "root=/dev/sda2 rootwait usb-storage.quirks=0634:5605:u \r\n");
}

TEST(CmdlineTxt, VidPidValidation) {
  EXPECT_EQ(normalize_vid_pid("174C:55AA"), "174c:55aa");
  EXPECT_THROW(normalize_vid_pid("174c55aa"), piprov::Error);
  EXPECT_THROW(normalize_vid_pid("174c:55ag"), piprov::Error);
  ASSERT_NE(find_known_bridge("152d:0578"), nullptr);
  EXPECT_EQ(find_known_bridge("1234:5678"), nullptr);
  EXPECT_EQ(known_uas_bridges().size(), 4u);
}
