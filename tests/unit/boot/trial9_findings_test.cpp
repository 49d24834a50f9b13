// boot check on the ninth new-user trial of issue 29: two root= in the cmdline are judged by the
// last, as the kernel takes it (finding 1), and the root fs's /etc/fstab is judged against the disk
// the Pi boots from (finding 8: an entry on the SD card's /dev/mmcblk*, or an id naming no partition
// of the disk, without nofail, stops the boot in emergency mode; systemd.mount(5)).
#include <gtest/gtest.h>

#include <string>

#include "boot/check.hpp"
#include "support/boot_fixture.hpp"
#include "support/testsupport.hpp"

namespace fs = std::filesystem;
using piprov::PiBoard;
using piprov::test::TempDir;
using piprov::test::write_file;
namespace bt = piprov::boot::test;

namespace {

/// DIR/boot (kernel8.img, the Pi 4 and Pi 5 DTBs) with cmdline.txt `cmdline`, and DIR/root with
/// etc/fstab `fstab` (none when empty).
void t9f_tree(const fs::path& dir, const std::string& cmdline, const std::string& fstab) {
  write_file(dir / "boot/config.txt", "[all]\narm_64bit=1\n");
  write_file(dir / "boot/kernel8.img", bt::fake_image(200000, 7));
  write_file(dir / "boot/cmdline.txt", cmdline);
  bt::write_dtbs(dir / "boot", true);
  fs::create_directories(dir / "root/etc");
  if (!fstab.empty()) write_file(dir / "root/etc/fstab", fstab);
}

/// An image's partitions as ImageTree lists them: FAT bootfs and ext rootfs, MBR disk id 6c586e13.
piprov::boot::CheckReport t9f_check(const fs::path& dir, std::optional<piprov::Disk> disk = bt::raspios_image_disk()) {
  piprov::boot::CheckOptions o{.boot_dir = dir / "boot",
                               .root_dir = dir / "root",
                               .scan_usb = false,
                               .board = PiBoard::Pi4,
                               .image = "raspios.img",
                               .disk = disk};
  o.disk_partuuids = o.disk_labels = disk.has_value();
  return piprov::boot::check_boot(o);
}

constexpr const char* kT9Cmdline = "console=tty1 root=PARTUUID=6c586e13-02 rootfstype=ext4 rootwait\n";
constexpr const char* kT9Fstab =
    "proc            /proc           proc    defaults          0       0\n"
    "PARTUUID=6c586e13-01  /boot/firmware  vfat    defaults          0       2\n"
    "PARTUUID=6c586e13-02  /               ext4    defaults,noatime  0       1\n";

}  // namespace

// Finding 1: "root=PARTUUID=6c586e13-02 root=/dev/mmcblk0p2" mounts the card's partition (the last):
// root-not-on-device, and cmdline-duplicate names both. Reversed, the right PARTUUID is last: it boots.
TEST(Trial9Boot, TwoRootsAreJudgedByTheLast) {
  TempDir t;
  t9f_tree(t.path, "console=tty1 root=PARTUUID=6c586e13-02 root=/dev/mmcblk0p2 rootwait\n", kT9Fstab);
  auto r = t9f_check(t.path);
  ASSERT_NE(bt::find_rule(r, "root-not-on-device"), nullptr) << bt::findings_text(r);
  EXPECT_EQ(
      bt::find_rule(r, "root-not-on-device")->message.rfind("root=/dev/mmcblk0p2 (cmdline.txt) is a partition", 0), 0u);
  const auto* dup = bt::find_rule(r, "cmdline-duplicate");
  ASSERT_NE(dup, nullptr) << bt::findings_text(r);
  EXPECT_EQ(dup->severity, piprov::Severity::Warning);
  EXPECT_EQ(dup->message,
            "cmdline.txt sets root= 2 times (root=PARTUUID=6c586e13-02, root=/dev/mmcblk0p2): the kernel uses the "
            "last, root=/dev/mmcblk0p2");
  EXPECT_FALSE(r.ok());

  TempDir u;
  t9f_tree(u.path, "console=tty1 root=PARTUUID=deadbeef-02 root=PARTUUID=6c586e13-02 rootwait\n", kT9Fstab);
  r = t9f_check(u.path);
  EXPECT_EQ(bt::find_rule(r, "root-not-on-device"), nullptr) << bt::findings_text(r);
  ASSERT_NE(bt::find_rule(r, "cmdline-duplicate"), nullptr) << bt::findings_text(r);
  for (const auto& f : r.findings) EXPECT_NE(f.severity, piprov::Severity::Error) << bt::findings_text(r);
}

TEST(Trial9Boot, PartitionNamedByComparesIdsAsBlkidDoes) {
  const piprov::Disk d = bt::raspios_image_disk();
  ASSERT_NE(piprov::boot::partition_named_by(d, "PARTUUID=6C586E13-02"), nullptr);
  EXPECT_EQ(piprov::boot::partition_named_by(d, "PARTUUID=6C586E13-02")->number, 2);
  EXPECT_EQ(piprov::boot::partition_named_by(d, "LABEL=bootfs")->number, 1);
  EXPECT_EQ(piprov::boot::partition_named_by(d, "UUID=91fe-7499")->number, 1);
  EXPECT_EQ(piprov::boot::partition_named_by(d, "LABEL=BOOTFS"), nullptr);  // labels are exact
  EXPECT_EQ(piprov::boot::partition_named_by(d, "PARTUUID=6c586e13-03"), nullptr);
  EXPECT_EQ(piprov::boot::partition_named_by(d, "/dev/sda2"), nullptr);
}

// Finding 8: fstab mounting the SD card's partitions on a disk the Pi boots over USB: errors naming
// the boot and root partitions' PARTUUIDs; with nofail a warning; noauto, swap, tmpfs, network
// file systems and comments are not judged.
TEST(Trial9Boot, FstabOnTheSdCardIsNotOnTheUsbDisk) {
  TempDir t;
  t9f_tree(t.path, kT9Cmdline,
           "# /dev/mmcblk0p3 /data ext4 defaults 0 2\n"
           "/dev/mmcblk0p1 /boot/firmware vfat defaults 0 2\n"
           "/dev/mmcblk0p2 / ext4 defaults,noatime 0 1\n"
           "/dev/mmcblk0p3 /data ext4 defaults,nofail 0 2\n"
           "/dev/mmcblk0p4 /spare ext4 noauto 0 2\n"
           "/dev/mmcblk0p5 none swap sw 0 0\n"
           "tmpfs /tmp tmpfs defaults 0 0\n"
           "nas:/export /mnt/nas nfs defaults 0 0\n");
  auto r = t9f_check(t.path);
  std::vector<const piprov::Finding*> found;
  for (const auto& f : r.findings)
    if (f.rule == "fstab-not-on-device") found.push_back(&f);
  ASSERT_EQ(found.size(), 3u) << bt::findings_text(r);
  // Errors first (sorted by severity), each on its line.
  EXPECT_EQ(found[0]->severity, piprov::Severity::Error);
  EXPECT_EQ(found[0]->line, 2);
  EXPECT_EQ(found[0]->key, "/boot/firmware");
  EXPECT_EQ(found[0]->message,
            "/etc/fstab line 2: /dev/mmcblk0p1 (mounted on /boot/firmware) is a partition of the SD card or eMMC "
            "(mmcblk: the mmc controller), not of a USB or NVMe disk written from raspios.img, which the Pi sees as "
            "/dev/sdX or /dev/nvme0n1: without nofail systemd waits 90 s for it (x-systemd.device-timeout) and stops "
            "in emergency mode, or mounts another disk's partition there");
  EXPECT_EQ(found[0]->fix,
            "set the first field of /etc/fstab line 2 to PARTUUID=6c586e13-01 (the boot partition, raspios.img "
            "partition 1)");
  EXPECT_EQ(found[1]->line, 3);
  EXPECT_EQ(found[1]->fix,
            "set the first field of /etc/fstab line 3 to PARTUUID=6c586e13-02 (the root partition, raspios.img "
            "partition 2)");
  EXPECT_EQ(found[2]->severity, piprov::Severity::Warning);
  EXPECT_EQ(found[2]->line, 4);
  EXPECT_NE(found[2]->message.find("with nofail the boot goes on, without /data mounted"), std::string::npos);
  EXPECT_NE(found[2]->fix.find("the PARTUUID= or LABEL= of the partition of raspios.img that holds /data"),
            std::string::npos);
  EXPECT_FALSE(r.ok());
  EXPECT_FALSE(r.usb_boot()) << bt::findings_text(r);
}

TEST(Trial9Boot, FstabIdsAreJudgedByTheDisksPartitions) {
  TempDir t;
  t9f_tree(t.path, kT9Cmdline,
           "PARTUUID=deadbeef-01 /boot/firmware vfat defaults 0 2\n"
           "LABEL=writable\t/\text4\tdefaults\t0 0\n"
           "UUID=91FE-7499 /boot/efi vfat defaults 0 2\n");
  auto r = t9f_check(t.path);
  std::vector<const piprov::Finding*> found;
  for (const auto& f : r.findings)
    if (f.rule == "fstab-not-on-device") found.push_back(&f);
  ASSERT_EQ(found.size(), 2u) << bt::findings_text(r);
  EXPECT_EQ(found[0]->message.rfind("/etc/fstab line 1: PARTUUID=deadbeef-01 (mounted on /boot/firmware) names no "
                                    "partition of a USB or NVMe disk written from raspios.img: without nofail",
                                    0),
            0u)
      << found[0]->message;
  EXPECT_EQ(found[0]->fix,
            "set the first field of /etc/fstab line 1 to PARTUUID=6c586e13-01 (the boot partition, raspios.img "
            "partition 1)");
  // A LABEL= entry is fixed with the partition's LABEL.
  EXPECT_EQ(found[1]->fix,
            "set the first field of /etc/fstab line 2 to LABEL=rootfs (the root partition, raspios.img partition 2)");

  // The stock fstab (by PARTUUID) is right; so is anything with no disk known (a bare BOOT_DIR --root).
  TempDir ok;
  t9f_tree(ok.path, kT9Cmdline, kT9Fstab);
  r = t9f_check(ok.path);
  EXPECT_EQ(bt::find_rule(r, "fstab-not-on-device"), nullptr) << bt::findings_text(r);
  EXPECT_TRUE(r.ok()) << bt::findings_text(r);
  r = t9f_check(t.path, std::nullopt);
  EXPECT_EQ(bt::find_rule(r, "fstab-not-on-device"), nullptr) << bt::findings_text(r);
}

// On the SD card itself (or a card in a USB reader) /dev/mmcblk0p1 is that card: not judged. An id
// kind whose values the disk does not tell (a GPT image's GUIDs unread) is not judged either.
TEST(Trial9Boot, FstabOnTheCardOrWithUnknownIdsIsNotJudged) {
  TempDir t;
  t9f_tree(t.path, kT9Cmdline,
           "/dev/mmcblk0p1 /boot/firmware vfat defaults 0 2\nPARTUUID=deadbeef-02 / ext4 defaults 0 1\n");
  piprov::Disk sd = bt::raspios_image_disk();
  sd.transport = piprov::Transport::Mmc;
  piprov::boot::CheckOptions o{.boot_dir = t.path / "boot",
                               .root_dir = t.path / "root",
                               .scan_usb = false,
                               .board = PiBoard::Pi4,
                               .disk = sd,
                               .disk_partuuids = false,
                               .disk_labels = true};
  auto r = piprov::boot::check_boot(o);
  EXPECT_EQ(bt::find_rule(r, "fstab-not-on-device"), nullptr) << bt::findings_text(r);
}
