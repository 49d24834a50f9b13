// provision on an image whose first FAT partition holds only autoboot.txt (issue 19 part 2; the
// A/B layout of rpi-eeprom issue 575 and rpi-image-gen): p1 FAT with autoboot.txt `[all]
// tryboot_a_b=1 boot_partition=2`, `[tryboot] boot_partition=3`; p2 and p3 FAT with Raspberry Pi OS
// bookworm's boot files, root=PARTUUID=<disk id>-04; p4 ext4 root with cloud-init. The image is
// built at test time (sfdisk, mkfs.vfat, mtools, mke2fs -d) and provisioned onto a loop disk.
#include <gtest/gtest.h>
#include <algorithm>
#include <nlohmann/json.hpp>

#include "support/layout_fixture.hpp"
#include "support/testsupport.hpp"

namespace fs = std::filesystem;
using piprov::test::q;
using piprov::test::run;
using piprov::test::TempDir;

namespace {

constexpr const char* kPabDiskId = "5eedab02";
constexpr const char* kPabAutoboot = "[all]\ntryboot_a_b=1\nboot_partition=2\n[tryboot]\nboot_partition=3\n";

/// Runs `cmd` (a shell line); throws with its stderr when it fails.
void pab_sh(const std::string& cmd) {
  auto r = run(cmd);
  if (r.exit_code != 0) throw std::runtime_error(cmd + ": " + r.err);
}

/// Builds `img` (66 MiB, MBR, disk id kPabDiskId): p1 8 MiB FAT BOOTFS with only autoboot.txt,
/// p2/p3 16 MiB FAT BOOTA/BOOTB with bookworm's boot files, p4 24 MiB ext4 rootfs.
void pab_make_image(const fs::path& dir, const fs::path& configs, const fs::path& img) {
  const fs::path files = dir / "bootfiles", root = dir / "rootfs";
  piprov::boot::test::make_stock_boot(piprov::boot::test::stock("bookworm"), configs, files, root);
  const std::string root_ref = std::string("PARTUUID=") + kPabDiskId + "-04";
  piprov::test::write_file(files / "cmdline.txt",
                           "console=tty1 root=" + root_ref + " rootfstype=ext4 fsck.repair=yes rootwait\n");
  piprov::test::write_file(root / "etc/fstab", "proc /proc proc defaults 0 0\nPARTUUID=" + std::string(kPabDiskId) +
                                                   "-02 /boot/firmware vfat defaults 0 2\n" + root_ref +
                                                   " / ext4 defaults,noatime 0 1\n");
  piprov::test::write_file(root / "usr/bin/cloud-init", "#!/usr/bin/python3\n");
  piprov::test::write_file(root / "etc/cloud/cloud.cfg", "datasource_list: [NoCloud, None]\n");
  piprov::test::write_file(dir / "autoboot.txt", kPabAutoboot);
  const std::string d = q(dir.string());
  pab_sh("cd " + d + " && truncate -s 8M p1.fat && mkfs.vfat -n BOOTFS p1.fat >/dev/null" +
         " && truncate -s 16M p2.fat p3.fat && mkfs.vfat -n BOOTA p2.fat >/dev/null" +
         " && mkfs.vfat -n BOOTB p3.fat >/dev/null && export MTOOLS_SKIP_CHECK=1" +
         " && mcopy -i p1.fat autoboot.txt ::/ && mcopy -s -i p2.fat bootfiles/* ::/" +
         " && mcopy -s -i p3.fat bootfiles/* ::/ && mke2fs -q -F -t ext4 -L rootfs -d rootfs p4.ext4 24M");
  const std::string i = q(img.string());
  pab_sh("truncate -s 66M " + i + " && printf 'label: dos\\nlabel-id: 0x" + kPabDiskId +
         "\\n2048,8M,c\\n,16M,c\\n,16M,c\\n,24M,83\\n' | sfdisk -q " + i + " && cd " + d + " && dd if=p1.fat of=" + i +
         " bs=1M seek=1 conv=notrunc status=none && dd if=p2.fat of=" + i +
         " bs=1M seek=9 conv=notrunc status=none && dd if=p3.fat of=" + i +
         " bs=1M seek=25 conv=notrunc status=none && dd if=p4.ext4 of=" + i +
         " bs=1M seek=41 conv=notrunc status=none");
}

/// The root directory of the FAT partition `part`, one name per entry (mdir -b), sorted.
std::string pab_listing(const std::string& part) {
  auto r = run("MTOOLS_SKIP_CHECK=1 mdir -b -i " + part + " ::/ | sed 's|^::/||' | sort");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

std::string pab_file(const std::string& part, const std::string& name) {
  auto r = run("MTOOLS_SKIP_CHECK=1 mtype -i " + part + " ::" + name);
  EXPECT_EQ(r.exit_code, 0) << part << " " << name << ": " << r.err;
  return r.out;
}

#define PAB_REQUIRE()                                                                           \
  PIPROV_REQUIRE_LOOP();                                                                        \
  for (const char* tool : {"sfdisk", "partx", "mke2fs", "mkfs.vfat", "mcopy", "mdir", "mtype"}) \
    PIPROV_REQUIRE_TOOL(tool);                                                                  \
  PIPROV_REQUIRE_SHARED("config-txt", configs)

}  // namespace

TEST(ProvisionAutoboot, SeedsThePartitionAutobootNamesAndRewritesTheTrybootOne) {
  PAB_REQUIRE();
  TempDir t("piprov-pab");
  pab_make_image(t.path, configs, t.path / "ab.img");
  piprov::test::LoopDevice disk(t.path / "disk.img", 128ull << 20);
  const std::string p1 = disk.path + "p1", p2 = disk.path + "p2", p3 = disk.path + "p3";
  const std::string cmd = piprov::test::piprov_bin() + " provision " + q((t.path / "ab.img").string()) + " " +
                          disk.path + " --yes --progress none --hostname abnode";
  auto r = run(cmd);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("boot " + p2 + " (vfat, LABEL=BOOTA, 16.0 MiB) (autoboot.txt boot_partition=2 on " + p1 +
                       "; [tryboot] partition 3: " + p3 + "), root " + disk.path + "p4"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("[tryboot] partition 3 (" + p3 + "): PARTUUID= rewritten in cmdline.txt, no seed"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("provision: " + disk.path + " is ready"), std::string::npos) << r.out;

  // The new root PARTUUID: partition 2's and 3's cmdline.txt name it, the image's is gone.
  auto uuid = run("partx -g -o UUID -n 4 " + disk.path);
  ASSERT_EQ(uuid.exit_code, 0) << uuid.err;
  const std::string partuuid = uuid.out.substr(0, uuid.out.find_first_not_of("0123456789abcdef-"));
  ASSERT_EQ(partuuid.size(), 11u) << uuid.out;
  ASSERT_NE(partuuid.substr(0, 8), kPabDiskId);
  for (const auto& p : {p2, p3})
    EXPECT_NE(pab_file(p, "cmdline.txt").find("root=PARTUUID=" + partuuid + " "), std::string::npos) << p;
  // The seed is on partition 2 only; partition 1 still holds only autoboot.txt, unchanged.
  const std::string l2 = pab_listing(p2), l3 = pab_listing(p3);
  for (const char* f : {"user-data", "meta-data"}) {
    EXPECT_NE(l2.find(std::string(f) + "\n"), std::string::npos) << f << "\n" << l2;
    EXPECT_EQ(l3.find(std::string(f) + "\n"), std::string::npos) << f << "\n" << l3;
  }
  EXPECT_NE(pab_file(p2, "user-data").find("abnode"), std::string::npos);
  EXPECT_EQ(pab_listing(p1), "autoboot.txt\n");
  EXPECT_EQ(pab_file(p1, "autoboot.txt"), kPabAutoboot);

  // boot check follows autoboot.txt on the provisioned disk: OK.
  const fs::path bootfs = t.path / "bootfs";
  piprov::test::write_file(bootfs / "autoboot.txt", pab_file(p1, "autoboot.txt"));
  auto c = run(piprov::test::piprov_bin() + " boot check " + q(bootfs.string()) + " --board pi5 --device " + disk.path);
  EXPECT_EQ(c.exit_code, 0) << c.out << c.err;
  EXPECT_NE(c.out.find("(" + p2 + "): layout raspios"), std::string::npos) << c.out;

  // --json says which partition and why.
  auto j = run(cmd + " --json");
  ASSERT_EQ(j.exit_code, 0) << j.out << j.err;
  auto doc = nlohmann::json::parse(j.out);
  const auto& tj = doc["targets"][0];
  EXPECT_EQ(tj["boot_partition"], p2);
  EXPECT_EQ(tj["boot_partition_reason"], "autoboot.txt boot_partition=2");
  EXPECT_EQ(tj["autoboot"]["autoboot_partition"], p1);
  EXPECT_EQ(tj["autoboot"]["tryboot_partition"], 3);
  EXPECT_EQ(tj["autoboot"]["tryboot_device"], p3);
  EXPECT_EQ(tj["autoboot"]["tryboot_rewritten"], nlohmann::json::array({"cmdline.txt"}));
  EXPECT_EQ(tj["check_ok"], true) << j.out;
}

TEST(ProvisionAutoboot, RefusesWhenAutobootNamesAMissingOrNonFatPartition) {
  PAB_REQUIRE();
  TempDir t("piprov-pab");
  const fs::path img = t.path / "ab.img";
  pab_make_image(t.path, configs, img);
  piprov::test::LoopDevice disk(t.path / "disk.img", 128ull << 20);
  struct Case {
    const char* autoboot;
    std::string message;
  } cases[] = {
      {"boot_partition=5\n", "autoboot.txt on " + disk.path + "p1 names boot_partition=5, but " + disk.path +
                                 " has no partition 5 (partitions: 1 (vfat, LABEL=BOOTFS), 2 (vfat, LABEL=BOOTA), "
                                 "3 (vfat, LABEL=BOOTB), 4 (ext4, LABEL=rootfs))"},
      {"[all]\nboot_partition=4\n", "autoboot.txt on " + disk.path + "p1 names boot_partition=4, but " + disk.path +
                                        "p4 is ext4, not FAT: the bootloader boots only FAT"},
  };
  for (const auto& c : cases) {
    piprov::test::write_file(t.path / "autoboot.txt", c.autoboot);
    pab_sh("MTOOLS_SKIP_CHECK=1 mcopy -o -i " + q(img.string() + "@@1M") + " " + q((t.path / "autoboot.txt").string()) +
           " ::/autoboot.txt");
    auto r = run(piprov::test::piprov_bin() + " provision " + q(img.string()) + " " + disk.path +
                 " --yes --progress none --hostname abnode");
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_NE(r.out.find("[2/9] identity"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("[3/9]"), std::string::npos) << r.out;
    EXPECT_EQ(r.err.rfind("piprov: error: provision failed at step 'partitions': " + c.message, 0), 0u) << r.err;
    EXPECT_NE(r.err.find("no seed was written"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    for (const char* p : {"p1", "p2", "p3"})
      EXPECT_EQ(pab_listing(disk.path + p).find("user-data"), std::string::npos) << p;
    EXPECT_EQ(pab_file(disk.path + "p1", "autoboot.txt"), c.autoboot);
  }
}
