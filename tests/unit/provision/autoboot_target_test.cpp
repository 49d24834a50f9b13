// provision on an autoboot.txt-only first FAT partition: which partition plan_autoboot() picks,
// when it refuses, and what the output and --json say (autoboot_target.hpp).
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "provision/autoboot_target.hpp"
#include "provision/provision.hpp"
#include "support/testsupport.hpp"

namespace piprov::provision {
namespace {

Partition abt_part(int n, const std::string& fstype, const std::string& label,
                   const std::string& disk_id = "5eedab02") {
  Partition p;
  p.number = n;
  p.name = "sdx" + std::to_string(n);
  p.path = "/dev/sdx" + std::to_string(n);
  p.fstype = fstype;
  p.label = label;
  p.partuuid = disk_id + "-0" + std::to_string(n);
  return p;
}

/// /dev/sdx: 1 FAT BOOTFS, 2 FAT BOOTA, 3 FAT BOOTB, 4 ext4 rootfs (MBR).
Disk abt_disk() {
  Disk d;
  d.name = "sdx";
  d.path = "/dev/sdx";
  d.partitions = {abt_part(1, "vfat", "BOOTFS"), abt_part(2, "vfat", "BOOTA"), abt_part(3, "vfat", "BOOTB"),
                  abt_part(4, "ext4", "rootfs")};
  return d;
}

constexpr const char* kAbtAb = "[all]\ntryboot_a_b=1\nboot_partition=2\n[tryboot]\nboot_partition=3\n";

TEST(ProvisionAutobootPlan, TheDocumentationsAbExampleBootsPartition2AndKeepsPartition3ForTryboot) {
  const Disk d = abt_disk();
  auto ab = plan_autoboot(d, d.partitions[0], boot::parse_autoboot(kAbtAb));
  EXPECT_EQ(ab.boot.path, "/dev/sdx2");
  EXPECT_EQ(ab.autoboot_partition, "/dev/sdx1");
  ASSERT_TRUE(ab.tryboot);
  EXPECT_EQ(ab.tryboot->path, "/dev/sdx3");
  EXPECT_EQ(ab.tryboot_note, "");
  EXPECT_EQ(ab.reason(), "autoboot.txt boot_partition=2");
  EXPECT_EQ(boot_partition_reason(ab.boot, ab), "autoboot.txt boot_partition=2");
  EXPECT_EQ(autoboot_partitions_text(ab),
            " (autoboot.txt boot_partition=2 on /dev/sdx1; [tryboot] partition 3: /dev/sdx3)");
  ab.tryboot_rewritten = {"cmdline.txt"};
  EXPECT_EQ(autoboot_seed_text(ab),
            "; [tryboot] partition 3 (/dev/sdx3): PARTUUID= rewritten in cmdline.txt, no seed (it boots only after "
            "reboot \"0 tryboot\")");
  auto j = autoboot_json(ab);
  EXPECT_EQ(j["boot_partition"], 2);
  EXPECT_EQ(j["tryboot_partition"], 3);
  EXPECT_EQ(j["tryboot_a_b"], true);
  EXPECT_EQ(j["tryboot_device"], "/dev/sdx3");
  EXPECT_TRUE(autoboot_json(std::nullopt).is_null());
}

TEST(ProvisionAutobootPlan, ATrybootPartitionThatIsNotFatIsLeftAloneWithANote) {
  Disk d = abt_disk();
  d.partitions[2].fstype = "ext4";
  auto ab = plan_autoboot(d, d.partitions[0], boot::parse_autoboot(kAbtAb));
  EXPECT_FALSE(ab.tryboot);
  EXPECT_EQ(ab.tryboot_note,
            "[tryboot] partition 3 is ext4, not FAT: left alone (a trial boot fails and the next reset boots "
            "partition 2)");
  EXPECT_EQ(autoboot_seed_text(ab), "; " + ab.tryboot_note);
  auto same =
      plan_autoboot(d, d.partitions[0], boot::parse_autoboot("boot_partition=2\n[tryboot]\nboot_partition=2\n"));
  EXPECT_FALSE(same.tryboot);
  EXPECT_EQ(same.tryboot_note, "");
  EXPECT_EQ(autoboot_partitions_text(same), " (autoboot.txt boot_partition=2 on /dev/sdx1)");
}

TEST(ProvisionAutobootPlan, RefusesAPartitionThatIsMissingNotFatOrUnset) {
  const Disk d = abt_disk();
  auto refused = [&](const std::string& text, const std::string& message) {
    test::expect_error(ErrorKind::Usage, message,
                       [&] { plan_autoboot(d, d.partitions[0], boot::parse_autoboot(text)); });
    test::expect_error(ErrorKind::Usage, "no seed was written: fix boot_partition= in the image's autoboot.txt",
                       [&] { plan_autoboot(d, d.partitions[0], boot::parse_autoboot(text)); });
  };
  refused("boot_partition=5\n",
          "autoboot.txt on /dev/sdx1 names boot_partition=5, but /dev/sdx has no partition 5 (partitions: 1 (vfat, "
          "LABEL=BOOTFS), 2 (vfat, LABEL=BOOTA), 3 (vfat, LABEL=BOOTB), 4 (ext4, LABEL=rootfs))");
  refused("boot_partition=4\n",
          "autoboot.txt on /dev/sdx1 names boot_partition=4, but /dev/sdx4 is ext4, not FAT: the bootloader boots only "
          "FAT");
  refused("[tryboot]\nboot_partition=3\n", "autoboot.txt on /dev/sdx1 has no boot_partition under [all]");
  refused("boot_partition=0\n", "sets boot_partition=0 (the first bootable FAT partition)");
  refused("boot_partition=two\n", "sets boot_partition=two, not a partition number");
  Disk six = abt_disk();
  six.partitions.push_back(abt_part(6, "vfat", "BOOTC"));
  test::expect_error(ErrorKind::Usage, "names boot_partition=6 on an MBR disk",
                     [&] { plan_autoboot(six, six.partitions[0], boot::parse_autoboot("boot_partition=6\n")); });
}

TEST(ProvisionAutobootPlan, TheReasonForOtherBootPartitions) {
  EXPECT_EQ(boot_partition_reason(abt_part(1, "vfat", "system-boot"), std::nullopt), "LABEL=system-boot");
  EXPECT_EQ(boot_partition_reason(abt_part(1, "vfat", "bootfs"), std::nullopt), "the first FAT partition");
}

TEST(ProvisionAutobootPlan, TheTargetJsonSaysWhichPartitionAndWhy) {
  ProvisionReport r;
  TargetReport t;
  t.target = "/dev/sdx";
  t.boot_partition = "/dev/sdx1";
  t.boot_partition_reason = "LABEL=system-boot";
  r.targets = {t};
  auto j = provision_json(r)["targets"][0];
  EXPECT_EQ(j["boot_partition_reason"], "LABEL=system-boot");
  EXPECT_TRUE(j["autoboot"].is_null());
}

}  // namespace
}  // namespace piprov::provision
