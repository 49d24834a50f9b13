// boot check on the seventh new-user trial of issue 29: root= judged by the partitions of a disk
// whose ids are known without --device (an image, provision's disk; finding 1), the kernel-fallback
// fix names the missing kernel_2712.img (finding 6), and an unknown layout's fix names the release
// the headline shows (finding 7).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "boot/check.hpp"
#include "support/boot_fixture.hpp"
#include "support/testsupport.hpp"

namespace fs = std::filesystem;
using piprov::PiBoard;
using piprov::test::TempDir;
using piprov::test::write_file;
namespace bt = piprov::boot::test;

namespace {

std::string t7_all(const piprov::boot::CheckReport& r) {
  std::string s;
  for (const auto& f : r.findings) s += f.rule + ": " + f.message + " | " + f.fix + "\n";
  return s;
}

/// A boot partition at DIR/boot (kernel8.img, the Pi 4 and Pi 5 DTBs unless `dtbs` is false) with
/// cmdline.txt's root= set to ROOT.
fs::path t7_boot(const fs::path& dir, const std::string& root, bool dtbs = true) {
  const fs::path boot = dir / "boot";
  write_file(boot / "config.txt", "[all]\narm_64bit=1\n");
  write_file(boot / "kernel8.img", bt::fake_image(200000, 7));
  write_file(boot / "cmdline.txt", "console=tty1 root=" + root + " rootfstype=ext4 rootwait\n");
  if (dtbs) bt::write_dtbs(boot, true);
  return boot;
}

/// An image's partitions as ImageTree gives them: FAT bootfs and ext rootfs, MBR disk id 6c586e13.
piprov::Disk t7_disk() {
  piprov::Disk d;
  d.path = "raspios.img";
  piprov::Partition p1, p2;
  p1.number = 1;
  p1.path = "raspios.img partition 1";
  p1.fstype = "vfat";
  p1.label = "bootfs";
  p1.uuid = "91FE-7499";
  p1.partuuid = "6c586e13-01";
  p2.number = 2;
  p2.path = "raspios.img partition 2";
  p2.fstype = "ext2/3/4";
  p2.label = "rootfs";
  p2.uuid = "56f80fa2-e005-4cca-86e6-19da1069914d";
  p2.partuuid = "6c586e13-02";
  d.partitions = {p1, p2};
  return d;
}

piprov::boot::CheckReport t7_check_on_disk(const fs::path& boot, bool partuuids, bool labels) {
  piprov::boot::CheckOptions o{.boot_dir = boot, .scan_usb = false, .board = PiBoard::Pi4, .disk = t7_disk()};
  o.disk_partuuids = partuuids;
  o.disk_labels = labels;
  return piprov::boot::check_boot(o);
}

}  // namespace

// Finding 1: root= that names no partition of the disk is root-not-on-device, as with --device.
TEST(Trial7Boot, RootNamingNoPartitionOfTheDiskIsAnError) {
  for (const std::string root : {"PARTUUID=deadbeef-02", "LABEL=nosuch", "UUID=0123abcd-0000-4000-8000-00000000abcd"}) {
    SCOPED_TRACE(root);
    TempDir t;
    auto r = t7_check_on_disk(t7_boot(t.path, root), true, true);
    const auto* f = bt::find_rule(r, "root-not-on-device");
    ASSERT_NE(f, nullptr) << t7_all(r);
    EXPECT_EQ(f->severity, piprov::Severity::Error);
    EXPECT_EQ(f->message, "root=" + root +
                              " (cmdline.txt) names no partition of raspios.img (raspios.img partition 1 LABEL=bootfs "
                              "PARTUUID=6c586e13-01, raspios.img partition 2 LABEL=rootfs PARTUUID=6c586e13-02): the "
                              "Pi would mount another disk's root, or none");
    EXPECT_EQ(f->fix, "set root=PARTUUID=6c586e13-02 in cmdline.txt (raspios.img partition 2)");
    EXPECT_FALSE(r.ok());
    EXPECT_FALSE(r.usb_boot());
    EXPECT_EQ(bt::find_rule(r, "root-duplicate"), nullptr);  // the host's other disks are not the Pi's
  }
}

TEST(Trial7Boot, RootNamingAPartitionOfTheDiskIsRight) {
  for (const std::string root : {"PARTUUID=6C586E13-02", "LABEL=rootfs", "UUID=56f80fa2-e005-4cca-86e6-19da1069914d"}) {
    SCOPED_TRACE(root);
    TempDir t;
    auto r = t7_check_on_disk(t7_boot(t.path, root), true, true);
    EXPECT_EQ(bt::find_rule(r, "root-not-on-device"), nullptr) << t7_all(r);
    EXPECT_TRUE(r.ok()) << t7_all(r);
  }
}

// An id kind the disk does not tell (a GPT image's partition GUIDs, the labels of an image read in
// sequence) is not judged: no error for what piprov could not read.
TEST(Trial7Boot, RootOfAnIdKindNotKnownIsNotJudged) {
  TempDir t;
  auto label = t7_check_on_disk(t7_boot(t.path / "a", "LABEL=nosuch"), true, false);
  EXPECT_EQ(bt::find_rule(label, "root-not-on-device"), nullptr) << t7_all(label);
  auto partuuid = t7_check_on_disk(t7_boot(t.path / "b", "PARTUUID=deadbeef-02"), false, true);
  EXPECT_EQ(bt::find_rule(partuuid, "root-not-on-device"), nullptr) << t7_all(partuuid);
  auto still = t7_check_on_disk(t7_boot(t.path / "c", "PARTUUID=deadbeef-02"), true, false);
  EXPECT_NE(bt::find_rule(still, "root-not-on-device"), nullptr) << t7_all(still);
}

// Finding 6: a Pi 5 boot dir of an unknown layout without kernel_2712.img: the fix restores
// kernel_2712.img (was "restore kernel8.img", the file that is there).
TEST(Trial7Boot, KernelFallbackFixNamesTheMissingKernel) {
  TempDir t;
  const auto boot = t7_boot(t.path, "PARTUUID=6c586e13-02");
  auto r = piprov::boot::check_boot({.boot_dir = boot, .scan_usb = false, .board = PiBoard::Pi5});
  EXPECT_EQ(r.layout.id, piprov::boot::LayoutId::Unknown);
  const auto* f = bt::find_rule(r, "kernel-fallback");
  ASSERT_NE(f, nullptr) << t7_all(r);
  EXPECT_EQ(f->fix,
            "restore kernel_2712.img from the image's own boot partition or its distribution's kernel update (piprov "
            "cannot tell the distribution)");
}

// Finding 7: --root with Alpine's or Debian 12's os-release: the headline names the release, and so
// does the fix (was "piprov cannot tell the distribution").
TEST(Trial7Boot, UnknownLayoutFixNamesTheReleaseTheHeadlineShows) {
  struct Os {
    std::string os_release, release;
  };
  for (const Os& os :
       {Os{"NAME=\"Alpine Linux\"\nID=alpine\nVERSION_ID=3.20.3\nPRETTY_NAME=\"Alpine Linux v3.20\"\n",
           "Alpine Linux v3.20"},
        Os{"PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nNAME=\"Debian GNU/Linux\"\nVERSION_ID=\"12\"\n"
           "VERSION_CODENAME=bookworm\nID=debian\n",
           "Debian GNU/Linux 12 (bookworm)"}}) {
    SCOPED_TRACE(os.release);
    TempDir t;
    const auto boot = t7_boot(t.path, "PARTUUID=6c586e13-02", false);  // no DTB: dtb-missing
    write_file(t.path / "root/etc/os-release", os.os_release);
    auto r = piprov::boot::check_boot(
        {.boot_dir = boot, .root_dir = t.path / "root", .scan_usb = false, .board = PiBoard::Pi4});
    ASSERT_EQ(r.layout.id, piprov::boot::LayoutId::Unknown) << r.headline();
    EXPECT_NE(r.headline().find("(" + os.release + ")"), std::string::npos) << r.headline();
    const auto* f = bt::find_rule(r, "dtb-missing");
    ASSERT_NE(f, nullptr) << t7_all(r);
    EXPECT_EQ(f->fix,
              "restore bcm2711-rpi-4-b.dtb from the image's own boot partition or its distribution's kernel "
              "update (piprov does not know " +
                  os.release + "'s kernel package)");
    EXPECT_EQ((f->message + f->fix).find("cannot tell"), std::string::npos);
  }
}
