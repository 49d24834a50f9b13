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
piprov::boot::CheckReport t7_check_on_disk(const fs::path& boot, bool partuuids, bool labels) {
  piprov::boot::CheckOptions o{
      .boot_dir = boot, .scan_usb = false, .board = PiBoard::Pi4, .disk = bt::raspios_image_disk()};
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
    ASSERT_NE(f, nullptr) << bt::findings_text(r);
    EXPECT_EQ(f->severity, piprov::Severity::Error);
    EXPECT_EQ(f->message, "root=" + root +
                              " (cmdline.txt) names no partition of raspios.img (raspios.img partition 1 LABEL=bootfs "
                              "PARTUUID=6c586e13-01, raspios.img partition 2 LABEL=rootfs PARTUUID=6c586e13-02): the "
                              "Pi would mount another disk's root, or none");
    EXPECT_EQ(f->fix, "set root=PARTUUID=6c586e13-02 (the root partition, raspios.img partition 2) in cmdline.txt");
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
    EXPECT_EQ(bt::find_rule(r, "root-not-on-device"), nullptr) << bt::findings_text(r);
    EXPECT_TRUE(r.ok()) << bt::findings_text(r);
  }
}

// An id kind the disk does not tell (a GPT image's partition GUIDs, the labels of an image read in
// sequence) is not judged: no error for what piprov could not read.
TEST(Trial7Boot, RootOfAnIdKindNotKnownIsNotJudged) {
  TempDir t;
  auto label = t7_check_on_disk(t7_boot(t.path / "a", "LABEL=nosuch"), true, false);
  EXPECT_EQ(bt::find_rule(label, "root-not-on-device"), nullptr) << bt::findings_text(label);
  auto partuuid = t7_check_on_disk(t7_boot(t.path / "b", "PARTUUID=deadbeef-02"), false, true);
  EXPECT_EQ(bt::find_rule(partuuid, "root-not-on-device"), nullptr) << bt::findings_text(partuuid);
  auto still = t7_check_on_disk(t7_boot(t.path / "c", "PARTUUID=deadbeef-02"), true, false);
  EXPECT_NE(bt::find_rule(still, "root-not-on-device"), nullptr) << bt::findings_text(still);
}

// Trial 8, finding 5: root=/dev/mmcblk0p2 names the SD card's (or eMMC's) partition. On a disk the
// Pi boots over USB or NVMe (an image, provision's disk, --device) it is never that disk: error
// root-not-on-device with the root partition's id (Raspberry Pi documentation, "USB mass storage
// boot"). On the SD card itself, or a card in a USB reader, or with no disk known, the warning stays.
TEST(Trial8Boot, SdCardKernelNameOnAUsbDiskIsAnError) {
  for (const std::string root : {"/dev/mmcblk0p2", "/dev/mmcblk1p2"}) {
    SCOPED_TRACE(root);
    TempDir t;
    auto r = t7_check_on_disk(t7_boot(t.path, root), true, true);
    const auto* f = bt::find_rule(r, "root-not-on-device");
    ASSERT_NE(f, nullptr) << bt::findings_text(r);
    EXPECT_EQ(f->severity, piprov::Severity::Error);
    EXPECT_EQ(f->message, "root=" + root +
                              " (cmdline.txt) is a partition of the SD card or eMMC (mmcblk: the mmc controller), not "
                              "of raspios.img (unknown), which the Pi sees as /dev/sdX or /dev/nvme0n1: booting from "
                              "it, the kernel waits for the card (rootwait) or mounts the card's root");
    EXPECT_EQ(f->fix, "set root=PARTUUID=6c586e13-02 (the root partition, raspios.img partition 2) in cmdline.txt");
    EXPECT_EQ(bt::find_rule(r, "root-kernel-name"), nullptr) << bt::findings_text(r);
    EXPECT_FALSE(r.usb_boot());
    EXPECT_NE(r.headline().find("does not boot from USB as it is"), std::string::npos) << r.headline();
  }
  // An image (boot check IMAGE, provision --dry-run): the disk written from it.
  TempDir t;
  piprov::boot::CheckOptions o{.boot_dir = t7_boot(t.path, "/dev/mmcblk0p2"),
                               .scan_usb = false,
                               .board = PiBoard::Pi4,
                               .image = "raspios.img",
                               .disk = bt::raspios_image_disk()};
  auto r = piprov::boot::check_boot(o);
  ASSERT_NE(bt::find_rule(r, "root-not-on-device"), nullptr) << bt::findings_text(r);
  EXPECT_NE(bt::find_rule(r, "root-not-on-device")->message.find("not of a USB or NVMe disk written from raspios.img,"),
            std::string::npos)
      << bt::findings_text(r);
  // Without a PARTUUID (a GPT image whose GUIDs were not read): the root partition's LABEL.
  piprov::Disk gpt = bt::raspios_image_disk();
  for (auto& p : gpt.partitions) p.partuuid.clear();
  o.disk = gpt;
  r = piprov::boot::check_boot(o);
  ASSERT_NE(bt::find_rule(r, "root-not-on-device"), nullptr) << bt::findings_text(r);
  EXPECT_EQ(bt::find_rule(r, "root-not-on-device")->fix,
            "set root=LABEL=rootfs (the root partition, raspios.img partition 2) in cmdline.txt");
}

TEST(Trial8Boot, SdCardKernelNameOnTheCardOrWithNoDiskKnownStaysAWarning) {
  auto warned = [](const piprov::boot::CheckReport& r) {
    const auto* f = bt::find_rule(r, "root-kernel-name");
    return f && f->severity == piprov::Severity::Warning && !bt::find_rule(r, "root-not-on-device");
  };
  TempDir t;
  const fs::path boot = t7_boot(t.path, "/dev/mmcblk0p2");
  // A bare BOOT_DIR: which disk it boots from is not known.
  auto bare = piprov::boot::check_boot({.boot_dir = boot, .scan_usb = false, .board = PiBoard::Pi4});
  ASSERT_TRUE(warned(bare)) << bt::findings_text(bare);
  EXPECT_EQ(bt::find_rule(bare, "root-kernel-name")->message,
            "cmdline.txt: root=/dev/mmcblk0p2 is a partition of the SD card or eMMC (mmcblk: the mmc controller): "
            "right only when the Pi boots from the card; a USB or NVMe disk is /dev/sdX or /dev/nvme0n1 (pass "
            "--device DISK to check against the disk)");
  // The SD card itself (mmc transport, or an mmcblk name), or a card in a USB card reader.
  piprov::Disk sd = bt::raspios_image_disk();
  sd.transport = piprov::Transport::Mmc;
  piprov::Disk named = bt::raspios_image_disk();
  named.name = "mmcblk0";
  piprov::Disk reader = bt::raspios_image_disk();
  reader.transport = piprov::Transport::Usb;
  reader.model = "SD Card Reader";
  for (const auto& d : {sd, named, reader}) {
    auto r = piprov::boot::check_boot(
        {.boot_dir = boot, .scan_usb = false, .board = PiBoard::Pi4, .disk = d, .disk_partuuids = true});
    EXPECT_TRUE(warned(r)) << d.model << bt::findings_text(r);
  }
  // Another kernel name on a USB disk: probe order, as before (it may be right).
  TempDir u;
  piprov::Disk usb = bt::raspios_image_disk();
  usb.transport = piprov::Transport::Usb;
  auto r = piprov::boot::check_boot({.boot_dir = t7_boot(u.path, "/dev/sda2"),
                                     .scan_usb = false,
                                     .board = PiBoard::Pi4,
                                     .disk = usb,
                                     .disk_partuuids = true});
  EXPECT_TRUE(warned(r)) << bt::findings_text(r);
  EXPECT_NE(bt::find_rule(r, "root-kernel-name")->message.find("depends on probe order"), std::string::npos);
}

// Trial 8 nit: "cmdline-no-root: cmdline.txt: cmdline.txt has no root= parameter" named the file
// twice; the file in use (with os_prefix) is named once, at the front.
TEST(Trial8Boot, CmdlineFindingsNameTheFileOnce) {
  TempDir t;
  const fs::path boot = t7_boot(t.path, "PARTUUID=6c586e13-02");
  write_file(boot / "cmdline.txt", "console=tty1 rootwait\nusb-storage.quirks=152d:0578:x\n");
  auto r = piprov::boot::check_boot({.boot_dir = boot, .scan_usb = false, .board = PiBoard::Pi4});
  ASSERT_NE(bt::find_rule(r, "cmdline-no-root"), nullptr) << bt::findings_text(r);
  EXPECT_EQ(bt::find_rule(r, "cmdline-no-root")->message,
            "cmdline.txt has no root= parameter: the kernel will not find the root filesystem");
  ASSERT_NE(bt::find_rule(r, "cmdline-multiple-lines"), nullptr) << bt::findings_text(r);
  EXPECT_EQ(bt::find_rule(r, "cmdline-multiple-lines")->message,
            "cmdline.txt has 2 non-empty lines; the firmware passes only the first to the kernel");
  // Under os_prefix: the prefixed file, once; a message that does not start with the file gets it in front.
  write_file(boot / "config.txt", "[all]\narm_64bit=1\nos_prefix=current/\n");
  write_file(boot / "current/kernel8.img", bt::fake_image(200000, 7));
  bt::write_dtbs(boot / "current", true);
  write_file(boot / "current/cmdline.txt", "console=tty1 usb-storage.quirks=152d:0578 rootwait\n");
  r = piprov::boot::check_boot({.boot_dir = boot, .scan_usb = false, .board = PiBoard::Pi4});
  ASSERT_NE(bt::find_rule(r, "cmdline-no-root"), nullptr) << bt::findings_text(r);
  EXPECT_EQ(bt::find_rule(r, "cmdline-no-root")->message,
            "current/cmdline.txt has no root= parameter: the kernel will not find the root filesystem");
  ASSERT_NE(bt::find_rule(r, "cmdline-usb-quirk-invalid"), nullptr) << bt::findings_text(r);
  EXPECT_EQ(bt::find_rule(r, "cmdline-usb-quirk-invalid")->message.rfind("current/cmdline.txt: usb-storage.quirks ", 0),
            0u)
      << bt::find_rule(r, "cmdline-usb-quirk-invalid")->message;
}

// Finding 6: a Pi 5 boot dir of an unknown layout without kernel_2712.img: the fix restores
// kernel_2712.img (was "restore kernel8.img", the file that is there).
TEST(Trial7Boot, KernelFallbackFixNamesTheMissingKernel) {
  TempDir t;
  const auto boot = t7_boot(t.path, "PARTUUID=6c586e13-02");
  auto r = piprov::boot::check_boot({.boot_dir = boot, .scan_usb = false, .board = PiBoard::Pi5});
  EXPECT_EQ(r.layout.id, piprov::boot::LayoutId::Unknown);
  const auto* f = bt::find_rule(r, "kernel-fallback");
  ASSERT_NE(f, nullptr) << bt::findings_text(r);
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
    ASSERT_NE(f, nullptr) << bt::findings_text(r);
    EXPECT_EQ(f->fix,
              "restore bcm2711-rpi-4-b.dtb from the image's own boot partition or its distribution's kernel "
              "update (piprov does not know " +
                  os.release + "'s kernel package)");
    EXPECT_EQ((f->message + f->fix).find("cannot tell"), std::string::npos);
  }
}
