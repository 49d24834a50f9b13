#include <gtest/gtest.h>

#include <cstring>

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

// The text the firmware passes on: the first line without "\n" or "\r\n", spaces kept.
TEST(CmdlineTxt, CommandLineIsTheFirstLine) {
  EXPECT_EQ(CmdlineTxt::parse(kUbuntu).command_line(), std::string(kUbuntu, std::strlen(kUbuntu) - 1));
  EXPECT_EQ(CmdlineTxt::parse("console=tty1 root=/dev/sda2\r\nquiet\n").command_line(), "console=tty1 root=/dev/sda2");
  EXPECT_EQ(CmdlineTxt::parse("root=/dev/sda2 rootwait").command_line(), "root=/dev/sda2 rootwait");
  EXPECT_EQ(CmdlineTxt::parse("\nroot=/dev/sda2\n").command_line(), "");
  EXPECT_EQ(CmdlineTxt::parse("").command_line(), "");
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

// usb-storage.quirks entries (kernel-parameters.txt): one finding per bad entry,
// on line 1 with the key usb-storage.quirks.
TEST(CmdlineTxt, EveryUsbQuirkEntryIsValidated) {
  auto f = CmdlineTxt::parse(
               "root=LABEL=writable rootwait usb-storage.quirks=152d:0578:u,174c:55aa,12345:0001:u,"
               "0634:5605:m,abcd:ef01:uz,,174c:1156:U\n")
               .lint();
  std::vector<std::string> rules;
  for (const auto& x : f) {
    rules.push_back(x.rule);
    EXPECT_EQ(x.line, 1) << x.rule;
    EXPECT_EQ(x.key, "usb-storage.quirks") << x.rule;
  }
  EXPECT_EQ(rules, (std::vector<std::string>{"usb-quirk-invalid", "usb-quirk-invalid", "uas-quirk-no-u",
                                             "usb-quirk-unknown-flag", "usb-quirk-invalid"}));
  EXPECT_EQ(f[0].severity, piprov::Severity::Error);
  EXPECT_EQ(f[0].message,
            "usb-storage.quirks entry '174c:55aa' is not VID:PID:FLAGS (two ':' needed, e.g. 152d:0578:u); the kernel "
            "ignores it");
  EXPECT_NE(f[1].message.find("'12345:0001:u' does not start with a 4-hex-digit vendor and product ID"),
            std::string::npos)
      << f[1].message;
  EXPECT_EQ(f[2].severity, piprov::Severity::Warning);
  EXPECT_NE(f[2].message.find("'0634:5605:m' lists the USB-SATA bridge 0634:5605 without u (IGNORE_UAS)"),
            std::string::npos)
      << f[2].message;
  EXPECT_EQ(f[2].fix, "add u to its flags: 0634:5605:mu");
  EXPECT_NE(f[3].message.find("'abcd:ef01:uz': flag(s) 'z'"), std::string::npos) << f[3].message;
  EXPECT_NE(f[4].message.find("entry ''"), std::string::npos) << f[4].message;  // the empty one between ",,"
  // Every documented letter is accepted; upper-case 174c:1156:U counts as u (no finding above).
  EXPECT_TRUE(CmdlineTxt::parse("root=/dev/sda2 usb-storage.quirks=1234:5678:abcdefghijklmnoprstuwy\n").lint().empty());
}

TEST(CmdlineTxt, RepeatedQuirksParameterOnlyTheLastCounts) {
  auto c = CmdlineTxt::parse("root=/dev/sda2 usb-storage.quirks=152d:0578:u usb-storage.quirks=174c:55aa:u\n");
  auto f = c.lint();
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].rule, "usb-quirks-repeated");
  EXPECT_FALSE(c.has_uas_quirk("152d:0578"));  // the kernel keeps the last value
  EXPECT_TRUE(c.has_uas_quirk("174c:55aa"));
  EXPECT_TRUE(c.add_uas_quirk("152d:0578"));
  EXPECT_EQ(c.to_string(),
            "root=/dev/sda2 usb-storage.quirks=152d:0578:u usb-storage.quirks=174c:55aa:u,152d:0578:u\n");
}

TEST(CmdlineTxt, AddUasQuirkCompletesAnEntryWithoutU) {
  // The kernel uses the first entry for a device: appending 152d:0578:u after
  // 152d:0578:m would change nothing, so u goes into that entry.
  auto c = CmdlineTxt::parse("root=/dev/sda2 usb-storage.quirks=0634:5605:u,152d:0578:m rootwait\n");
  EXPECT_FALSE(c.has_uas_quirk("152d:0578"));
  EXPECT_TRUE(c.add_uas_quirk("152d:0578"));
  EXPECT_EQ(c.to_string(), "root=/dev/sda2 usb-storage.quirks=0634:5605:u,152d:0578:mu rootwait\n");
  EXPECT_TRUE(c.has_uas_quirk("152d:0578"));
  EXPECT_TRUE(c.lint().empty());
  auto empty = CmdlineTxt::parse("root=/dev/sda2 usb-storage.quirks=\n");
  EXPECT_TRUE(empty.lint().empty());
  EXPECT_TRUE(empty.add_uas_quirk("174c:55aa"));
  EXPECT_EQ(empty.to_string(), "root=/dev/sda2 usb-storage.quirks=174c:55aa:u\n");
}

// set(): the last name= parameter (the one the kernel uses) gets the value, else the parameter is
// appended to the first line; only those bytes change.
TEST(CmdlineTxt, SetReplacesOrAppendsOneParameter) {
  auto c = CmdlineTxt::parse("console=tty1 root=LABEL=writable rootwait  \nsecond line\n");
  EXPECT_TRUE(c.set("cfg80211.ieee80211_regdom", "GB"));
  EXPECT_EQ(c.to_string(), "console=tty1 root=LABEL=writable rootwait cfg80211.ieee80211_regdom=GB  \nsecond line\n");
  EXPECT_FALSE(c.set("cfg80211.ieee80211_regdom", "GB"));
  EXPECT_TRUE(c.set("cfg80211.ieee80211_regdom", "NZ"));
  EXPECT_EQ(c.get("cfg80211.ieee80211_regdom"), "NZ");
  auto two = CmdlineTxt::parse("a=1 quiet a=2\n");
  EXPECT_TRUE(two.set("a", "3"));
  EXPECT_EQ(two.to_string(), "a=1 quiet a=3\n");
  auto empty = CmdlineTxt::parse("");
  EXPECT_TRUE(empty.set("root", "PARTUUID=1234abcd-02"));
  EXPECT_EQ(empty.to_string(), "root=PARTUUID=1234abcd-02");
}

// Trial 9, finding 1: a parameter given twice is the last one to the kernel (Linux init/do_mounts.c
// root_dev_setup copies each root= over the one before; initramfs-tools' init loops over
// /proc/cmdline the same way): get() returns it, and lint() warns naming both values.
TEST(CmdlineTxt, TheLastOfARepeatedParameterCounts) {
  auto c = CmdlineTxt::parse(
      "console=serial0,115200 console=tty1 root=PARTUUID=6c586e13-02 root=/dev/mmcblk0p2 "
      "rootwait init=/sbin/init init=/bin/sh\n");
  EXPECT_EQ(c.get("root"), "/dev/mmcblk0p2");
  EXPECT_EQ(c.get("init"), "/bin/sh");
  EXPECT_EQ(c.get("console"), "tty1");
  auto lint = c.lint();
  ASSERT_EQ(lint.size(), 2u);
  EXPECT_EQ(lint[0].rule, "duplicate");
  EXPECT_EQ(lint[0].severity, piprov::Severity::Warning);
  EXPECT_EQ(lint[0].key, "root");
  EXPECT_EQ(lint[0].message,
            "cmdline.txt sets root= 2 times (root=PARTUUID=6c586e13-02, root=/dev/mmcblk0p2): the kernel uses the "
            "last, root=/dev/mmcblk0p2");
  EXPECT_EQ(lint[1].key, "init");
  // console= adds a console each time; the same value twice changes nothing: no finding.
  EXPECT_TRUE(CmdlineTxt::parse("console=serial0,115200 console=tty1 root=LABEL=writable root=LABEL=writable\n")
                  .lint()
                  .empty());
  // Two usb-storage.quirks= keep their own rule, not a second one.
  auto quirks =
      CmdlineTxt::parse("root=LABEL=writable usb-storage.quirks=152d:0578:u usb-storage.quirks=174c:55aa:u\n");
  ASSERT_EQ(quirks.lint().size(), 1u);
  EXPECT_EQ(quirks.lint()[0].rule, "usb-quirks-repeated");
  // set() edits the last one, the one get() returns.
  EXPECT_TRUE(c.set("root", "PARTUUID=c0207989-02"));
  EXPECT_EQ(c.get("root"), "PARTUUID=c0207989-02");
  EXPECT_NE(c.to_string().find("root=PARTUUID=6c586e13-02 root=PARTUUID=c0207989-02"), std::string::npos);
}
