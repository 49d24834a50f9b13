// boot check on the fifth new-user trial of issue 29: device_tree= and initramfs with a leading
// '/' beside os_prefix, a kernel finding from an included file names that file, and dtb-missing on
// Ubuntu 20.04 with a Pi 5 does not send the user to a kernel package without the Pi 5's DTB.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "boot/check.hpp"
#include "support/boot_fixture.hpp"
#include "support/layout_fixture.hpp"
#include "support/testsupport.hpp"

namespace fs = std::filesystem;
using piprov::PiBoard;
using piprov::test::TempDir;
using piprov::test::write_file;
namespace bt = piprov::boot::test;

namespace {

piprov::boot::CheckReport t5_check(const fs::path& boot, PiBoard b, const fs::path& root = {}) {
  return piprov::boot::check_boot({.boot_dir = boot, .root_dir = root, .scan_usb = false, .board = b});
}

std::string t5_rules(const piprov::boot::CheckReport& r) {
  std::string s;
  for (const auto& f : r.findings) s += f.rule + "@" + std::to_string(f.line) + " ";
  return s;
}

}  // namespace

// Finding 5: the Home Assistant OS Pi 5 layout names its files from the partition root after
// os_prefix=slot-A/ (Raspberry Pi documentation, config_txt: os_prefix); only slot-A/ holds them.
// device_tree= and initramfs say os_prefix does not apply, as kernel= does, not "under os_prefix".
TEST(Trial5Boot, LeadingSlashPathsSayOsPrefixDoesNotApply) {
  TempDir t;
  write_file(t.path / "config.txt",
             "[all]\nos_prefix=slot-A/\nkernel=/kernel_2712.img\ninitramfs /initrd.img followkernel\n"
             "device_tree=/bcm2712-rpi-5-b.dtb\ncmdline=/cmdline.txt\n");
  write_file(t.path / "cmdline.txt", "console=tty1 root=PARTUUID=1234abcd-02 rootwait\n");
  write_file(t.path / "kernel_2712.img", bt::fake_image(200000, 3));
  write_file(t.path / "slot-A/initrd.img", "initrd");
  bt::write_dtbs(t.path / "slot-A");
  // No /bcm2712-rpi-5-b.dtb: os_prefix=slot-A/ is not viable (the firmware needs the kernel and the
  // .dtb it names) and is dropped; /kernel_2712.img is there, so the top-level files boot.
  auto r = t5_check(t.path, PiBoard::Pi5);
  const auto* dt = bt::find_rule(r, "device-tree-missing");
  ASSERT_NE(dt, nullptr) << t5_rules(r);
  EXPECT_EQ(
      dt->message,
      "device_tree=/bcm2712-rpi-5-b.dtb (config.txt line 5): bcm2712-rpi-5-b.dtb does not exist in " + t.path.string());
  ASSERT_NE(bt::find_rule(r, "os-prefix-ignored"), nullptr) << t5_rules(r);
  EXPECT_EQ(r.resolved.os_prefix, "");
  // No kernel at the top level either: nothing boots, the prefix is kept, and device_tree= and
  // initramfs say os_prefix does not apply to them.
  fs::remove(t.path / "kernel_2712.img");
  r = t5_check(t.path, PiBoard::Pi5);
  EXPECT_EQ(r.resolved.os_prefix, "slot-A/");
  dt = bt::find_rule(r, "device-tree-missing");
  ASSERT_NE(dt, nullptr) << t5_rules(r);
  EXPECT_EQ(dt->message,
            "device_tree=/bcm2712-rpi-5-b.dtb (config.txt line 5): bcm2712-rpi-5-b.dtb does not exist in " +
                t.path.string() +
                " (device_tree=/bcm2712-rpi-5-b.dtb starts with /: os_prefix=slot-A/ does not apply to it)");
  const auto* ird = bt::find_rule(r, "initramfs-file-missing");
  ASSERT_NE(ird, nullptr) << t5_rules(r);
  EXPECT_EQ(ird->message, "initramfs initrd.img (config.txt line 4) does not exist in " + t.path.string() +
                              " (initramfs /initrd.img followkernel starts with /: os_prefix=slot-A/ does not apply "
                              "to it)");
  EXPECT_EQ(ird->line, 4);
}

// Without the leading '/', the files are looked up under os_prefix, and the findings say so.
TEST(Trial5Boot, PrefixedPathsSayUnderOsPrefix) {
  TempDir t;
  write_file(t.path / "config.txt",
             "[all]\nos_prefix=slot-A/\nkernel=kernel_2712.img\ninitramfs initrd.img followkernel\n"
             "device_tree=bcm2712-rpi-5-b.dtb\n");
  write_file(t.path / "slot-A/cmdline.txt", "console=tty1 root=PARTUUID=1234abcd-02 rootwait\n");
  write_file(t.path / "slot-A/kernel_2712.img", bt::fake_image(200000, 3));
  auto r = t5_check(t.path, PiBoard::Pi5);
  const auto* ird = bt::find_rule(r, "initramfs-file-missing");
  ASSERT_NE(ird, nullptr) << t5_rules(r);
  EXPECT_EQ(ird->message, "initramfs slot-A/initrd.img (config.txt line 4) does not exist in " + t.path.string() +
                              " under os_prefix=slot-A/");
  const auto* dt = bt::find_rule(r, "device-tree-missing");
  ASSERT_NE(dt, nullptr) << t5_rules(r);
  EXPECT_NE(dt->message.find(" under os_prefix=slot-A/"), std::string::npos) << dt->message;
}

// Finding 11c: a kernel finding about a kernel= line in an included file names that file.
TEST(Trial5Boot, KernelFindingFromAnIncludedFileNamesIt) {
  TempDir t;
  write_file(t.path / "config.txt", "[all]\ninclude extra.txt\n");
  write_file(t.path / "extra.txt", "# extra\n\n\n[pi5]\nkernel=kernel_2712.img\n");
  write_file(t.path / "cmdline.txt", "console=tty1 root=PARTUUID=1234abcd-02 rootwait\n");
  bt::compress_to(t.path / "kernel_2712.img", bt::fake_image(200000, 3));
  bt::write_dtbs(t.path);
  auto r = t5_check(t.path, PiBoard::Pi5);
  const auto* gz = bt::find_rule(r, "kernel-gzip");
  ASSERT_NE(gz, nullptr) << t5_rules(r);
  EXPECT_EQ(gz->line, 5);
  EXPECT_EQ(gz->message,
            "kernel kernel_2712.img (extra.txt line 5) is gzip-compressed, which the Pi 5 firmware decompresses "
            "itself");
}

// Finding 11b: Ubuntu 20.04 on a Pi 5: its kernel package has no bcm2712-rpi-5-b.dtb, so the fix
// says which do instead of "from the kernel package (its dtbs)".
TEST(Trial5Boot, FocalOnPi5DtbFixNamesWhatHasTheDtb) {
  PIPROV_REQUIRE_SHARED("config-txt", configs);
  TempDir t;
  bt::make_stock_boot(bt::stock("focal"), configs, t.path / "boot", t.path / "root");
  auto r = t5_check(t.path / "boot", PiBoard::Pi5, t.path / "root");
  const auto* dtb = bt::find_rule(r, "dtb-missing");
  ASSERT_NE(dtb, nullptr) << t5_rules(r);
  EXPECT_EQ(dtb->fix.find("from the kernel package (its dtbs)"), std::string::npos) << dtb->fix;
  EXPECT_NE(dtb->fix.find("cannot boot a Pi 5 (Ubuntu supports the Pi 5 from 23.10); its kernel package has no "
                          "bcm2712-rpi-5-b.dtb, which comes with the kernels that support the Pi 5 (Ubuntu's "
                          "linux-raspi from 23.10 on, Raspberry Pi OS's linux-image-rpi-2712)"),
            std::string::npos)
      << dtb->fix;
  const auto* km = bt::find_rule(r, "kernel-missing");
  if (km) {
    EXPECT_EQ(km->fix.find("its kernel package"), std::string::npos) << km->fix;
  }
}
