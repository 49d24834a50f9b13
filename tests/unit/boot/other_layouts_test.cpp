// boot check on boot partitions that are not Ubuntu's or Raspberry Pi OS's: Home Assistant OS's
// U-Boot chain (config-txt 30 + cmdline-30) and its Pi 5 A/B layout with os_prefix and an
// absolute cmdline= (31 + cmdline-31), then the rules on inputs written here: files config.txt
// names (device_tree=, armstub=, include, the board's DTB under os_prefix and upstream_kernel),
// config.txt's size, template values, EEPROM keys in config.txt.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "boot/check.hpp"
#include "boot/kernel_image.hpp"
#include "support/boot_fixture.hpp"
#include "support/testsupport.hpp"

namespace fs = std::filesystem;
using piprov::PiBoard;
using piprov::Severity;
using piprov::test::read_file;
using piprov::test::TempDir;
using piprov::test::write_file;
namespace bt = piprov::boot::test;

namespace {

/// A U-Boot binary as far as content goes: no arm64 Image magic, filler around U-Boot's
/// version_string ("U-Boot 2024.01 (...)"), as every U-Boot build carries it.
std::string fake_uboot() {
  std::string b(300000, '\0');
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<char>((i * 2654435761u) >> 24);
  const std::string v = std::string("U-Boot 2024.01 (Jan 08 2024 - 12:00:00 +0000)") + '\0';
  b.replace(150000, v.size(), v);
  b.replace(0x38, 4, "\0\0\0\0", 4);  // never the Image magic
  return b;
}

std::vector<std::string> rules(const piprov::boot::CheckReport& r) {
  std::vector<std::string> v;
  for (const auto& f : r.findings) v.push_back(f.rule);
  return v;
}

bool has(const piprov::boot::CheckReport& r, const std::string& rule) {
  return std::any_of(r.findings.begin(), r.findings.end(), [&](const auto& f) { return f.rule == rule; });
}

const piprov::Finding& find(const piprov::boot::CheckReport& r, const std::string& rule) {
  auto it = std::find_if(r.findings.begin(), r.findings.end(), [&](const auto& f) { return f.rule == rule; });
  if (it == r.findings.end()) throw std::runtime_error("no finding " + rule);
  return *it;
}

piprov::boot::CheckReport check(const fs::path& boot, PiBoard b = PiBoard::Pi4) {
  return piprov::boot::check_boot({.boot_dir = boot, .scan_usb = false, .board = b});
}

/// No fix in the report gives Ubuntu's (or any) apt advice.
void expect_no_apt_advice(const piprov::boot::CheckReport& r) {
  for (const auto& f : r.findings) {
    EXPECT_EQ(f.fix.find("apt "), std::string::npos) << f.rule << ": " << f.fix;
    EXPECT_EQ(f.fix.find("linux-image-raspi"), std::string::npos) << f.rule << ": " << f.fix;
  }
}

}  // namespace

TEST(OtherLayouts, UbootByContentIsNotCheckedAsAKernelAndSuppliesRoot) {
  PIPROV_REQUIRE_SHARED("config-txt/30-haos-pi4-uboot-config.txt", config);
  PIPROV_REQUIRE_SHARED("config-txt/cmdline-30-haos-pi4-uboot-uas-quirks.txt", cmdline);
  EXPECT_TRUE(piprov::boot::is_uboot(fake_uboot()));
  EXPECT_FALSE(piprov::boot::is_uboot(bt::fake_image(300000, 5)));  // an arm64 Image is not U-Boot
  TempDir t;
  std::string cfg = read_file(config);
  cfg.replace(cfg.find("#arm_64bit=1"), 12, "arm_64bit=1");  // what HAOS's build does for 64-bit boards
  write_file(t.path / "config.txt", cfg);
  write_file(t.path / "cmdline.txt", read_file(cmdline));
  write_file(t.path / "u-boot.bin", fake_uboot());
  bt::write_dtbs(t.path);
  auto r = check(t.path);
  EXPECT_TRUE(r.ok()) << testing::PrintToString(rules(r));
  EXPECT_TRUE(has(r, "kernel-uboot-chain"));
  EXPECT_EQ(find(r, "kernel-uboot-chain").line, 7);
  EXPECT_TRUE(has(r, "cmdline-root-from-uboot"));
  EXPECT_FALSE(has(r, "cmdline-no-root"));
  EXPECT_FALSE(has(r, "kernel-invalid"));
  EXPECT_FALSE(has(r, "kernel-uboot"));  // Ubuntu 20.04's USB verdict is for its own layout only
  EXPECT_EQ(r.layout.release, "unknown distribution");
  EXPECT_FALSE(has(r, "cmdline-usb-quirk-invalid"));
  expect_no_apt_advice(r);

  // The same U-Boot under a name Ubuntu never used: recognised by content.
  fs::rename(t.path / "u-boot.bin", t.path / "bootloader-a.img");
  std::string renamed = cfg;
  renamed.replace(renamed.find("kernel=u-boot.bin"), 17, "kernel=bootloader-a.img");
  write_file(t.path / "config.txt", renamed);
  r = check(t.path);
  EXPECT_TRUE(has(r, "kernel-uboot-chain")) << testing::PrintToString(rules(r));
  EXPECT_TRUE(r.ok()) << testing::PrintToString(rules(r));

  // A Linux Image where U-Boot was: a kernel, so the cmdline without root= is an error again.
  write_file(t.path / "bootloader-a.img", bt::fake_image(300000, 7));
  r = check(t.path);
  EXPECT_FALSE(has(r, "kernel-uboot-chain"));
  EXPECT_TRUE(has(r, "cmdline-no-root"));
  expect_no_apt_advice(r);

  // The board's own DTB is required: an error naming the file.
  write_file(t.path / "bootloader-a.img", fake_uboot());
  fs::remove(t.path / "bcm2711-rpi-4-b.dtb");
  r = check(t.path);
  ASSERT_TRUE(has(r, "dtb-missing")) << testing::PrintToString(rules(r));
  EXPECT_EQ(find(r, "dtb-missing").severity, Severity::Error);
  EXPECT_NE(find(r, "dtb-missing").message.find("bcm2711-rpi-4-b.dtb does not exist in " + t.path.string()),
            std::string::npos)
      << find(r, "dtb-missing").message;
  EXPECT_FALSE(r.ok());
  // ... per board: the Pi 400's own is there, so a Pi 400 boots.
  EXPECT_FALSE(has(check(t.path, PiBoard::Pi400), "dtb-missing"));
}

TEST(OtherLayouts, OsPrefixDoesNotApplyToAnAbsoluteCmdline) {
  PIPROV_REQUIRE_SHARED("config-txt/31-haos-pi5-os-prefix-config.txt", config);
  PIPROV_REQUIRE_SHARED("config-txt/cmdline-31-haos-pi5-rauc.txt", cmdline);
  TempDir t;
  write_file(t.path / "config.txt", read_file(config));
  write_file(t.path / "cmdline.txt", read_file(cmdline));
  fs::create_directories(t.path / "slot-A");
  bt::compress_to(t.path / "slot-A/kernel_2712.img", bt::fake_image(300000, 9));
  bt::write_dtbs(t.path / "slot-A");
  auto r = check(t.path, PiBoard::Pi5);
  EXPECT_EQ(r.resolved.os_prefix, "slot-A/");
  EXPECT_EQ(r.resolved.kernel, "slot-A/kernel_2712.img");
  EXPECT_EQ(r.resolved.cmdline, "cmdline.txt");  // cmdline=/cmdline.txt: at the partition root
  EXPECT_EQ(r.resolved.root, "PARTUUID=8d3d53e3-6d49-4c38-8349-aff6859e82fd");
  EXPECT_TRUE(r.ok()) << testing::PrintToString(rules(r));
  EXPECT_EQ(r.layout.release, "unknown distribution");
  expect_no_apt_advice(r);

  // The DTB is read under os_prefix: one at the root only does not count.
  fs::remove(t.path / "slot-A/bcm2712-rpi-5-b.dtb");
  bt::write_dtbs(t.path);
  r = check(t.path, PiBoard::Pi5);
  ASSERT_TRUE(has(r, "dtb-missing")) << testing::PrintToString(rules(r));
  EXPECT_NE(find(r, "dtb-missing").message.find("slot-A/bcm2712-rpi-5-b.dtb does not exist"), std::string::npos)
      << find(r, "dtb-missing").message;
  EXPECT_NE(find(r, "dtb-missing").message.find("under os_prefix=slot-A/"), std::string::npos);

  // Written without the leading '/', cmdline= is under the prefix, where there is none.
  bt::write_dtbs(t.path / "slot-A");
  std::string cfg = read_file(config);
  cfg.replace(cfg.find("cmdline=/cmdline.txt"), 20, "cmdline=cmdline.txt");
  write_file(t.path / "config.txt", cfg);
  r = check(t.path, PiBoard::Pi5);
  EXPECT_EQ(r.resolved.cmdline, "slot-A/cmdline.txt");
  EXPECT_TRUE(has(r, "cmdline-missing")) << testing::PrintToString(rules(r));
  expect_no_apt_advice(r);
}

// kernel= and initramfs with a leading '/' are not prefixed either (own input).
TEST(OtherLayouts, AbsoluteKernelAndInitramfsSkipTheOsPrefix) {
  TempDir t;
  write_file(t.path / "config.txt",
             "[all]\nos_prefix=b/\nkernel=/shared/Image\ninitramfs /shared/initrd.img followkernel\n"
             "cmdline=/cmdline.txt\n");
  write_file(t.path / "cmdline.txt", "console=tty1 root=PARTUUID=1234abcd-02 rootwait\n");
  write_file(t.path / "shared/Image", bt::fake_image(200000, 3));
  write_file(t.path / "shared/initrd.img", std::string("\x1f\x8b initrd", 10));
  bt::write_dtbs(t.path / "b");
  auto r = check(t.path);
  EXPECT_EQ(r.resolved.kernel, "shared/Image");
  EXPECT_EQ(r.resolved.initramfs, "shared/initrd.img");
  EXPECT_EQ(r.resolved.cmdline, "cmdline.txt");
  EXPECT_TRUE(r.ok()) << testing::PrintToString(rules(r));
}

TEST(OtherLayouts, FilesTheConfigNamesMustExist) {
  TempDir t;
  const std::string base = "[all]\narm_64bit=1\nkernel=Image\n";
  write_file(t.path / "cmdline.txt", "console=tty1 root=PARTUUID=1234abcd-02 rootwait\n");
  write_file(t.path / "Image", bt::fake_image(200000, 3));
  bt::write_dtbs(t.path);
  write_file(t.path / "config.txt", base);
  ASSERT_TRUE(check(t.path).ok()) << testing::PrintToString(rules(check(t.path)));

  // device_tree=: that file instead of the board's; missing is an error naming it, with its line.
  write_file(t.path / "config.txt", base + "device_tree=custom-board.dtb\n");
  auto r = check(t.path);
  ASSERT_TRUE(has(r, "device-tree-missing")) << testing::PrintToString(rules(r));
  EXPECT_EQ(find(r, "device-tree-missing").line, 4);
  EXPECT_NE(find(r, "device-tree-missing").message.find("custom-board.dtb does not exist"), std::string::npos);
  write_file(t.path / "custom-board.dtb", "dtb");
  fs::remove(t.path / "bcm2711-rpi-4-b.dtb");  // not needed when device_tree= names another
  EXPECT_TRUE(check(t.path).ok()) << testing::PrintToString(rules(check(t.path)));
  bt::write_dtbs(t.path);

  // armstub=: at the partition root.
  write_file(t.path / "config.txt", base + "armstub=armstub8-gic.bin\n");
  r = check(t.path);
  ASSERT_TRUE(has(r, "armstub-missing")) << testing::PrintToString(rules(r));
  EXPECT_NE(find(r, "armstub-missing").message.find("armstub8-gic.bin does not exist"), std::string::npos);
  write_file(t.path / "armstub8-gic.bin", "stub");
  EXPECT_FALSE(has(check(t.path), "armstub-missing"));

  // include of a missing file: an error naming the file.
  write_file(t.path / "config.txt", base + "include extraconfig.txt\n");
  r = check(t.path);
  ASSERT_TRUE(has(r, "include-missing"));
  EXPECT_EQ(find(r, "include-missing").severity, Severity::Error);
  EXPECT_NE(find(r, "include-missing").message.find("extraconfig.txt does not exist"), std::string::npos);

  // upstream_kernel=1: the firmware looks in upstream/ first, upstream names preferred (CM4: -cm4-io).
  write_file(t.path / "config.txt", base + "upstream_kernel=1\n");
  for (const auto& e : fs::directory_iterator(t.path))
    if (e.path().extension() == ".dtb") fs::remove(e.path());
  r = check(t.path, PiBoard::Cm4);
  ASSERT_TRUE(has(r, "dtb-missing"));
  EXPECT_NE(find(r, "dtb-missing").message.find("bcm2711-rpi-cm4.dtb (or bcm2711-rpi-cm4-io.dtb)"), std::string::npos)
      << find(r, "dtb-missing").message;
  EXPECT_NE(find(r, "dtb-missing").message.find("nor in upstream/"), std::string::npos);
  write_file(t.path / "upstream/bcm2711-rpi-cm4-io.dtb", "dtb");
  EXPECT_FALSE(has(check(t.path, PiBoard::Cm4), "dtb-missing"));
  // Each board its own name: the CM5 (any carrier) and the Pi 500.
  r = check(t.path, PiBoard::Cm5);
  EXPECT_NE(find(r, "dtb-missing").message.find("bcm2712-rpi-cm5-cm5io.dtb"), std::string::npos);
  write_file(t.path / "bcm2712-rpi-cm5l-cm4io.dtb", "dtb");  // a CM5 Lite on a CM4 IO board
  EXPECT_FALSE(has(check(t.path, PiBoard::Cm5), "dtb-missing"));
  EXPECT_NE(find(check(t.path, PiBoard::Pi500), "dtb-missing").message.find("bcm2712-rpi-500.dtb"), std::string::npos);
}

TEST(OtherLayouts, ConfigSizeTemplatesAndEepromKeys) {
  TempDir t;
  const std::string base = "[all]\narm_64bit=1\nkernel=Image\n";
  write_file(t.path / "cmdline.txt", "console=tty1 root=PARTUUID=1234abcd-02 rootwait\n");
  write_file(t.path / "Image", bt::fake_image(200000, 3));
  bt::write_dtbs(t.path);

  // Over 16 KiB: a warning (raspberrypi/firmware issue 1848); 16 KiB itself is fine.
  std::string comments;
  while (comments.size() < 16 * 1024 - base.size()) comments += "# a comment line of the kind that made it big\n";
  comments.resize(16 * 1024 - base.size() - 1);
  comments += "\n";
  write_file(t.path / "config.txt", base + comments);
  EXPECT_FALSE(has(check(t.path), "config-too-large"));
  write_file(t.path / "config.txt", base + comments + "#\n");
  auto r = check(t.path);
  ASSERT_TRUE(has(r, "config-too-large"));
  EXPECT_EQ(find(r, "config-too-large").severity, Severity::Warning);
  EXPECT_NE(find(r, "config-too-large").source.find("raspberrypi/firmware issue 1848"), std::string::npos);

  // Template values in config.txt: errors; in a comment they are harmless.
  write_file(t.path / "config.txt", base + "dtoverlay=${OVERLAY}\n# ${NOT_READ}\n");
  r = check(t.path);
  ASSERT_TRUE(has(r, "template-value"));
  EXPECT_EQ(find(r, "template-value").line, 4);
  EXPECT_NE(find(r, "template-value").message.find("${OVERLAY}"), std::string::npos);
  const auto all = rules(r);
  EXPECT_EQ(std::count(all.begin(), all.end(), "template-value"), 1);
  write_file(t.path / "config.txt", base + "gpu_mem=@GPU_MEM@\n");
  EXPECT_TRUE(has(check(t.path), "template-value"));

  // ... and in the cmdline file: @VAR@, ${VAR} and placeholders such as ROOTDEV.
  write_file(t.path / "config.txt", base);
  write_file(t.path / "cmdline.txt", "console=tty1 root=PARTUUID=@ROOT_PARTUUID@ rootwait\n");
  r = check(t.path);
  EXPECT_TRUE(has(r, "template-value")) << testing::PrintToString(rules(r));
  EXPECT_FALSE(r.ok());
  write_file(t.path / "cmdline.txt", "console=tty1 root=${ROOT} rootwait\n");
  EXPECT_TRUE(has(check(t.path), "template-value"));
  write_file(t.path / "cmdline.txt", "console=tty1 root=ROOT_PARTUUID rootwait resume=SWAPDEV\n");
  r = check(t.path);
  EXPECT_TRUE(has(r, "root-placeholder")) << testing::PrintToString(rules(r));
  EXPECT_TRUE(has(r, "template-value"));  // resume=SWAPDEV
  // Real upper-case values are not placeholders: LABEL=RASPIROOT (Debian), the Wi-Fi country.
  write_file(t.path / "cmdline.txt", "console=tty1 root=LABEL=RASPIROOT rootwait cfg80211.ieee80211_regdom=GB\n");
  r = check(t.path);
  EXPECT_FALSE(has(r, "template-value")) << testing::PrintToString(rules(r));
  EXPECT_FALSE(has(r, "root-placeholder"));

  // An EEPROM key in config.txt: a warning naming the key and where it belongs.
  write_file(t.path / "cmdline.txt", "console=tty1 root=PARTUUID=1234abcd-02 rootwait\n");
  write_file(t.path / "config.txt", base + "BOOT_UART=1\nenable_uart=1\n");
  r = check(t.path);
  ASSERT_TRUE(has(r, "config-eeprom-key"));
  EXPECT_EQ(find(r, "config-eeprom-key").severity, Severity::Warning);
  EXPECT_EQ(find(r, "config-eeprom-key").line, 4);
  EXPECT_EQ(find(r, "config-eeprom-key").key, "BOOT_UART");
  EXPECT_NE(find(r, "config-eeprom-key").fix.find("rpi-eeprom-config"), std::string::npos);
  const auto keys = rules(r);
  EXPECT_EQ(std::count(keys.begin(), keys.end(), "config-eeprom-key"), 1);  // enable_uart is config.txt's

  // A key of the other family's bootloader (issue 29, trial 9): moving it would do nothing either,
  // so the fix says to remove it. On the board it belongs to, the fix moves it.
  write_file(t.path / "config.txt", base + "PCIE_PROBE=1\n");
  EXPECT_EQ(find(check(t.path, PiBoard::Pi4), "config-eeprom-key").fix,
            "PCIE_PROBE is a Pi 5 bootloader key: a Pi 4 ignores it; remove it from config.txt");
  EXPECT_EQ(find(check(t.path, PiBoard::Pi5), "config-eeprom-key").fix,
            "put PCIE_PROBE=1 in the bootloader config (rpi-eeprom-config --edit, or piprov eeprom) and remove it "
            "from config.txt");
  write_file(t.path / "config.txt", base + "usb_msd_pwr_off_time=500\n");
  EXPECT_EQ(find(check(t.path, PiBoard::Pi5), "config-eeprom-key").fix,
            "USB_MSD_PWR_OFF_TIME is a Pi 4 bootloader key: a Pi 5 ignores it; remove usb_msd_pwr_off_time from "
            "config.txt");
  // Under a [pi5] filter the line is not the Pi 4's: the fix still moves it (for the Pi 5).
  write_file(t.path / "config.txt", base + "[pi5]\nPCIE_PROBE=1\n");
  EXPECT_EQ(find(check(t.path, PiBoard::Pi4), "config-eeprom-key").fix.rfind("put PCIE_PROBE=1", 0), 0u);
}

// An empty device_tree= loads no device tree (Raspberry Pi documentation, config_txt), and a Linux
// kernel cannot boot without one (Linux arm64 booting.rst): an error on Ubuntu's noble layout,
// with or without .dtb files on the partition (was "boots from USB ... OK"); U-Boot's script may
// load its own, so not under U-Boot.
TEST(OtherLayouts, EmptyDeviceTreeIsAnErrorForALinuxKernel) {
  PIPROV_REQUIRE_SHARED("config-txt", configs);
  TempDir t;
  bt::make_stock_boot(bt::stock("noble"), configs, t.path / "boot", t.path / "root");
  const fs::path boot = t.path / "boot";
  ASSERT_TRUE(check(boot).usb_boot()) << testing::PrintToString(rules(check(boot)));
  const std::string cfg = read_file(boot / "config.txt") + "\n[all]\ndevice_tree=\n";
  write_file(boot / "config.txt", cfg);
  const int line = static_cast<int>(std::count(cfg.begin(), cfg.end(), '\n'));
  for (bool dtbs : {true, false}) {
    if (!dtbs)
      for (const auto& e : fs::directory_iterator(boot))
        if (e.path().extension() == ".dtb") fs::remove(e.path());
    auto r = check(boot);
    ASSERT_TRUE(has(r, "device-tree-empty")) << testing::PrintToString(rules(r));
    const auto& f = find(r, "device-tree-empty");
    EXPECT_EQ(f.severity, Severity::Error);
    EXPECT_EQ(f.line, line);
    EXPECT_EQ(f.key, "device_tree");
    EXPECT_NE(f.message.find("the firmware loads no device tree"), std::string::npos) << f.message;
    EXPECT_NE(f.fix.find("remove the empty device_tree= line"), std::string::npos) << f.fix;
    EXPECT_NE(f.fix.find("bcm2711-rpi-4-b.dtb"), std::string::npos) << f.fix;
    EXPECT_FALSE(r.ok());
    EXPECT_FALSE(r.usb_boot());
    EXPECT_NE(r.headline().find("does not boot from USB as it is"), std::string::npos) << r.headline();
    EXPECT_FALSE(has(r, "dtb-missing"));  // no DTB is looked for: none would be loaded
  }
  // Under U-Boot: no device-tree-empty (its boot script may load a device tree itself).
  TempDir u;
  write_file(u.path / "config.txt", "[all]\narm_64bit=1\nkernel=u-boot.bin\ndevice_tree=\n");
  write_file(u.path / "cmdline.txt", "console=tty1 rootwait\n");
  write_file(u.path / "u-boot.bin", fake_uboot());
  auto r = check(u.path);
  EXPECT_TRUE(has(r, "kernel-uboot-chain")) << testing::PrintToString(rules(r));
  EXPECT_FALSE(has(r, "device-tree-empty"));
}
