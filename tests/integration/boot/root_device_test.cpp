// `boot check --device`: root= must name a partition of the disk, and no other
// attached disk may carry the same root LABEL/PARTUUID (raspberrypi/linux issue
// 5956). Real loop disks partitioned with sfdisk, formatted with mkfs; PARTUUID
// and LABEL read back through libblkid.
#include <gtest/gtest.h>
#include <unistd.h>

#include "boot/check.hpp"
#include "core/error.hpp"
#include "support/layout_fixture.hpp"
#include "support/testsupport.hpp"

namespace fs = std::filesystem;
using namespace piprov::boot;
using piprov::Severity;
using piprov::test::q;
using piprov::test::run;
using piprov::test::TempDir;

namespace {

/// A 40 MiB MBR disk: p1 FAT "system-boot", p2 ext4 labelled `label`; disk identifier `disk_id` (8 hex digits).
struct PiDisk {
  std::unique_ptr<piprov::test::LoopDevice> loop;
  PiDisk(const fs::path& img, const std::string& disk_id, const std::string& label) {
    loop = std::make_unique<piprov::test::LoopDevice>(img, 40ull << 20);
    // sfdisk on the attached device, then partx -a (BLKPG: also where the kernel has no MBR
    // parser, as image/partitions.cpp does); wait (bounded) for devtmpfs to show loopNp1/p2.
    auto r = run("printf 'label: dos\\nlabel-id: 0x" + disk_id + "\\n,12M,c\\n,,83\\n' | sfdisk -q " + loop->path +
                 " && { partx -a " + loop->path + " 2>/dev/null || true; }");
    if (r.exit_code != 0) throw std::runtime_error("sfdisk: " + r.err);
    for (int i = 0; i < 200 && !(fs::exists(loop->path + "p1") && fs::exists(loop->path + "p2")); ++i) ::usleep(20000);
    r = run("mkfs.vfat -n system-boot " + loop->path + "p1 >/dev/null && mkfs.ext4 -q -F -L " + label + " " +
            loop->path + "p2");
    if (r.exit_code != 0) throw std::runtime_error("mkfs: " + r.err);
  }
};

std::vector<std::string> failing(const CheckReport& r) {
  std::vector<std::string> v;
  for (const auto& f : r.findings)
    if (f.severity != Severity::Info) v.push_back(f.rule);
  return v;
}

/// An ext4 label no other test's disk carries: "pvr" + the process id.
std::string unique_label() { return "pvr" + std::to_string(::getpid() % 1000000); }

}  // namespace

/// A disk identifier no other test's disk carries: 8 hex digits from the process id and `n`.
std::string unique_disk_id(unsigned n) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%08x", 0x5a000000u + (static_cast<unsigned>(::getpid()) << 4) + n);
  return buf;
}

void write_cmdline(const fs::path& boot, const std::string& root) {
  piprov::test::write_file(boot / "cmdline.txt", "console=tty1 root=" + root + " rootfstype=ext4 rootwait\n");
}

TEST(BootRootDevice, PartuuidMustBeOnTheDevice) {
  PIPROV_REQUIRE_LOOP();
  PIPROV_REQUIRE_TOOL("sfdisk");
  PIPROV_REQUIRE_TOOL("partx");
  PIPROV_REQUIRE_TOOL("mkfs.ext4");
  PIPROV_REQUIRE_TOOL("mkfs.vfat");
  PIPROV_REQUIRE_SHARED("config-txt", configs);
  TempDir t;
  const std::string id = unique_disk_id(1);
  PiDisk disk(t.path / "disk.img", id, unique_label());
  const fs::path boot = t.path / "boot", root = t.path / "root";
  test::make_stock_boot(test::stock("bookworm"), configs, boot, root);
  write_cmdline(boot, "PARTUUID=" + id + "-02");
  CheckOptions o{.boot_dir = boot, .scan_usb = false, .board = piprov::PiBoard::Pi4, .device = disk.loop->path};
  auto ok = check_boot(o);
  EXPECT_TRUE(ok.ok()) << testing::PrintToString(failing(ok));

  write_cmdline(boot, "PARTUUID=" + unique_disk_id(2) + "-02");
  auto bad = check_boot(o);
  ASSERT_EQ(failing(bad), std::vector<std::string>{"root-not-on-device"});
  for (const auto& f : bad.findings)
    if (f.rule == "root-not-on-device") {
      EXPECT_EQ(f.fix,
                "set root=PARTUUID=" + id + "-02 (the root partition, " + disk.loop->path + "p2) in cmdline.txt");
      EXPECT_NE(f.message.find("PARTUUID=" + id + "-02"), std::string::npos) << f.message;  // lists what is there
    }
  EXPECT_FALSE(bad.usb_boot());

  // Through the binary: exit 1, the finding in the JSON; a partition instead of the disk is a usage error.
  std::string cmd = piprov::test::piprov_bin() + " boot check " + q(boot.string()) + " --board pi4 --device ";
  auto c = run(cmd + disk.loop->path + " --json");
  EXPECT_EQ(c.exit_code, 1) << c.out << c.err;
  EXPECT_NE(c.out.find("\"rule\": \"root-not-on-device\""), std::string::npos) << c.out;
  auto p = run(cmd + disk.loop->path + "p2");
  EXPECT_EQ(p.exit_code, 2) << p.out;
  EXPECT_EQ(p.err, "piprov: error: " + disk.loop->path + "p2 is a partition; give the whole disk (" + disk.loop->path +
                       ") instead\n");
}

// Trial 8, finding 5: root=/dev/mmcblk0p2 with --device a disk that is not the SD card (a loop
// device standing in for a USB disk): the SD card's partition is never this disk's, an error with
// the root partition's PARTUUID (was warning root-kernel-name, and root-not-on-device skipped).
TEST(BootRootDevice, SdCardKernelNameIsNotOnAUsbDevice) {
  PIPROV_REQUIRE_LOOP();
  PIPROV_REQUIRE_TOOL("sfdisk");
  PIPROV_REQUIRE_TOOL("partx");
  PIPROV_REQUIRE_TOOL("mkfs.ext4");
  PIPROV_REQUIRE_TOOL("mkfs.vfat");
  PIPROV_REQUIRE_SHARED("config-txt", configs);
  TempDir t;
  const std::string id = unique_disk_id(5);
  PiDisk disk(t.path / "disk.img", id, unique_label());
  const fs::path boot = t.path / "boot", root = t.path / "root";
  test::make_stock_boot(test::stock("bookworm"), configs, boot, root);
  write_cmdline(boot, "/dev/mmcblk0p2");
  auto r = check_boot({.boot_dir = boot, .scan_usb = false, .board = piprov::PiBoard::Pi4, .device = disk.loop->path});
  ASSERT_EQ(failing(r), std::vector<std::string>{"root-not-on-device"});
  for (const auto& f : r.findings)
    if (f.rule == "root-not-on-device") {
      EXPECT_EQ(f.severity, Severity::Error);
      EXPECT_EQ(f.message,
                "root=/dev/mmcblk0p2 (cmdline.txt) is a partition of the SD card or eMMC (mmcblk: the mmc "
                "controller), not of " +
                    disk.loop->path +
                    " (loop), which the Pi sees as /dev/sdX or /dev/nvme0n1: booting from it, the kernel "
                    "waits for the card (rootwait) or mounts the card's root");
      EXPECT_EQ(f.fix,
                "set root=PARTUUID=" + id + "-02 (the root partition, " + disk.loop->path + "p2) in cmdline.txt");
    }
  auto c =
      run(piprov::test::piprov_bin() + " boot check " + q(boot.string()) + " --board pi4 --device " + disk.loop->path);
  EXPECT_EQ(c.exit_code, 1) << c.out << c.err;
  EXPECT_NE(c.out.find("root-not-on-device: root=/dev/mmcblk0p2 (cmdline.txt)"), std::string::npos) << c.out;
  // Following the fix: no finding about root=.
  write_cmdline(boot, "PARTUUID=" + id + "-02");
  r = check_boot({.boot_dir = boot, .scan_usb = false, .board = piprov::PiBoard::Pi4, .device = disk.loop->path});
  EXPECT_TRUE(r.ok()) << testing::PrintToString(failing(r));
}

TEST(BootRootDevice, SameRootLabelOnAnotherDiskIsFlagged) {
  PIPROV_REQUIRE_LOOP();
  PIPROV_REQUIRE_TOOL("sfdisk");
  PIPROV_REQUIRE_TOOL("partx");
  PIPROV_REQUIRE_TOOL("mkfs.ext4");
  PIPROV_REQUIRE_TOOL("mkfs.vfat");
  PIPROV_REQUIRE_SHARED("config-txt", configs);
  TempDir t;
  const std::string label = unique_label();
  PiDisk usb(t.path / "usb.img", unique_disk_id(3), label), sd(t.path / "sd.img", unique_disk_id(4), label);
  const fs::path boot = t.path / "boot", root = t.path / "root";
  test::make_stock_boot(test::stock("noble"), configs, boot, root);
  write_cmdline(boot, "LABEL=" + label);
  auto r = check_boot({.boot_dir = boot, .scan_usb = false, .board = piprov::PiBoard::Pi4, .device = usb.loop->path});
  ASSERT_EQ(failing(r), std::vector<std::string>{"root-duplicate"});
  for (const auto& f : r.findings)
    if (f.rule == "root-duplicate") {
      EXPECT_EQ(f.message, sd.loop->path + "p2 on another attached disk (" + sd.loop->path + ") also carries LABEL=" +
                               label + ": the kernel may mount it as root instead of " + usb.loop->path + "'s");
      EXPECT_FALSE(f.fix.empty());
      EXPECT_EQ(f.source, "raspberrypi/linux issue 5956 (two disks with the same root label)");
    }
  EXPECT_TRUE(r.usb_boot());  // a warning: it may boot the wrong root, but it boots
  // Detach the second disk: nothing to flag.
  sd.loop.reset();
  EXPECT_TRUE(
      check_boot({.boot_dir = boot, .scan_usb = false, .board = piprov::PiBoard::Pi4, .device = usb.loop->path}).ok());
}
