// debian-raspi: the boot partition Debian's raspi-firmware package writes
// (its kernel hook /etc/kernel/postinst.d/z50-raspi-firmware; the images of
// https://raspi.debian.net). The texts below are what the hook of raspi-firmware
// 1.20220830+ds-1 writes with ROOTPART=LABEL=RASPIROOT, KERNEL_ARCH=arm64,
// CONSOLES="tty0 ttyS1,115200" and CMA=0 (the config.txt header is the
// package's heredoc). The integration test debian_raspi_test.cpp runs the real hook.
#include <gtest/gtest.h>

#include "boot/check.hpp"
#include "boot/layout.hpp"
#include "boot/patch.hpp"
#include "support/boot_fixture.hpp"
#include "support/layout_fixture.hpp"
#include "support/testsupport.hpp"

namespace fs = std::filesystem;
using namespace piprov::boot;
using piprov::PiBoard;
using piprov::Severity;
using piprov::test::read_file;
using piprov::test::read_tree;
using piprov::test::TempDir;
using piprov::test::write_file;

namespace {

constexpr const char* kDebianRaspiConfigTxt =
    "# Do not modify this file!\n"
    "#\n"
    "# It is automatically generated upon install or update of either the\n"
    "# firmware or the Linux kernel.\n"
    "#\n"
    "# If you need to set boot-time parameters, do so via the\n"
    "# /etc/default/raspi-firmware, /etc/default/raspi-firmware-custom or\n"
    "# /etc/default/raspi-extra-cmdline files.\n"
    "\n"
    "# Switch the CPU from ARMv7 into ARMv8 (aarch64) mode\n"
    "arm_64bit=1\n"
    "\n"
    "enable_uart=1\n"
    "upstream_kernel=1\n"
    "\n"
    "kernel=vmlinuz-6.1.0-99-arm64\n"
    "# For details on the initramfs directive, see\n"
    "# https://www.raspberrypi.org/forums/viewtopic.php?f=63&t=10532\n"
    "initramfs initrd.img-6.1.0-99-arm64\n";

constexpr const char* kDebianRaspiCmdline =
    " console=tty0 console=ttyS1,115200 root=LABEL=RASPIROOT rw fsck.repair=yes net.ifnames=0  rootwait \n";

// The lines of Debian's hook that detection reads (the rest of the script does not matter here).
constexpr const char* kDebianRaspiHook =
    "#!/bin/sh\n# see also:\n# https://kernel-team.pages.debian.net/kernel-handbook/ch-update-hooks.html\n"
    "cat >/boot/firmware/config.txt <<EOF\n# Do not modify this file!\nEOF\n";

// Raspberry Pi OS's hook at the same path (RPi-Distro/firmware): copies the kernel, never writes config.txt.
constexpr const char* kRaspiosFirmwareHook =
    "#!/bin/sh -e\n# RPi-Distro/firmware debian/kernel/postinst.d/z50-raspi-firmware\n"
    "cp \"/boot/vmlinuz-$version\" /boot/firmware/kernel8.img\n";

struct DebianRaspiTree {
  TempDir t;
  fs::path boot = t.path / "boot", root = t.path / "root";
  DebianRaspiTree() {
    write_file(boot / "config.txt", kDebianRaspiConfigTxt);
    write_file(boot / "cmdline.txt", kDebianRaspiCmdline);
    write_file(boot / "vmlinuz-6.1.0-99-arm64", test::fake_image(300000, 41));  // Debian's arm64 vmlinuz is an Image
    write_file(boot / "initrd.img-6.1.0-99-arm64", std::string("\x1f\x8b fake initramfs", 17));
    test::write_start4(boot / "start4.elf", "Aug 26 2022");
    test::write_dtbs(boot);  // the hook copies the kernel package's device trees
    write_file(root / "etc/os-release",
               "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nNAME=\"Debian GNU/Linux\"\nVERSION_ID=\"12\"\n"
               "VERSION_CODENAME=bookworm\nID=debian\n");
    write_file(root / "etc/default/raspi-firmware", "# CMA=64M\nROOTPART=LABEL=RASPIROOT\n# KERNEL_ARCH=\"arm64\"\n");
    write_file(root / kRaspiFirmwareHookRel, kDebianRaspiHook);
    fs::create_directories(root / "etc/apt/apt.conf.d");
    write_file(root / "var/lib/dpkg/status",
               "Package: raspi-firmware\nStatus: install ok installed\nVersion: 1.20220830+ds-1\n\n");
  }
};

std::vector<std::string> debian_not_info(const CheckReport& r) {
  std::vector<std::string> v;
  for (const auto& f : r.findings)
    if (f.severity != Severity::Info) v.push_back(f.rule + ": " + f.message);
  return v;
}

}  // namespace

TEST(DebianRaspi, NameRoundTrips) {
  EXPECT_EQ(layout_name(LayoutId::DebianRaspi), "debian-raspi");
  EXPECT_EQ(parse_layout("debian-raspi"), LayoutId::DebianRaspi);
  EXPECT_TRUE(boots_from_usb_as_shipped(LayoutId::DebianRaspi));
  EXPECT_FALSE(needs_usb_fix(LayoutId::DebianRaspi));
}

TEST(DebianRaspi, DetectedFromTheGeneratedConfigWithAndWithoutRoot) {
  DebianRaspiTree t;
  auto boot_only = detect_layout(t.boot);
  EXPECT_EQ(boot_only.id, LayoutId::DebianRaspi) << testing::PrintToString(boot_only.evidence);
  EXPECT_EQ(boot_only.release, "Debian (raspi-firmware)");
  auto with_root = detect_layout(t.boot, t.root);
  EXPECT_EQ(with_root.id, LayoutId::DebianRaspi);
  EXPECT_EQ(with_root.release, "Debian GNU/Linux 12 (bookworm)");
  EXPECT_NE(std::find(with_root.evidence.begin(), with_root.evidence.end(), "dpkg: raspi-firmware installed"),
            with_root.evidence.end())
      << testing::PrintToString(with_root.evidence);
  // A hand-edited config.txt on a root with Debian's hook is still debian-raspi.
  write_file(t.boot / "config.txt",
             "arm_64bit=1\nkernel=vmlinuz-6.1.0-99-arm64\ninitramfs initrd.img-6.1.0-99-arm64\n");
  EXPECT_EQ(detect_layout(t.boot, t.root).id, LayoutId::DebianRaspi);
  EXPECT_EQ(detect_layout(t.boot).id, LayoutId::UbuntuDirect);  // without the root nothing says Debian
}

TEST(DebianRaspi, ResolvesTheVersionedKernelAndChecksOk) {
  DebianRaspiTree t;
  for (bool with_root : {false, true}) {
    SCOPED_TRACE(with_root);
    CheckOptions o{.boot_dir = t.boot, .scan_usb = false, .board = PiBoard::Pi4};
    if (with_root) o.root_dir = t.root;
    auto r = check_boot(o);
    EXPECT_EQ(r.layout.id, LayoutId::DebianRaspi);
    EXPECT_EQ(r.resolved.kernel, "vmlinuz-6.1.0-99-arm64");
    EXPECT_EQ(r.resolved.initramfs, "initrd.img-6.1.0-99-arm64");
    EXPECT_EQ(r.resolved.cmdline, "cmdline.txt");
    EXPECT_EQ(r.resolved.root, "LABEL=RASPIROOT");
    EXPECT_TRUE(r.ok()) << testing::PrintToString(debian_not_info(r));
    EXPECT_TRUE(debian_not_info(r).empty()) << testing::PrintToString(debian_not_info(r));
    EXPECT_TRUE(r.usb_boot());
    EXPECT_EQ(r.headline().substr(0, 28), "layout debian-raspi (Debian ");
  }
}

TEST(DebianRaspi, MissingKernelNamesRaspiFirmware) {
  DebianRaspiTree t;
  fs::remove(t.boot / "vmlinuz-6.1.0-99-arm64");
  auto r = check_boot({.boot_dir = t.boot, .root_dir = t.root, .scan_usb = false, .board = PiBoard::Pi4});
  EXPECT_FALSE(r.ok());
  bool found = false;
  for (const auto& f : r.findings)
    if (f.rule == "kernel-missing") {
      found = true;
      EXPECT_NE(f.fix.find("dpkg-reconfigure raspi-firmware"), std::string::npos) << f.fix;
    }
  EXPECT_TRUE(found);
}

TEST(DebianRaspi, EditsTheHookOverwritesAreWarned) {
  DebianRaspiTree t;
  write_file(t.boot / "cmdline.txt", "console=tty0 root=/dev/sda2 rw rootwait\n");
  write_file(t.boot / "config.txt",
             "arm_64bit=1\nenable_uart=1\nkernel=vmlinuz-6.1.0-99-arm64\ninitramfs initrd.img-6.1.0-99-arm64\n");
  auto r = check_boot({.boot_dir = t.boot, .root_dir = t.root, .scan_usb = false, .board = PiBoard::Pi4});
  int edited = 0;
  for (const auto& f : r.findings)
    if (f.rule == "raspi-firmware-edited") {
      ++edited;
      EXPECT_EQ(f.severity, Severity::Warning);
      EXPECT_NE(f.source.find("Debian package raspi-firmware"), std::string::npos);
    }
  EXPECT_EQ(edited, 2);
  // Without the root there is no hook to know of: no warning.
  auto b = check_boot({.boot_dir = t.boot, .scan_usb = false, .board = PiBoard::Pi4});
  for (const auto& f : b.findings) EXPECT_NE(f.rule, "raspi-firmware-edited");
}

TEST(DebianRaspi, PatchChangesNoByte) {
  DebianRaspiTree t;
  const auto before_boot = read_tree(t.boot), before_root = read_tree(t.root);
  for (bool with_root : {false, true}) {
    PatchOptions o{.boot_dir = t.boot};
    if (with_root) o.root_dir = t.root;
    auto rep = patch_boot(o);
    EXPECT_FALSE(rep.changed());
    EXPECT_EQ(rep.layout.id, LayoutId::DebianRaspi);
    EXPECT_NE(rep.summary.find("raspi-firmware's kernel hook"), std::string::npos) << rep.summary;
    EXPECT_EQ(rep.summary.substr(0, 17), "nothing to patch:");
  }
  EXPECT_EQ(read_tree(t.boot), before_boot);
  EXPECT_EQ(read_tree(t.root), before_root);
}

TEST(DebianRaspi, UasQuirkGoesToRaspiExtraCmdlineToo) {
  DebianRaspiTree t;
  auto rep = patch_boot({.boot_dir = t.boot, .root_dir = t.root, .uas_quirks = {"152d:0578"}});
  EXPECT_TRUE(rep.changed());
  EXPECT_NE(read_file(t.boot / "cmdline.txt").find("usb-storage.quirks=152d:0578:u"), std::string::npos);
  EXPECT_EQ(read_file(t.root / "etc/default/raspi-extra-cmdline"), "usb-storage.quirks=152d:0578:u\n");
  DebianRaspiTree u;
  auto note = patch_boot({.boot_dir = u.boot, .uas_quirks = {"152d:0578"}});
  bool noted = false;
  for (const auto& n : note.notes) noted = noted || n.find("/etc/default/raspi-extra-cmdline") != std::string::npos;
  EXPECT_TRUE(noted) << testing::PrintToString(note.notes);
}

// Raspberry Pi OS ships a raspi-firmware package too, with a hook at the same path that never
// writes config.txt: its presence does not make a layout debian-raspi.
TEST(DebianRaspi, RaspiosHookIsNotDebians) {
  PIPROV_REQUIRE_SHARED("config-txt", configs);
  TempDir t;
  fs::path boot = t.path / "boot", root = t.path / "root";
  test::make_stock_boot(test::stock("bookworm"), configs, boot, root);
  write_file(root / kRaspiFirmwareHookRel, kRaspiosFirmwareHook);
  EXPECT_FALSE(debian_raspi_hook(root));
  EXPECT_EQ(detect_layout(boot, root).id, LayoutId::Raspios);
  TempDir n;
  test::make_stock_boot(test::stock("noble"), configs, n.path / "boot", n.path / "root");
  EXPECT_EQ(detect_layout(n.path / "boot", n.path / "root").id, LayoutId::UbuntuDirect);
  EXPECT_FALSE(raspi_firmware_generated("# Do not modify this file!\nkernel=vmlinuz\n"));
  EXPECT_TRUE(raspi_firmware_generated(kDebianRaspiConfigTxt));
}
