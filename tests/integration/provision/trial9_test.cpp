// Trial 9 of issue 29 on real images (scripts/make-test-image.sh's raspios, edited with sfdisk,
// mke2fs -d, debugfs and mtools): `boot check IMAGE` judges the last of two root= (finding 1), reads
// the root fs from the partition root= names (finding 10), and checks /etc/fstab against the disk
// written from the image (finding 8). (The stock image's dry run stays ready: Trial7RootOnDisk.)
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/testsupport.hpp"

namespace fs = std::filesystem;
using piprov::test::q;
using piprov::test::run;
using piprov::test::TempDir;

namespace {

// make-test-image.sh's raspios: partition 2 (the root fs) starts at sector 526336.
constexpr std::uint64_t kT9RootOffset = 526336ull * 512;

/// The findings of a `--json` check report whose rule is `rule`.
std::vector<nlohmann::json> t9_findings(const nlohmann::json& j, const std::string& rule) {
  std::vector<nlohmann::json> out;
  for (const auto& f : j["findings"])
    if (f["rule"] == rule) out.push_back(f);
  return out;
}

/// Writes `text` as file `path` of the ext4 root fs of `img` (debugfs on the partition's offset).
void t9_root_file(const fs::path& img, const fs::path& work, const std::string& path, const std::string& text) {
  piprov::test::write_file(work / "t9-file", text);
  const std::string fs_at = q(img.string() + "?offset=" + std::to_string(kT9RootOffset));
  run("debugfs -w -R " + q("rm " + path) + " " + fs_at);
  ASSERT_EQ(run("debugfs -w -R " + q("write " + (work / "t9-file").string() + " " + path) + " " + fs_at).exit_code, 0);
  ASSERT_NE(run("debugfs -R " + q("cat " + path) + " " + fs_at).out.find(text), std::string::npos);
}

/// cmdline.txt of `img`'s boot partition set to `line`.
void t9_cmdline(const fs::path& img, const fs::path& work, const std::string& line) {
  piprov::test::write_file(work / "cmdline.txt", line);
  ASSERT_EQ(run("export MTOOLS_SKIP_CHECK=1; mcopy -o -i " + q(img.string() + "@@1M") + " " +
                q((work / "cmdline.txt").string()) + " ::cmdline.txt")
                .exit_code,
            0);
}

}  // namespace

TEST(Trial9Image, TwoRootsFstabAndTheRootFsRootNames) {
  PIPROV_REQUIRE_LOOP();
  PIPROV_REQUIRE_TOOL("mcopy");
  PIPROV_REQUIRE_TOOL("debugfs");
  PIPROV_REQUIRE_TOOL("sfdisk");
  TempDir d("piprov-t9-image");
  const fs::path stock = d.path / "raspios.img";
  if (auto why = piprov::test::make_test_image(stock, 64, "raspios"); !why.empty()) PIPROV_SKIP(why);
  const std::string bin = piprov::test::piprov_bin();
  auto check = [&](const fs::path& img) {
    auto r = run(bin + " boot check --json --board pi4 " + q(img.string()));
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
    auto j = nlohmann::json::parse(r.out);
    j["exit_code"] = r.exit_code;
    return j;
  };
  auto copy = [&](const std::string& name) {
    const fs::path img = d.path / name;
    EXPECT_EQ(run("cp --sparse=always " + q(stock.string()) + " " + q(img.string())).exit_code, 0);
    return img;
  };

  // The stock image: its fstab (by PARTUUID) names its own partitions.
  auto j = check(stock);
  EXPECT_EQ(j["exit_code"], 0) << j.dump(1);
  EXPECT_TRUE(t9_findings(j, "fstab-not-on-device").empty()) << j.dump(1);

  // Finding 1: the last root= (the SD card's partition) is judged, and the two are named.
  const fs::path two = copy("two-roots.img");
  ASSERT_NO_FATAL_FAILURE(
      t9_cmdline(two, d.path, "console=tty1 root=PARTUUID=6c586e13-02 root=/dev/mmcblk0p2 rootfstype=ext4 rootwait\n"));
  j = check(two);
  EXPECT_EQ(j["exit_code"], 1);
  ASSERT_EQ(t9_findings(j, "root-not-on-device").size(), 1u) << j.dump(1);
  EXPECT_EQ(t9_findings(j, "root-not-on-device")[0]["message"].get<std::string>().rfind("root=/dev/mmcblk0p2 ", 0), 0u);
  ASSERT_EQ(t9_findings(j, "cmdline-duplicate").size(), 1u) << j.dump(1);
  EXPECT_EQ(j["layout"]["root"], "/dev/mmcblk0p2");

  // Finding 8: /boot/firmware on the SD card's partition: an error; with nofail a warning.
  const fs::path mmc = copy("fstab-mmc.img");
  ASSERT_NO_FATAL_FAILURE(t9_root_file(mmc, d.path, "/etc/fstab",
                                       "/dev/mmcblk0p1  /boot/firmware  vfat  defaults  0  2\n"
                                       "PARTUUID=6c586e13-02  /  ext4  defaults,noatime  0  1\n"
                                       "/dev/mmcblk0p3  /data  ext4  defaults,nofail  0  2\n"));
  j = check(mmc);
  EXPECT_EQ(j["exit_code"], 1);
  auto fstab = t9_findings(j, "fstab-not-on-device");
  ASSERT_EQ(fstab.size(), 2u) << j.dump(1);
  EXPECT_EQ(fstab[0]["severity"], "error");
  EXPECT_EQ(fstab[0]["line"], 1);
  EXPECT_EQ(fstab[0]["fix"], "set the first field of /etc/fstab line 1 to PARTUUID=6c586e13-01 (the boot partition, " +
                                 mmc.string() + " partition 1)");
  EXPECT_EQ(fstab[1]["severity"], "warning");
  EXPECT_EQ(fstab[1]["line"], 3);
  EXPECT_FALSE(j["layout"]["usb_boot"].get<bool>());

  // Finding 10: a third partition holding another OS, named by root=: its os-release is read.
  const fs::path p3 = copy("p3.img");
  ASSERT_EQ(run("truncate -s +40M " + q(p3.string())).exit_code, 0);
  ASSERT_EQ(run("echo ',32M,83' | sfdisk -q -a " + q(p3.string())).exit_code, 0);
  const std::string start = run("sfdisk -d " + q(p3.string()) + " | awk -F'[=,]' '/p3.img3/{print $2}'").out;
  ASSERT_FALSE(start.empty());
  piprov::test::write_file(d.path / "alpine/etc/os-release",
                           "NAME=\"Alpine Linux\"\nID=alpine\nVERSION_ID=3.20.0\nPRETTY_NAME=\"Alpine Linux v3.20\"\n");
  ASSERT_EQ(run("mkfs.ext4 -q -F -E offset=" + std::to_string(std::stoull(start) * 512) + " -d " +
                q((d.path / "alpine").string()) + " " + q(p3.string()) + " 32M")
                .exit_code,
            0);
  ASSERT_NO_FATAL_FAILURE(t9_cmdline(p3, d.path, "console=tty1 root=PARTUUID=6c586e13-03 rootfstype=ext4 rootwait\n"));
  j = check(p3);
  EXPECT_EQ(j["layout"]["release"], "Alpine Linux v3.20") << j.dump(1);
  EXPECT_NE(j["layout"]["id"], "raspios") << j.dump(1);
  EXPECT_TRUE(t9_findings(j, "root-not-on-device").empty()) << j.dump(1);
  // root= back to partition 2: Raspberry Pi OS again (the rule before: the first ext partition).
  ASSERT_NO_FATAL_FAILURE(t9_cmdline(p3, d.path, "console=tty1 root=PARTUUID=6c586e13-02 rootfstype=ext4 rootwait\n"));
  j = check(p3);
  EXPECT_EQ(j["layout"]["id"], "raspios") << j.dump(1);
}
