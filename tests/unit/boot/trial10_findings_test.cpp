// boot check on the tenth new-user trial of issue 29: /etc/fstab's /dev/disk/by-partuuid/,
// by-uuid/ and by-label/ names are judged as the PARTUUID=/UUID=/LABEL= tags systemd turns into them
// (finding 5; systemd src/shared/fstab-util.c fstab_node_to_udev_node); an id that names a partition
// only when case is ignored is an error where it is compared exactly: in fstab (systemd waits for the
// link as written; udev names it after blkid's value) and in root= when an initramfs resolves it with
// blkid -t (finding 6; initramfs-tools scripts/functions resolve_device, util-linux issue 1014); a
// quoted root= is named as quoted and judged without its quotes (finding 7; Linux lib/cmdline.c
// next_arg drops them, /proc/cmdline keeps them).
#include <gtest/gtest.h>

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

/// DIR/boot (kernel8.img, the DTBs, config.txt `config`) with cmdline.txt `cmdline`, and DIR/root
/// with etc/fstab `fstab`.
void t10f_tree(const fs::path& dir, const std::string& cmdline, const std::string& fstab,
               const std::string& config = "[all]\narm_64bit=1\n") {
  write_file(dir / "boot/config.txt", config);
  write_file(dir / "boot/kernel8.img", bt::fake_image(200000, 7));
  write_file(dir / "boot/cmdline.txt", cmdline);
  bt::write_dtbs(dir / "boot", true);
  fs::create_directories(dir / "root/etc");
  write_file(dir / "root/etc/fstab", fstab);
}

/// boot check of an image whose partitions are bt::raspios_image_disk() (MBR disk id 6c586e13, FAT
/// bootfs UUID 91FE-7499, ext4 rootfs UUID 56f80fa2-...).
piprov::boot::CheckReport t10f_check(const fs::path& dir, std::optional<piprov::Disk> disk = bt::raspios_image_disk()) {
  piprov::boot::CheckOptions o{.boot_dir = dir / "boot",
                               .root_dir = dir / "root",
                               .scan_usb = false,
                               .board = PiBoard::Pi4,
                               .image = "raspios.img",
                               .disk = disk};
  o.disk_partuuids = o.disk_labels = disk.has_value();
  return piprov::boot::check_boot(o);
}

std::vector<const piprov::Finding*> t10f_rule(const piprov::boot::CheckReport& r, const std::string& rule) {
  std::vector<const piprov::Finding*> out;
  for (const auto& f : r.findings)
    if (f.rule == rule) out.push_back(&f);
  return out;
}

constexpr const char* kT10Cmdline = "console=tty1 root=PARTUUID=6c586e13-02 rootfstype=ext4 rootwait\n";

}  // namespace

// Finding 5: the by-partuuid path is judged as PARTUUID= is (f3.img's line), and the fix keeps the
// path form; by-uuid and by-label likewise, each fixed in its own kind.
TEST(Trial10Boot, FstabDiskByPathsAreJudgedAsTheirTags) {
  TempDir t;
  t10f_tree(t.path, kT10Cmdline,
            "/dev/disk/by-partuuid/deadbeef-01 /boot/firmware vfat defaults 0 2\n"
            "/dev/disk/by-label/writable / ext4 defaults,noatime 0 1\n"
            "/dev/disk/by-uuid/dead-beef /boot vfat defaults,nofail 0 2\n"
            "/dev/disk/by-partuuid/deadbeef-03 /mnt/x vfat defaults 0 2\n");
  auto r = t10f_check(t.path);
  auto found = t10f_rule(r, "fstab-not-on-device");
  ASSERT_EQ(found.size(), 4u) << bt::findings_text(r);
  EXPECT_EQ(found[0]->severity, piprov::Severity::Error);
  EXPECT_EQ(found[0]->line, 1);
  EXPECT_EQ(found[0]->key, "/boot/firmware");
  EXPECT_EQ(found[0]->message,
            "/etc/fstab line 1: /dev/disk/by-partuuid/deadbeef-01 (mounted on /boot/firmware) names no partition "
            "of a USB or NVMe disk written from raspios.img: without nofail systemd waits 90 s for it "
            "(x-systemd.device-timeout) and stops in emergency mode, or mounts another disk's partition there");
  EXPECT_EQ(found[0]->fix,
            "set the first field of /etc/fstab line 1 to /dev/disk/by-partuuid/6c586e13-01 (the boot partition, "
            "raspios.img partition 1)");
  EXPECT_EQ(found[1]->line, 2);
  EXPECT_EQ(found[1]->fix,
            "set the first field of /etc/fstab line 2 to /dev/disk/by-label/rootfs (the root partition, raspios.img "
            "partition 2)");
  EXPECT_EQ(found[2]->line, 4);  // errors first: /mnt/x has no nofail
  EXPECT_EQ(found[2]->severity, piprov::Severity::Error);
  EXPECT_NE(found[2]->fix.find("the PARTUUID= or LABEL= of the partition of raspios.img that holds /mnt/x"),
            std::string::npos);
  EXPECT_EQ(found[3]->line, 3);
  EXPECT_EQ(found[3]->severity, piprov::Severity::Warning);
  EXPECT_EQ(found[3]->fix,
            "set the first field of /etc/fstab line 3 to /dev/disk/by-uuid/91FE-7499 (the boot partition, "
            "raspios.img partition 1)");
  EXPECT_FALSE(r.ok());

  // The same paths naming the image's partitions are right; so are names piprov does not judge.
  TempDir ok;
  t10f_tree(ok.path, kT10Cmdline,
            "/dev/disk/by-partuuid/6c586e13-01 /boot/firmware vfat defaults 0 2\n"
            "/dev/disk/by-uuid/56f80fa2-e005-4cca-86e6-19da1069914d / ext4 defaults 0 1\n"
            "/dev/disk/by-label/bootfs /boot vfat defaults 0 2\n"
            "/dev/disk/by-partlabel/data /data ext4 defaults 0 2\n"
            "PARTLABEL=data /data2 ext4 defaults 0 2\n"
            "/dev/disk/by-id/usb-Samsung-part3 /data3 ext4 defaults 0 2\n");
  r = t10f_check(ok.path);
  EXPECT_TRUE(t10f_rule(r, "fstab-not-on-device").empty()) << bt::findings_text(r);
  EXPECT_TRUE(t10f_rule(r, "fstab-id-case").empty()) << bt::findings_text(r);
  EXPECT_TRUE(r.ok()) << bt::findings_text(r);
}

// udev names a by-label link with \xNN for the bytes it escapes (a space is \x20), and fstab(5)
// escapes a space in a field as \040: both name the label "boot fs". A name udev never makes (a
// character it escapes, written as it is) is not judged. A tag's enclosing quotes are dropped, as
// systemd's unquote() and libblkid do.
TEST(Trial10Boot, FstabLabelEscapesAndQuotes) {
  piprov::Disk disk = bt::raspios_image_disk();
  disk.partitions[0].label = "boot fs";
  TempDir t;
  t10f_tree(t.path, kT10Cmdline,
            "/dev/disk/by-label/boot\\x20fs /boot/firmware vfat defaults 0 2\n"
            "LABEL=boot\\040fs /boot vfat defaults 0 2\n"
            "LABEL=\"rootfs\" / ext4 defaults 0 1\n"
            "/dev/disk/by-label/no,such /mnt/a ext4 defaults 0 2\n");
  auto r = t10f_check(t.path, disk);
  EXPECT_TRUE(t10f_rule(r, "fstab-not-on-device").empty()) << bt::findings_text(r);

  TempDir bad;
  t10f_tree(bad.path, kT10Cmdline,
            "/dev/disk/by-label/boot\\x20f /boot/firmware vfat defaults 0 2\n"
            "LABEL='root' / ext4 defaults 0 1\n");
  r = t10f_check(bad.path, disk);
  auto found = t10f_rule(r, "fstab-not-on-device");
  ASSERT_EQ(found.size(), 2u) << bt::findings_text(r);
  // The fix writes the label as udev names the link.
  EXPECT_EQ(found[0]->fix,
            "set the first field of /etc/fstab line 1 to /dev/disk/by-label/boot\\x20fs (the boot partition, "
            "raspios.img partition 1)");
  EXPECT_EQ(found[1]->fix,
            "set the first field of /etc/fstab line 2 to LABEL=rootfs (the root partition, raspios.img partition 2)");
}

// Finding 6: systemd 252 (Debian 12, Raspberry Pi OS bookworm) turns PARTUUID=6C586E13-01 into
// What=/dev/disk/by-partuuid/6C586E13-01 (systemd-fstab-generator run on this fstab; fstab-util.c
// tag_to_udev_node copies the value), while udev's link is blkid's 6c586e13-01: an error without
// nofail, with blkid's spelling as the fix, in the entry's form. A FAT UUID is upper case in blkid
// (91FE-7499), so its lower-case spelling fails the same way.
TEST(Trial10Boot, FstabIdsInTheWrongCaseAreNotFoundBySystemd) {
  TempDir t;
  t10f_tree(t.path, kT10Cmdline,
            "PARTUUID=6C586E13-01 /boot/firmware vfat defaults 0 2\n"
            "/dev/disk/by-partuuid/6C586E13-02 / ext4 defaults 0 1\n"
            "UUID=91fe-7499 /boot vfat defaults,nofail 0 2\n");
  auto r = t10f_check(t.path);
  EXPECT_TRUE(t10f_rule(r, "fstab-not-on-device").empty()) << bt::findings_text(r);
  auto found = t10f_rule(r, "fstab-id-case");
  ASSERT_EQ(found.size(), 3u) << bt::findings_text(r);
  EXPECT_EQ(found[0]->severity, piprov::Severity::Error);
  EXPECT_EQ(found[0]->line, 1);
  EXPECT_EQ(found[0]->key, "/boot/firmware");
  EXPECT_EQ(found[0]->message,
            "/etc/fstab line 1: PARTUUID=6C586E13-01 (mounted on /boot/firmware) names raspios.img partition 1 only "
            "when case is ignored (blkid: PARTUUID=6c586e13-01): systemd waits for /dev/disk/by-partuuid/6C586E13-01, "
            "but udev names the link /dev/disk/by-partuuid/6c586e13-01, and names are compared exactly: without "
            "nofail systemd waits 90 s for it (x-systemd.device-timeout) and stops in emergency mode, or mounts "
            "another disk's partition there");
  EXPECT_EQ(found[0]->fix,
            "set the first field of /etc/fstab line 1 to PARTUUID=6c586e13-01 (raspios.img partition 1's PARTUUID as "
            "blkid prints it)");
  EXPECT_EQ(found[1]->severity, piprov::Severity::Error);
  EXPECT_EQ(found[1]->fix,
            "set the first field of /etc/fstab line 2 to /dev/disk/by-partuuid/6c586e13-02 (raspios.img partition "
            "2's PARTUUID as blkid prints it)");
  EXPECT_EQ(found[2]->severity, piprov::Severity::Warning);
  EXPECT_EQ(found[2]->fix,
            "set the first field of /etc/fstab line 3 to UUID=91FE-7499 (raspios.img partition 1's UUID as blkid "
            "prints it)");
  EXPECT_FALSE(r.ok());

  // A GPT image's GUIDs are read in upper case; blkid and udev name them in lower case.
  piprov::Disk gpt = bt::raspios_image_disk();
  gpt.partitions[0].partuuid = "0FC63DAF-8483-4772-8E79-3D69D8477DE4";
  TempDir g;
  t10f_tree(g.path, kT10Cmdline, "PARTUUID=0fc63daf-8483-4772-8e79-3d69d8477de4 /boot/firmware vfat defaults 0 2\n");
  r = t10f_check(g.path, gpt);
  EXPECT_TRUE(t10f_rule(r, "fstab-id-case").empty()) << bt::findings_text(r);
  EXPECT_TRUE(t10f_rule(r, "fstab-not-on-device").empty()) << bt::findings_text(r);
}

// Finding 6, root=: the kernel's own lookup ignores case (block/early-lookup.c strncasecmp), so
// without an initramfs root=PARTUUID=6C586E13-02 stays right; with one, initramfs-tools resolves it
// with blkid -t, which compares exactly: error root-id-case with blkid's spelling.
TEST(Trial10Boot, RootIdCaseMattersOnlyWithAnInitramfs) {
  TempDir t;
  t10f_tree(t.path, "console=tty1 root=PARTUUID=6C586E13-02 rootwait\n", "PARTUUID=6c586e13-02 / ext4 defaults 0 1\n");
  auto r = t10f_check(t.path);
  EXPECT_EQ(bt::find_rule(r, "root-id-case"), nullptr) << bt::findings_text(r);
  EXPECT_EQ(bt::find_rule(r, "root-not-on-device"), nullptr) << bt::findings_text(r);
  EXPECT_TRUE(r.ok()) << bt::findings_text(r);

  TempDir i;
  t10f_tree(i.path, "console=tty1 root=PARTUUID=6C586E13-02 rootwait\n", "PARTUUID=6c586e13-02 / ext4 defaults 0 1\n",
            "[all]\narm_64bit=1\nauto_initramfs=1\n");
  write_file(i.path / "boot/initramfs8", "initramfs");
  r = t10f_check(i.path);
  const auto* f = bt::find_rule(r, "root-id-case");
  ASSERT_NE(f, nullptr) << bt::findings_text(r);
  EXPECT_EQ(f->severity, piprov::Severity::Error);
  EXPECT_EQ(f->message,
            "root=PARTUUID=6C586E13-02 (cmdline.txt) names raspios.img partition 2 only when case is ignored (blkid: "
            "PARTUUID=6c586e13-02): the kernel's own lookup ignores case, but the initramfs the firmware loads "
            "(initramfs8) resolves root= with blkid -t, which compares exactly: it gives up waiting (\"ALERT!  "
            "PARTUUID=6C586E13-02 does not exist\") and drops to its shell");
  EXPECT_EQ(f->fix, "set root=PARTUUID=6c586e13-02 (as blkid prints it) in cmdline.txt");
  EXPECT_FALSE(r.ok());
}

// Finding 7: k3.img's root="PARTUUID=6c586e13-02": named as quoted, not as an unknown form; an error
// when an initramfs reads /proc/cmdline, a warning otherwise; a wrong id inside the quotes is still
// root-not-on-device.
TEST(Trial10Boot, QuotedRootIsNamedAndJudgedWithoutQuotes) {
  TempDir t;
  t10f_tree(t.path, "console=tty1 root=\"PARTUUID=6c586e13-02\" rootwait\n",
            "PARTUUID=6c586e13-02 / ext4 defaults 0 1\n");
  auto r = t10f_check(t.path);
  EXPECT_EQ(bt::find_rule(r, "root-unknown"), nullptr) << bt::findings_text(r);
  EXPECT_EQ(bt::find_rule(r, "root-not-on-device"), nullptr) << bt::findings_text(r);
  const auto* f = bt::find_rule(r, "root-quoted");
  ASSERT_NE(f, nullptr) << bt::findings_text(r);
  EXPECT_EQ(f->severity, piprov::Severity::Warning);
  EXPECT_EQ(f->message,
            "cmdline.txt: root=\"PARTUUID=6c586e13-02\" is quoted: the kernel drops the quotes and reads "
            "root=PARTUUID=6c586e13-02, but whatever reads root= from /proc/cmdline (an initramfs, systemd) gets "
            "them too");
  EXPECT_EQ(f->fix, "drop the quotes: root=PARTUUID=6c586e13-02");

  TempDir i;
  t10f_tree(i.path, "console=tty1 root=\"PARTUUID=deadbeef-02\" rootwait\n",
            "PARTUUID=6c586e13-02 / ext4 defaults 0 1\n", "[all]\narm_64bit=1\ninitramfs initrd.img followkernel\n");
  write_file(i.path / "boot/initrd.img", "initramfs");
  r = t10f_check(i.path);
  f = bt::find_rule(r, "root-quoted");
  ASSERT_NE(f, nullptr) << bt::findings_text(r);
  EXPECT_EQ(f->severity, piprov::Severity::Error);
  EXPECT_NE(f->message.find("the initramfs the firmware loads (initrd.img) reads root= from /proc/cmdline with the "
                            "quotes (initramfs-tools init: ROOT=${x#root=}), finds no device named "
                            "\"PARTUUID=deadbeef-02\" and drops to its shell"),
            std::string::npos)
      << f->message;
  const auto* on = bt::find_rule(r, "root-not-on-device");
  ASSERT_NE(on, nullptr) << bt::findings_text(r);
  EXPECT_EQ(on->message.rfind("root=PARTUUID=deadbeef-02 (cmdline.txt) names no partition of raspios.img", 0), 0u)
      << on->message;
}

// provision finds an image's root partition by root= (partition_named_by): a quoted value names it as
// the kernel reads it.
TEST(Trial10Boot, PartitionNamedByTakesAQuotedRootAsTheKernelDoes) {
  const piprov::Disk d = bt::raspios_image_disk();
  ASSERT_NE(piprov::boot::partition_named_by(d, "\"PARTUUID=6c586e13-02\""), nullptr);
  EXPECT_EQ(piprov::boot::partition_named_by(d, "\"PARTUUID=6c586e13-02\"")->number, 2);
  EXPECT_EQ(piprov::boot::partition_named_by(d, "\"LABEL=bootfs")->number, 1);
  EXPECT_EQ(piprov::boot::partition_named_by(d, "\"PARTUUID=deadbeef-02\""), nullptr);
  EXPECT_EQ(piprov::boot::partition_named_by(d, "\""), nullptr);
}
