// boot check's findings on boot partitions written here (issue 29's trial): files config.txt
// includes linted like config.txt, only the bootloader's own keys called EEPROM keys, one finding
// for a template root=, a layout piprov does not know (headline, advice, fixes), Raspberry Pi OS
// told by evidence of its own, and the order of the findings.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "boot/check.hpp"
#include "support/boot_fixture.hpp"
#include "support/layout_fixture.hpp"
#include "support/testsupport.hpp"

namespace fs = std::filesystem;
using piprov::PiBoard;
using piprov::Severity;
using piprov::test::TempDir;
using piprov::test::write_file;
namespace bt = piprov::boot::test;

namespace {

std::vector<std::string> cf_rules(const piprov::boot::CheckReport& r) {
  std::vector<std::string> v;
  for (const auto& f : r.findings) v.push_back(f.rule);
  return v;
}

bool cf_has(const piprov::boot::CheckReport& r, const std::string& rule) {
  return std::any_of(r.findings.begin(), r.findings.end(), [&](const auto& f) { return f.rule == rule; });
}

const piprov::Finding& cf_find(const piprov::boot::CheckReport& r, const std::string& rule) {
  auto it = std::find_if(r.findings.begin(), r.findings.end(), [&](const auto& f) { return f.rule == rule; });
  if (it == r.findings.end()) throw std::runtime_error("no finding " + rule);
  return *it;
}

piprov::boot::CheckReport cf_check(const fs::path& boot, PiBoard b = PiBoard::Pi4) {
  return piprov::boot::check_boot({.boot_dir = boot, .scan_usb = false, .board = b});
}

/// No fix in the report gives a package manager's advice.
void cf_expect_no_apt_advice(const piprov::boot::CheckReport& r) {
  for (const auto& f : r.findings) {
    EXPECT_EQ(f.fix.find("apt "), std::string::npos) << f.rule << ": " << f.fix;
    EXPECT_EQ(f.fix.find("linux-image-raspi"), std::string::npos) << f.rule << ": " << f.fix;
  }
}

}  // namespace

// Files config.txt includes are linted like config.txt: template values and EEPROM keys, each
// finding naming the included file and its line (were not looked at).
TEST(OtherLayouts, IncludedFilesAreLintedLikeConfigTxt) {
  TempDir t;
  write_file(t.path / "config.txt", "[all]\narm_64bit=1\nkernel=Image\ninclude extra.txt\n");
  write_file(t.path / "extra.txt", "# board settings\ndtoverlay=${OVERLAY}\nBOOT_UART=1\ngpu_mem=ROOTDEV\n");
  write_file(t.path / "cmdline.txt", "console=tty1 root=PARTUUID=1234abcd-02 rootwait\n");
  write_file(t.path / "Image", bt::fake_image(200000, 3));
  bt::write_dtbs(t.path);
  auto r = cf_check(t.path);
  std::vector<std::string> got;
  for (const auto& f : r.findings)
    if (f.rule == "template-value" || f.rule == "config-eeprom-key")
      got.push_back(f.rule + "@" + std::to_string(f.line) + " " + f.message);
  EXPECT_EQ(got, (std::vector<std::string>{
                     "template-value@2 extra.txt line 2 holds the unexpanded template value ${OVERLAY}: this extra.txt "
                     "is a template, not the file an image boots with",
                     "template-value@4 extra.txt line 4 holds the unexpanded template value ROOTDEV: this extra.txt "
                     "is a template, not the file an image boots with",
                     "config-eeprom-key@3 extra.txt line 3: BOOT_UART is a bootloader EEPROM setting, which the "
                     "firmware ignores in config.txt"}));
  EXPECT_NE(cf_find(r, "config-eeprom-key").fix.find("remove it from extra.txt"), std::string::npos);
}

// Only the bootloader's own keys (the eeprom module's key table) are EEPROM keys: an upper-case
// config.txt key of old firmware or a typo in capitals is not one (were all called EEPROM keys).
TEST(OtherLayouts, OnlyBootloaderKeysAreEepromKeys) {
  TempDir t;
  write_file(t.path / "config.txt",
             "[all]\narm_64bit=1\nkernel=Image\nHDMI_FORCE_HOTPLUG=1\nDTOVERLAY=vc4-kms-v3d\nBOOT_ORDER=0xf41\n");
  write_file(t.path / "cmdline.txt", "console=tty1 root=PARTUUID=1234abcd-02 rootwait\n");
  write_file(t.path / "Image", bt::fake_image(200000, 3));
  bt::write_dtbs(t.path);
  auto r = cf_check(t.path);
  std::vector<std::string> keys;
  for (const auto& f : r.findings)
    if (f.rule == "config-eeprom-key") keys.push_back(f.key + "@" + std::to_string(f.line));
  EXPECT_EQ(keys, (std::vector<std::string>{"BOOT_ORDER@6"}));
}

// root=${PARTUUID}: one finding, the template value (was template-value and a root= rule as well).
TEST(OtherLayouts, TemplateRootIsOneFinding) {
  TempDir t;
  write_file(t.path / "config.txt", "[all]\narm_64bit=1\nkernel=Image\n");
  write_file(t.path / "cmdline.txt", "console=tty1 root=${PARTUUID} rootwait\n");
  write_file(t.path / "Image", bt::fake_image(200000, 3));
  bt::write_dtbs(t.path);
  auto r = cf_check(t.path);
  std::vector<std::string> errors;
  for (const auto& f : r.findings)
    if (f.severity == Severity::Error) errors.push_back(f.rule);
  EXPECT_EQ(errors, (std::vector<std::string>{"template-value"}));
  write_file(t.path / "cmdline.txt", "console=tty1 root=PARTUUID=@ROOT_PARTUUID@ rootwait\n");
  errors.clear();
  for (const auto& f : cf_check(t.path).findings)
    if (f.severity == Severity::Error) errors.push_back(f.rule);
  EXPECT_EQ(errors, (std::vector<std::string>{"template-value"}));
}

// A layout piprov does not know: the headline agrees with the verdict (cannot tell, not "does not
// boot"), no Ubuntu root=LABEL=writable advice, no `boot patch --uas-quirk` that patch refuses, and
// a missing initramfs's fix names the initramfs, not the kernel.
TEST(OtherLayouts, UnknownLayoutHeadlineAndAdvice) {
  TempDir t;
  write_file(t.path / "config.txt", "[all]\narm_64bit=1\nkernel=Image\n");
  write_file(t.path / "cmdline.txt", "console=tty1 root=PARTUUID=1234abcd-02 rootwait\n");
  write_file(t.path / "Image", bt::fake_image(200000, 3));
  bt::write_dtbs(t.path);
  auto r = cf_check(t.path);
  ASSERT_TRUE(r.ok()) << testing::PrintToString(cf_rules(r));
  EXPECT_EQ(r.layout.release, "unknown distribution");
  EXPECT_NE(r.headline().find(": piprov cannot tell whether it boots from USB (a layout it does not know) (kernel "
                              "Image,"),
            std::string::npos)
      << r.headline();
  EXPECT_FALSE(r.usb_boot());

  // No root=: the example is not Ubuntu's label.
  write_file(t.path / "cmdline.txt", "console=tty1 rootwait\n");
  r = cf_check(t.path);
  EXPECT_EQ(cf_find(r, "cmdline-no-root").fix, "add root=PARTUUID=<the root partition's PARTUUID> to the first line");
  EXPECT_NE(r.headline().find("does not boot from USB as it is"), std::string::npos) << r.headline();
  for (const auto& f : r.findings) EXPECT_EQ(f.fix.find("writable"), std::string::npos) << f.rule << ": " << f.fix;

  // --usb-id of a bridge that needs the quirk: by hand, boot patch refuses this layout.
  write_file(t.path / "cmdline.txt", "console=tty1 root=PARTUUID=1234abcd-02 rootwait\n");
  r = piprov::boot::check_boot(
      {.boot_dir = t.path, .usb_ids = {"174c:55aa"}, .scan_usb = false, .board = PiBoard::Pi4});
  ASSERT_TRUE(cf_has(r, "uas-quirk-missing")) << testing::PrintToString(cf_rules(r));
  EXPECT_EQ(cf_find(r, "uas-quirk-missing").fix.find("boot patch --uas-quirk"), std::string::npos)
      << cf_find(r, "uas-quirk-missing").fix;
  EXPECT_NE(cf_find(r, "uas-quirk-missing").fix.find("by hand"), std::string::npos);

  // initramfs named but missing: the fix restores the initramfs.
  write_file(t.path / "config.txt", "[all]\narm_64bit=1\nkernel=Image\ninitramfs initrd.img followkernel\n");
  r = cf_check(t.path);
  ASSERT_TRUE(cf_has(r, "initramfs-file-missing")) << testing::PrintToString(cf_rules(r));
  EXPECT_EQ(cf_find(r, "initramfs-file-missing").fix.rfind("restore initrd.img ", 0), 0u)
      << cf_find(r, "initramfs-file-missing").fix;
  cf_expect_no_apt_advice(r);
}

// kernel8.img alone is not Raspberry Pi OS (other images ship it); pi-gen's issue.txt is.
TEST(OtherLayouts, RaspiosNeedsEvidenceOfItsOwn) {
  TempDir t;
  write_file(t.path / "config.txt", "[all]\narm_64bit=1\n");
  write_file(t.path / "cmdline.txt", "console=tty1 root=PARTUUID=1234abcd-02 rootwait\n");
  write_file(t.path / "kernel8.img", bt::fake_image(200000, 3));
  bt::write_dtbs(t.path);
  auto r = cf_check(t.path);
  EXPECT_EQ(r.layout.id, piprov::boot::LayoutId::Unknown) << testing::PrintToString(r.layout.evidence);
  EXPECT_EQ(r.layout.release, "unknown distribution");
  cf_expect_no_apt_advice(r);
  write_file(t.path / "issue.txt", "Raspberry Pi reference 2023-12-05\n");
  r = cf_check(t.path);
  EXPECT_EQ(r.layout.id, piprov::boot::LayoutId::Raspios) << testing::PrintToString(r.layout.evidence);
  EXPECT_EQ(r.layout.release, "Raspberry Pi OS");
  std::remove((t.path / "issue.txt").c_str());
  write_file(t.path / "cmdline.txt",
             "console=tty1 root=PARTUUID=1234abcd-02 rootwait init=/usr/lib/raspberrypi-sys-mods/firstboot\n");
  EXPECT_EQ(cf_check(t.path).layout.id, piprov::boot::LayoutId::Raspios);
}

// Findings come errors first, then warnings, then infos; config.txt's in line order (a lint
// warning of line 5 was printed before a template error of line 4 and an EEPROM key of line 2).
TEST(OtherLayouts, FindingsAreOrderedBySeverityThenLine) {
  TempDir t;
  write_file(t.path / "config.txt", "[all]\nBOOT_UART=1\nkernel=Image\ndtoverlay=${OVERLAY}\narm_64bit=1\n");
  write_file(t.path / "cmdline.txt", "console=tty1 root=PARTUUID=1234abcd-02 rootwait\n");
  write_file(t.path / "Image", bt::fake_image(200000, 3));
  bt::write_dtbs(t.path);
  auto r = cf_check(t.path);
  for (std::size_t i = 1; i < r.findings.size(); ++i)
    EXPECT_LE(r.findings[i - 1].severity, r.findings[i].severity)
        << r.findings[i - 1].rule << " " << r.findings[i].rule;
  EXPECT_EQ(r.findings.front().rule, "template-value");
  EXPECT_EQ(r.findings.back().rule, "firmware");
  // The same input gives the same order every time.
  std::vector<std::string> again;
  for (const auto& f : cf_check(t.path).findings) again.push_back(f.rule + std::to_string(f.line));
  std::vector<std::string> first;
  for (const auto& f : r.findings) first.push_back(f.rule + std::to_string(f.line));
  EXPECT_EQ(first, again);
}

// boot check IMAGE (CheckOptions::image): boot patch refuses an image, so no fix suggests it;
// the fixes that patch say provision, which writes the image and patches the disk (was
// "piprov boot patch IMAGE ...").
TEST(OtherLayouts, FixesForAnImageNameProvisionNotBootPatch) {
  PIPROV_REQUIRE_SHARED("config-txt", configs);
  TempDir t;
  bt::make_stock_boot(bt::stock("focal"), configs, t.path / "boot", t.path / "root");
  auto r = piprov::boot::check_boot({.boot_dir = t.path / "boot",
                                     .root_dir = t.path / "root",
                                     .scan_usb = false,
                                     .board = PiBoard::Pi4,
                                     .image = "/images/ubuntu-20.04.img.xz"});
  bool provision = false;
  for (const auto& f : r.findings) {
    EXPECT_EQ(f.fix.find("boot patch"), std::string::npos) << f.rule << ": " << f.fix;
    provision = provision || f.fix.rfind("piprov provision /images/ubuntu-20.04.img.xz DISK", 0) == 0;
  }
  EXPECT_TRUE(provision) << testing::PrintToString(cf_rules(r));
  // The same boot partition as a directory: boot patch it is.
  auto dir = cf_check(t.path / "boot");
  EXPECT_TRUE(std::any_of(dir.findings.begin(), dir.findings.end(),
                          [](const auto& f) { return f.fix.find("piprov boot patch ") != std::string::npos; }));
}

// Wording of fixes (issue 29's trial): device-tree-missing does not say "copy my.dtb to my.dtb";
// dtb-missing on a layout piprov does not know names no kernel package; root-placeholder has the
// cmdline's line (as template-value does) and its fix follows the layout (Ubuntu: LABEL=writable).
TEST(OtherLayouts, FixWordingFollowsTheFileAndLayout) {
  TempDir t;
  write_file(t.path / "config.txt", "[all]\narm_64bit=1\nkernel=Image\ndevice_tree=my.dtb\n");
  write_file(t.path / "cmdline.txt", "console=tty1 root=PARTUUID=1234abcd-02 rootwait\n");
  write_file(t.path / "Image", bt::fake_image(200000, 3));
  auto r = cf_check(t.path);
  ASSERT_TRUE(cf_has(r, "device-tree-missing")) << testing::PrintToString(cf_rules(r));
  EXPECT_EQ(cf_find(r, "device-tree-missing").fix, "put my.dtb on the boot partition or correct device_tree=");
  write_file(t.path / "config.txt", "[all]\narm_64bit=1\nkernel=Image\nos_prefix=slot-a/\ndevice_tree=my.dtb\n");
  write_file(t.path / "slot-a/cmdline.txt", "console=tty1 root=PARTUUID=1234abcd-02 rootwait\n");
  write_file(t.path / "slot-a/Image", bt::fake_image(200000, 3));
  // Without slot-a/my.dtb the firmware drops os_prefix and boots the top-level Image: there the
  // missing file is my.dtb (os-prefix-ignored says so). With no top-level Image either, the
  // prefix's own file is the one to put there.
  EXPECT_EQ(cf_find(cf_check(t.path), "device-tree-missing").fix,
            "put my.dtb on the boot partition or correct device_tree=");
  EXPECT_TRUE(cf_has(cf_check(t.path), "os-prefix-ignored"));
  fs::remove(t.path / "Image");
  EXPECT_EQ(cf_find(cf_check(t.path), "device-tree-missing").fix,
            "copy my.dtb to slot-a/my.dtb or correct device_tree=");
  EXPECT_FALSE(cf_has(cf_check(t.path), "os-prefix-ignored"));

  // The board's DTB missing on an unknown distribution: restore it from the image or its distribution.
  write_file(t.path / "config.txt", "[all]\narm_64bit=1\nkernel=Image\n");
  r = cf_check(t.path);
  ASSERT_EQ(r.layout.release, "unknown distribution");
  ASSERT_TRUE(cf_has(r, "dtb-missing")) << testing::PrintToString(cf_rules(r));
  EXPECT_EQ(cf_find(r, "dtb-missing").fix,
            "restore bcm2711-rpi-4-b.dtb from the image's own boot partition or its distribution's kernel update "
            "(piprov cannot tell the distribution)");

  // root=ROOTDEV: line 1 of the cmdline file, key root; on Ubuntu's layout the fix is LABEL=writable.
  PIPROV_REQUIRE_SHARED("config-txt", configs);
  TempDir u;
  bt::make_stock_boot(bt::stock("noble"), configs, u.path / "boot", u.path / "root");
  write_file(u.path / "boot/cmdline.txt", "console=tty1 root=ROOTDEV rootfstype=ext4 rootwait\n");
  r = cf_check(u.path / "boot");
  ASSERT_TRUE(cf_has(r, "root-placeholder")) << testing::PrintToString(cf_rules(r));
  const auto& f = cf_find(r, "root-placeholder");
  EXPECT_EQ(f.line, 1);
  EXPECT_EQ(f.key, "root");
  EXPECT_EQ(f.fix, "set root=LABEL=writable (the root file system's label in this layout)");
  // An unknown layout: PARTUUID, with the blkid command.
  write_file(t.path / "cmdline.txt", "console=tty1 root=ROOTDEV rootwait\n");
  EXPECT_EQ(cf_find(cf_check(t.path), "root-placeholder").fix,
            "set root=PARTUUID=<the root partition's PARTUUID> (blkid -s PARTUUID -o value /dev/sdX2)");
}
