// boot check on the sixth new-user trial of issue 29: `include /PATH` and `os_prefix=/PATH/` name
// files on the boot partition (its root), never the workstation's; a `..` cannot leave the partition.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "boot/check.hpp"
#include "boot/layout.hpp"
#include "boot/patch.hpp"
#include "core/error.hpp"
#include "core/strings.hpp"
#include "support/boot_fixture.hpp"
#include "support/layout_fixture.hpp"
#include "support/testsupport.hpp"

namespace fs = std::filesystem;
using piprov::PiBoard;
using piprov::test::TempDir;
using piprov::test::write_file;
namespace bt = piprov::boot::test;

namespace {

piprov::boot::CheckReport t6_check(const fs::path& boot, PiBoard b) {
  return piprov::boot::check_boot({.boot_dir = boot, .scan_usb = false, .board = b});
}

std::string t6_all(const piprov::boot::CheckReport& r) {
  std::string s;
  for (const auto& f : r.findings) s += f.rule + "@" + std::to_string(f.line) + ": " + f.message + " | " + f.fix + "\n";
  return s;
}

/// A Pi 4 boot partition at DIR/boot whose files (kernel8.img, cmdline.txt, DTBs) are under `sub`
/// ("" for the root), with CONFIG as config.txt.
fs::path t6_boot(const fs::path& dir, const std::string& sub, const std::string& config) {
  const fs::path boot = dir / "boot";
  write_file(boot / "config.txt", config);
  write_file(boot / sub / "kernel8.img", bt::fake_image(200000, 6));
  write_file(boot / sub / "cmdline.txt", "console=tty1 root=PARTUUID=6c586e13-02 rootwait\n");
  bt::write_dtbs(boot / sub, false);
  return boot;
}

}  // namespace

TEST(Trial6Boot, PartitionRelativeDropsTheRootAndRefusesLeaving) {
  using piprov::boot::partition_relative;
  EXPECT_EQ(partition_relative("/abs/kernel8.img"), "abs/kernel8.img");
  EXPECT_EQ(partition_relative("//abs//x.txt"), "abs/x.txt");
  EXPECT_EQ(partition_relative("slot-A/../kernel8.img"), "kernel8.img");
  EXPECT_EQ(partition_relative("/"), "");
  EXPECT_EQ(partition_relative("../host.txt"), std::nullopt);
  EXPECT_EQ(partition_relative("/a/../../etc/passwd"), std::nullopt);
  EXPECT_EQ(piprov::boot::partition_file("/b", "/var/tmp/x.txt"), fs::path("/b/var/tmp/x.txt"));
  EXPECT_EQ(piprov::boot::partition_file("/b", "a/../../x"), std::nullopt);
}

// Finding 1 (b): os_prefix=/abs/ is abs/ on the partition: the kernel, cmdline and DTB there boot.
TEST(Trial6Boot, AbsoluteOsPrefixIsOnThePartition) {
  TempDir t;
  const auto boot = t6_boot(t.path, "abs", "[all]\nos_prefix=/abs/\n");
  auto r = t6_check(boot, PiBoard::Pi4);
  EXPECT_EQ(r.resolved.kernel, "abs/kernel8.img");
  EXPECT_EQ(r.resolved.cmdline, "abs/cmdline.txt");
  EXPECT_EQ(r.resolved.root, "PARTUUID=6c586e13-02");
  EXPECT_EQ(bt::find_rule(r, "kernel-missing"), nullptr) << t6_all(r);
  EXPECT_EQ(bt::find_rule(r, "cmdline-missing"), nullptr) << t6_all(r);
  EXPECT_EQ(bt::find_rule(r, "dtb-missing"), nullptr) << t6_all(r);
}

// Finding 1 (a): os_prefix naming a workstation directory that holds a kernel is still read from
// the partition, which has none: kernel-missing, and the fix names the path inside BOOT_DIR.
TEST(Trial6Boot, AbsoluteOsPrefixNeverReadsTheWorkstation) {
  TempDir t;
  const fs::path host = t.path / "host";
  write_file(host / "kernel8.img", bt::fake_image(200000, 7));
  write_file(host / "cmdline.txt", "root=PARTUUID=11111111-02 rootwait\n");
  const auto boot = t6_boot(t.path, "", "[all]\nos_prefix=" + host.string() + "/\n");
  fs::remove(boot / "kernel8.img");
  fs::remove(boot / "cmdline.txt");
  auto r = t6_check(boot, PiBoard::Pi4);
  const std::string rel = host.relative_path().string();
  EXPECT_EQ(r.resolved.kernel, rel + "/kernel8.img");
  EXPECT_EQ(r.resolved.root, "");  // the host's cmdline.txt is not read
  const auto* k = bt::find_rule(r, "kernel-missing");
  ASSERT_NE(k, nullptr) << t6_all(r);
  EXPECT_NE(k->fix.find((boot / rel / "kernel8.img").string()), std::string::npos) << k->fix;
  EXPECT_NE(bt::find_rule(r, "cmdline-missing"), nullptr) << t6_all(r);
  EXPECT_FALSE(r.ok());
}

// Finding 1 (c): `include /PATH` reads PATH on the partition; a host file at that path is not read.
TEST(Trial6Boot, AbsoluteIncludeIsOnThePartition) {
  TempDir t;
  const fs::path host = t.path / "hostfile.txt";
  write_file(host, "secretline-not-a-setting\nkernel=fromhost.img\n");
  const auto boot = t6_boot(t.path, "", "[all]\ninclude " + host.string() + "\ninclude /extra.txt\n");
  write_file(boot / "extra.txt", "arm_boost=1\n");
  auto r = t6_check(boot, PiBoard::Pi4);
  EXPECT_EQ(r.resolved.kernel, "kernel8.img");
  for (const auto& f : r.findings) EXPECT_EQ(f.message.find("secretline"), std::string::npos) << f.message;
  const auto* inc = bt::find_rule(r, "include-missing");
  ASSERT_NE(inc, nullptr) << t6_all(r);
  EXPECT_EQ(inc->line, 2);
  const std::string rel = host.relative_path().string();
  EXPECT_EQ(inc->message, "config.txt: `include " + host.string() + "` names a missing file: " + rel +
                              " does not exist in " + boot.string());
  EXPECT_EQ(inc->fix,
            "create " + (boot / rel).string() + " (empty, if it has nothing to add) or remove the include line")
      << inc->fix;
  EXPECT_EQ(
      std::count_if(r.findings.begin(), r.findings.end(), [](const auto& f) { return f.rule == "include-missing"; }),
      1)
      << t6_all(r);  // include /extra.txt is found on the partition

  // Once the partition holds that path, its copy (not the host's) is read.
  write_file(boot / rel, "kernel=onpart.img\n");
  write_file(boot / "onpart.img", bt::fake_image(200000, 8));
  r = t6_check(boot, PiBoard::Pi4);
  EXPECT_EQ(r.resolved.kernel, "onpart.img");
  EXPECT_EQ(bt::find_rule(r, "include-missing"), nullptr) << t6_all(r);
}

// A `..` leaving the partition is never read: not by include, not by kernel=.
TEST(Trial6Boot, DotDotNeverLeavesThePartition) {
  TempDir t;
  write_file(t.path / "host.txt", "secretline-not-a-setting\n");
  write_file(t.path / "hostkernel.img", bt::fake_image(200000, 9));
  const auto boot = t6_boot(t.path, "", "[all]\ninclude ../host.txt\nkernel=sub/../../hostkernel.img\n");
  auto r = t6_check(boot, PiBoard::Pi4);
  for (const auto& f : r.findings) EXPECT_EQ(f.message.find("secretline"), std::string::npos) << f.message;
  const auto* inc = bt::find_rule(r, "include-missing");
  ASSERT_NE(inc, nullptr) << t6_all(r);
  EXPECT_EQ(inc->message, "config.txt: `include ../host.txt` names a file outside the boot partition (its .. leaves " +
                              boot.string() + "): the firmware reads only files on the boot partition");
  EXPECT_NE(bt::find_rule(r, "kernel-missing"), nullptr) << t6_all(r);
  EXPECT_FALSE(r.ok());
}

// Finding 2: autoboot.txt beside config.txt whose boot_partition= is missing or not FAT on the disk
// (or image) BOOT_DIR is on is an error, as for a BOOT_DIR holding only autoboot.txt; not "OK".
TEST(Trial6Boot, AutobootBesideConfigJudgedByTheDisk) {
  TempDir t;
  const auto boot = t6_boot(t.path, "", "[all]\narm_boost=1\n");
  write_file(boot / "autoboot.txt", "[all]\ntryboot_a_b=1\nboot_partition=3\n");
  piprov::Disk disk;
  disk.path = "ab.img";
  for (int n : {1, 2}) {
    piprov::Partition p;
    p.number = n;
    p.path = "ab.img partition " + std::to_string(n);
    p.fstype = n == 1 ? "vfat" : "ext2/3/4";
    p.partuuid = "6c586e13-0" + std::to_string(n);
    disk.partitions.push_back(p);
  }
  piprov::boot::CheckOptions o{.boot_dir = boot, .scan_usb = false, .board = PiBoard::Pi4};
  o.disk = disk;
  auto r = piprov::boot::check_boot(o);
  const auto* missing = bt::find_rule(r, "autoboot-partition-missing");
  ASSERT_NE(missing, nullptr) << t6_all(r);
  EXPECT_EQ(missing->severity, piprov::Severity::Error);
  EXPECT_EQ(missing->line, 3);
  EXPECT_EQ(missing->message,
            "autoboot.txt boot_partition=3, but ab.img has no partition 3 (partitions: 1 (vfat), 2 (ext2/3/4))");
  EXPECT_EQ(bt::find_rule(r, "autoboot-config-unused"), nullptr) << t6_all(r);
  EXPECT_FALSE(r.ok());

  write_file(boot / "autoboot.txt", "[all]\nboot_partition=2\n");
  r = piprov::boot::check_boot(o);
  const auto* not_fat = bt::find_rule(r, "autoboot-partition-not-fat");
  ASSERT_NE(not_fat, nullptr) << t6_all(r);
  EXPECT_EQ(not_fat->line, 2);
  EXPECT_EQ(not_fat->message,
            "partition 2 (ab.img partition 2) named by autoboot.txt is ext2/3/4, not FAT: the "
            "bootloader boots only FAT12/16/32");
  EXPECT_FALSE(r.ok());

  // Partition 1, FAT: only the info that this config.txt boots if BOOT_DIR is that partition.
  write_file(boot / "autoboot.txt", "[all]\nboot_partition=1\n");
  r = piprov::boot::check_boot(o);
  EXPECT_EQ(bt::find_rule(r, "autoboot-partition-missing"), nullptr) << t6_all(r);
  EXPECT_EQ(bt::find_rule(r, "autoboot-partition-not-fat"), nullptr) << t6_all(r);
  EXPECT_NE(bt::find_rule(r, "autoboot-config-unused"), nullptr) << t6_all(r);

  // Without the disk (a bare boot dir) piprov cannot tell: the info, as before.
  write_file(boot / "autoboot.txt", "[all]\nboot_partition=3\n");
  o.disk.reset();
  r = piprov::boot::check_boot(o);
  EXPECT_EQ(bt::find_rule(r, "autoboot-partition-missing"), nullptr) << t6_all(r);
  EXPECT_NE(bt::find_rule(r, "autoboot-config-unused"), nullptr) << t6_all(r);
}

// Finding 4: a UTF-8 byte order mark before cmdline.txt's first parameter is named, with the fix that
// removes it, not "add root=" (root= is there, after the mark).
TEST(Trial6Boot, CmdlineBomIsNamed) {
  TempDir t;
  const auto boot = t6_boot(t.path, "", "[all]\narm_boost=1\n");
  write_file(boot / "cmdline.txt", "\xEF\xBB\xBFroot=PARTUUID=6c586e13-02 console=tty1 rootwait\n");
  auto r = t6_check(boot, PiBoard::Pi4);
  const auto* bom = bt::find_rule(r, "cmdline-utf8-bom");
  ASSERT_NE(bom, nullptr) << t6_all(r);
  EXPECT_EQ(bom->severity, piprov::Severity::Error);
  EXPECT_EQ(bom->message,
            "cmdline.txt starts with a UTF-8 byte order mark (bytes EF BB BF) before 'root=PARTUUID=6c586e13-02': the "
            "firmware passes it on, so the kernel does not know its first parameter and 'root=PARTUUID=6c586e13-02' "
            "is lost");
  EXPECT_EQ(bom->fix, "save the file as UTF-8 without a byte order mark (e.g. sed -i '1s/^\\xEF\\xBB\\xBF//' " +
                          piprov::shell_quote((boot / "cmdline.txt").string()) + ")");
  EXPECT_EQ(bt::find_rule(r, "cmdline-no-root"), nullptr) << t6_all(r);
  EXPECT_FALSE(r.ok());
}

// Finding 4: config.txt with a mark before a comment (a warning) or a setting (an error: the
// firmware does not skip it, so kernel= is a key it does not know and the default kernel boots).
TEST(Trial6Boot, ConfigBomIsNamed) {
  TempDir t;
  const auto boot = t6_boot(t.path, "", "\xEF\xBB\xBF# For more options and information see\n[all]\narm_boost=1\n");
  auto r = t6_check(boot, PiBoard::Pi4);
  const auto* bom = bt::find_rule(r, "config-utf8-bom");
  ASSERT_NE(bom, nullptr) << t6_all(r);
  EXPECT_EQ(bom->severity, piprov::Severity::Warning);
  EXPECT_EQ(bom->line, 1);
  EXPECT_EQ(bt::find_rule(r, "config-bare-key"), nullptr) << t6_all(r);

  write_file(boot / "config.txt", "\xEF\xBB\xBFkernel=nope.img\n[all]\narm_boost=1\n");
  r = t6_check(boot, PiBoard::Pi4);
  bom = bt::find_rule(r, "config-utf8-bom");
  ASSERT_NE(bom, nullptr) << t6_all(r);
  EXPECT_EQ(bom->severity, piprov::Severity::Error);
  EXPECT_EQ(bom->message,
            "config.txt starts with a UTF-8 byte order mark (bytes EF BB BF) before 'kernel=nope.img': "
            "the firmware reads line 1 with it, so 'kernel=nope.img' sets nothing");
  EXPECT_EQ(r.resolved.kernel, "kernel8.img");  // what the firmware boots: the default
  EXPECT_FALSE(r.ok());
}

// Finding 11: program_usb_boot_mode=1 (a Pi 3's OTP setting) does nothing on a Pi 4 or Pi 5:
// a warning, unless under a model filter that does not match the board ([pi3]).
TEST(Trial6Boot, Pi3OtpUsbBootModeWarnsOnAPi4OrPi5) {
  TempDir t;
  const auto boot = t6_boot(t.path, "", "[all]\narm_boost=1\nprogram_usb_boot_mode=1\n");
  auto r = t6_check(boot, PiBoard::Pi4);
  const auto* otp = bt::find_rule(r, "config-otp-usb-boot");
  ASSERT_NE(otp, nullptr) << t6_all(r);
  EXPECT_EQ(otp->severity, piprov::Severity::Warning);
  EXPECT_EQ(otp->line, 3);
  EXPECT_EQ(otp->key, "program_usb_boot_mode");
  EXPECT_EQ(otp->message,
            "config.txt line 3: program_usb_boot_mode programs the USB boot bits in the OTP of a Raspberry Pi 3; a "
            "Pi 4 does nothing with it: its bootloader, in the EEPROM, boots from USB as BOOT_ORDER says");
  EXPECT_EQ(otp->fix,
            "remove program_usb_boot_mode from config.txt; to boot from USB, set BOOT_ORDER in the bootloader config "
            "(sudo rpi-eeprom-config --edit, or piprov eeprom set-boot-order) and check it with piprov eeprom check");
  EXPECT_EQ(bt::find_rule(r, "config-eeprom-key"), nullptr) << t6_all(r);
  r = t6_check(boot, PiBoard::Pi5);
  ASSERT_NE(bt::find_rule(r, "config-otp-usb-boot"), nullptr) << t6_all(r);
  EXPECT_NE(bt::find_rule(r, "config-otp-usb-boot")->message.find("a Pi 5 does nothing with it"), std::string::npos);
  // Under [pi3] it is for a Pi 3 sharing the card: not this board's; after [all] it is again.
  write_file(boot / "config.txt", "[pi3]\nprogram_usb_boot_mode=1\n[all]\narm_boost=1\n");
  EXPECT_EQ(bt::find_rule(t6_check(boot, PiBoard::Pi4), "config-otp-usb-boot"), nullptr);
  write_file(boot / "config.txt", "[pi3]\nprogram_usb_boot_mode=1\n[all]\nprogram_usb_boot_timeout=1\n");
  r = t6_check(boot, PiBoard::Pi4);
  std::vector<std::string> got;
  for (const auto& f : r.findings)
    if (f.rule == "config-otp-usb-boot") got.push_back(f.key + "@" + std::to_string(f.line));
  EXPECT_EQ(got, (std::vector<std::string>{"program_usb_boot_timeout@4"})) << t6_all(r);
  write_file(boot / "config.txt", "[pi4]\nprogram_usb_boot_mode=1\n");
  EXPECT_NE(bt::find_rule(t6_check(boot, PiBoard::Pi4), "config-otp-usb-boot"), nullptr);
}

// Finding 11: boot_order= in lower case is the EEPROM setting BOOT_ORDER, not a config.txt option
// (was not flagged while BOOT_ORDER= was).
TEST(Trial6Boot, LowerCaseEepromKeyIsNamedAsTheEepromSetting) {
  TempDir t;
  const auto boot = t6_boot(t.path, "", "[all]\narm_boost=1\nboot_order=0xf14\nBoot_Uart=1\nenable_uart=1\n");
  auto r = t6_check(boot, PiBoard::Pi4);
  std::vector<std::string> got;
  for (const auto& f : r.findings)
    if (f.rule == "config-eeprom-key") got.push_back(std::to_string(f.line) + " " + f.message + " | " + f.fix);
  EXPECT_EQ(got,
            (std::vector<std::string>{
                "3 config.txt line 3: boot_order is the bootloader EEPROM setting BOOT_ORDER, not a config.txt "
                "option: the firmware ignores it in config.txt | put BOOT_ORDER=0xf14 in the bootloader config "
                "(rpi-eeprom-config --edit, or piprov eeprom) and remove boot_order from config.txt",
                "4 config.txt line 4: Boot_Uart is the bootloader EEPROM setting BOOT_UART, not a config.txt option: "
                "the firmware ignores it in config.txt | put BOOT_UART=1 in the bootloader config "
                "(rpi-eeprom-config --edit, or piprov eeprom) and remove Boot_Uart from config.txt"}))
      << t6_all(r);
  EXPECT_EQ(bt::find_rule(r, "config-eeprom-key")->severity, piprov::Severity::Warning);
}

// Finding 9: Ubuntu 20.04's U-Boot boot partition on a root fs whose os-release is Debian's is not
// the ubuntu-uboot layout: boot check names U-Boot and the distribution with no Ubuntu advice, and
// boot patch refuses it (was patched as Ubuntu 20.04, with Ubuntu's apt hook installed).
TEST(Trial6Boot, UbootOnANonUbuntuRootIsNotUbuntusLayout) {
  PIPROV_REQUIRE_SHARED("config-txt", configs);
  TempDir t;
  const fs::path boot = t.path / "boot", root = t.path / "root";
  bt::make_stock_boot(bt::stock("focal"), configs, boot, root);
  ASSERT_EQ(piprov::boot::detect_layout(boot, root).id, piprov::boot::LayoutId::UbuntuUboot);
  ASSERT_EQ(piprov::boot::detect_layout(boot, root).os_id, "ubuntu");
  write_file(root / "etc/os-release",
             "PRETTY_NAME=\"Debian GNU/Linux 11 (bullseye)\"\nNAME=\"Debian GNU/Linux\"\nVERSION_ID=\"11\"\n"
             "VERSION_CODENAME=bullseye\nID=debian\n");
  const auto l = piprov::boot::detect_layout(boot, root);
  EXPECT_EQ(l.id, piprov::boot::LayoutId::Unknown);
  EXPECT_EQ(l.release, "Debian GNU/Linux 11 (bullseye)");
  EXPECT_EQ(l.os_id, "debian");
  EXPECT_TRUE(piprov::boot::root_not_ubuntu(l));
  EXPECT_FALSE(piprov::boot::patch_takes_layout(boot, l));
  EXPECT_NE(std::find(l.evidence.begin(), l.evidence.end(),
                      "U-Boot on a root fs that is not Ubuntu's (os-release ID=debian): not Ubuntu 20.04's layout"),
            l.evidence.end())
      << testing::PrintToString(l.evidence);

  auto r = piprov::boot::check_boot({.boot_dir = boot, .root_dir = root, .scan_usb = false, .board = PiBoard::Pi4});
  EXPECT_EQ(r.layout.id, piprov::boot::LayoutId::Unknown);
  for (const auto& f : r.findings) {
    EXPECT_EQ(f.fix.find("boot patch"), std::string::npos) << f.rule << ": " << f.fix;
    EXPECT_EQ(f.fix.find("provision"), std::string::npos) << f.rule << ": " << f.fix;
    EXPECT_EQ(f.fix.find("apt"), std::string::npos) << f.rule << ": " << f.fix;
    EXPECT_EQ(f.fix.find("linux-raspi"), std::string::npos) << f.rule << ": " << f.fix;
    EXPECT_EQ(f.message.find("Ubuntu"), std::string::npos) << f.rule << ": " << f.message;
  }
  EXPECT_EQ(bt::find_rule(r, "hook-missing"), nullptr) << t6_all(r);
  // The same check on an image names provision nowhere either.
  r = piprov::boot::check_boot(
      {.boot_dir = boot, .root_dir = root, .scan_usb = false, .board = PiBoard::Pi4, .image = "/img/deb.img"});
  for (const auto& f : r.findings) EXPECT_EQ(f.fix.find("provision"), std::string::npos) << f.rule << ": " << f.fix;

  const std::string config_before = piprov::test::read_file(boot / "config.txt");
  try {
    piprov::boot::patch_boot({.boot_dir = boot, .root_dir = root});
    ADD_FAILURE() << "boot patch took U-Boot on Debian";
  } catch (const piprov::Error& e) {
    EXPECT_EQ(e.kind(), piprov::ErrorKind::Usage);
    const std::string m = e.what();
    EXPECT_NE(m.find(": unknown boot layout ("), std::string::npos) << m;
    EXPECT_NE(m.find("U-Boot on a root fs that is not Ubuntu's (os-release ID=debian)"), std::string::npos) << m;
    EXPECT_NE(m.find("piprov patches only Ubuntu 20.04's U-Boot layout; nothing was changed"), std::string::npos) << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  }
  EXPECT_EQ(piprov::test::read_file(boot / "config.txt"), config_before);
  EXPECT_FALSE(fs::exists(root / "etc/apt/apt.conf.d/99-piprov-kernel"));
  // An os-release without ID= is os-release(5)'s "linux": not Ubuntu either; Ubuntu's own stays ubuntu-uboot.
  write_file(root / "etc/os-release", "NAME=Linux\n");
  EXPECT_EQ(piprov::boot::detect_layout(boot, root).id, piprov::boot::LayoutId::Unknown);
  write_file(root / "etc/os-release", "NAME=\"Ubuntu\"\nID=ubuntu\nVERSION_ID=\"20.04\"\nVERSION=\"20.04.6 LTS\"\n");
  EXPECT_EQ(piprov::boot::detect_layout(boot, root).id, piprov::boot::LayoutId::UbuntuUboot);
  // Without a root fs nothing says otherwise: the boot files alone are Ubuntu 20.04's.
  EXPECT_EQ(piprov::boot::detect_layout(boot).id, piprov::boot::LayoutId::UbuntuUboot);
}

// Trial 7, nit: an include loop (a.txt includes b.txt includes a.txt) or config.txt including itself
// was accepted silently. A warning names the file, the line and the chain; each file is read once.
TEST(Trial7Boot, IncludeLoopIsNamedAndReadOnce) {
  TempDir t;
  auto boot = t6_boot(t.path, "", "[all]\ninclude config.txt\narm_boost=1\n");
  auto r = t6_check(boot, PiBoard::Pi4);
  const auto* self = bt::find_rule(r, "include-loop");
  ASSERT_NE(self, nullptr) << t6_all(r);
  EXPECT_EQ(self->severity, piprov::Severity::Warning);
  EXPECT_EQ(self->line, 2);
  EXPECT_EQ(self->key, "include");
  EXPECT_EQ(self->message,
            "config.txt: `include config.txt` includes config.txt, which is already being read (config.txt includes "
            "config.txt): an include loop (include inserts the file's content at its line, so the file would hold "
            "itself; the documentation says nothing of what the firmware then does)");
  EXPECT_EQ(self->fix, "remove the include line (config.txt line 2)");
  EXPECT_FALSE(r.ok());  // a warning fails boot check
  EXPECT_EQ(r.resolved.kernel, "kernel8.img");

  // a.txt -> b.txt -> /a.txt (the same file, written with a leading '/'): named in b.txt, line 2.
  boot = t6_boot(t.path / "two", "", "[all]\ninclude a.txt\n");
  write_file(boot / "a.txt", "include b.txt\n");
  write_file(boot / "b.txt", "arm_boost=1\ninclude /a.txt\n");
  r = t6_check(boot, PiBoard::Pi4);
  std::vector<const piprov::Finding*> loops;
  for (const auto& f : r.findings)
    if (f.rule == "include-loop") loops.push_back(&f);
  ASSERT_EQ(loops.size(), 1u) << t6_all(r);
  EXPECT_EQ(loops[0]->line, 2);
  EXPECT_EQ(loops[0]->message.rfind("b.txt: `include /a.txt` includes a.txt, which is already being read (config.txt "
                                    "includes a.txt includes b.txt includes a.txt)",
                                    0),
            0u)
      << loops[0]->message;
  EXPECT_EQ(bt::find_rule(r, "include-missing"), nullptr) << t6_all(r);

  // The same file included twice, not by itself: no loop.
  boot = t6_boot(t.path / "twice", "", "[all]\ninclude a.txt\n[pi4]\ninclude a.txt\n");
  write_file(boot / "a.txt", "arm_boost=1\n");
  r = t6_check(boot, PiBoard::Pi4);
  EXPECT_EQ(bt::find_rule(r, "include-loop"), nullptr) << t6_all(r);
  EXPECT_TRUE(r.ok()) << t6_all(r);
}
