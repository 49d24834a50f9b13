// Trial 9's nits still open in trial 10 (issue 29), on scripts/make-test-image.sh's raspios edited
// with mtools, debugfs, sfdisk and mkfs.ext4: a whole disk given as BOOT_DIR is read read-only as an
// image (a partition is sent to its disk); the release is named one way in the headline and in the
// evidence a refusal quotes; a single-block .xz gets the root partition's PARTUUID in its root= and
// fstab fixes; and `seed check --image` reads the root fs boot check IMAGE reads (the one root= names).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/testsupport.hpp"

namespace fs = std::filesystem;
using piprov::test::q;
using piprov::test::run;
using piprov::test::TempDir;

namespace {

// make-test-image.sh's raspios: disk identifier 6c586e13, partition 2 (the root fs) at sector 526336.
constexpr std::uint64_t kT10nRootOffset = 526336ull * 512;

/// The findings of a `--json` check report whose rule is `rule`.
std::vector<nlohmann::json> t10n_findings(const nlohmann::json& j, const std::string& rule) {
  std::vector<nlohmann::json> out;
  for (const auto& f : j["findings"])
    if (f["rule"] == rule) out.push_back(f);
  return out;
}

/// cmdline.txt of `img`'s boot partition (at 1 MiB) set to `line`.
void t10n_cmdline(const fs::path& img, const fs::path& work, const std::string& line) {
  piprov::test::write_file(work / "cmdline.txt", line);
  ASSERT_EQ(run("export MTOOLS_SKIP_CHECK=1; mcopy -o -i " + q(img.string() + "@@1M") + " " +
                q((work / "cmdline.txt").string()) + " ::cmdline.txt")
                .exit_code,
            0);
}

/// File `path` of the ext4 at byte `offset` of `img` set to `text` (debugfs).
void t10n_root_file(const fs::path& img, const fs::path& work, std::uint64_t offset, const std::string& path,
                    const std::string& text) {
  piprov::test::write_file(work / "t10n-file", text);
  const std::string at = q(img.string() + "?offset=" + std::to_string(offset));
  run("debugfs -w -R " + q("rm " + path) + " " + at);
  ASSERT_EQ(run("debugfs -w -R " + q("write " + (work / "t10n-file").string() + " " + path) + " " + at).exit_code, 0);
}

std::string t10n_sha(const fs::path& p) { return run("sha256sum < " + q(p.string())).out; }

}  // namespace

// A whole disk (a read-only loop device) where BOOT_DIR goes: checked as the raw image is, without
// mounting (the host may have no vfat) and without writing; a partition of it gets the command that
// checks its disk. The release is "Raspberry Pi OS (bookworm)" in the headline and in the evidence.
TEST(Trial10Nits, WholeDiskIsReadAsAnImageAndPartitionPointsAtIt) {
  PIPROV_REQUIRE_LOOP();
  PIPROV_REQUIRE_TOOL("mcopy");
  PIPROV_REQUIRE_TOOL("partx");
  TempDir d("piprov-t10n-disk");
  const fs::path img = d.path / "raspios.img";
  if (auto why = piprov::test::make_test_image(img, 64, "raspios"); !why.empty()) PIPROV_SKIP(why);
  ASSERT_NO_FATAL_FAILURE(t10n_cmdline(img, d.path, "console=tty1 root=/dev/mmcblk0p2 rootfstype=ext4 rootwait\n"));
  const std::string before = t10n_sha(img);
  const std::string bin = piprov::test::piprov_bin();
  piprov::test::LoopDevice disk(img, 0, true);
  run("partx -a " + disk.path);  // partition nodes where the kernel did not make them (BLKPG)

  auto r = run(bin + " boot check --json --board pi4 " + disk.path);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["image"]["path"], disk.path);
  EXPECT_EQ(j["image"]["format"], "raw");
  EXPECT_TRUE(j["image"]["root_read"].get<bool>());
  EXPECT_EQ(j["layout"]["id"], "raspios");
  EXPECT_EQ(j["layout"]["release"], "Raspberry Pi OS (bookworm)");
  // The SD card's partition on a disk that is not the card: the disk's own partition in the fix.
  const auto root = t10n_findings(j, "root-not-on-device");
  ASSERT_EQ(root.size(), 1u) << r.out;
  EXPECT_EQ(root[0]["fix"], "set root=PARTUUID=6c586e13-02 (the root partition, " + disk.path + "p2) in cmdline.txt");
  EXPECT_NE(root[0]["message"].get<std::string>().find("not of " + disk.path + " ("), std::string::npos) << r.out;
  // One name for the release: the evidence (what an unknown-layout refusal quotes) says it as the headline does.
  const std::string evidence = j["layout_evidence"].dump();
  EXPECT_NE(evidence.find("os-release: Raspberry Pi OS (bookworm) (ID=debian, with etc/rpi-issue)"), std::string::npos)
      << evidence;
  EXPECT_EQ(evidence.find("Debian GNU/Linux"), std::string::npos) << evidence;
  // The text report names the disk as read; nothing was written to it.
  auto text = run(bin + " boot check --board pi4 " + disk.path);
  EXPECT_EQ(text.exit_code, 1);
  EXPECT_NE(text.out.find("read from " + disk.path + " (raw): partition 1 and the root fs; read "), std::string::npos)
      << text.out;
  EXPECT_EQ(t10n_sha(img), before);

  // The image file gives the same findings, naming "IMAGE partition 2".
  auto file = nlohmann::json::parse(run(bin + " boot check --json --board pi4 " + q(img.string())).out);
  ASSERT_EQ(t10n_findings(file, "root-not-on-device").size(), 1u);
  EXPECT_EQ(t10n_findings(file, "root-not-on-device")[0]["fix"],
            "set root=PARTUUID=6c586e13-02 (the root partition, " + img.string() + " partition 2) in cmdline.txt");

  // A partition: the command that checks its whole disk (which works without vfat).
  ASSERT_TRUE(fs::exists(disk.path + "p1")) << "partx -a made no " << disk.path << "p1";
  auto part = run(bin + " boot check " + disk.path + "p1");
  EXPECT_EQ(part.exit_code, 2) << part.out << part.err;
  EXPECT_EQ(part.err, "piprov: error: " + disk.path +
                          "p1 is a partition, not a directory: check the whole disk it is on, which piprov reads "
                          "without mounting or writing it: piprov boot check " +
                          disk.path + "\n");
  // --device with the disk read as itself is refused as for an image.
  auto dev = run(bin + " boot check " + disk.path + " --device /dev/null");
  EXPECT_EQ(dev.exit_code, 2) << dev.err;
  EXPECT_NE(dev.err.find("is a whole disk, read as an image"), std::string::npos) << dev.err;
  EXPECT_EQ(t10n_sha(img), before);
}

// A single-block .xz (read in sequence: LABELs and UUIDs are not read) whose root= and fstab `/` name no
// partition: the fixes give the root partition's PARTUUID, as for the raw image (were generic).
TEST(Trial10Nits, SequentialImageFixesNameTheRootPartition) {
  PIPROV_REQUIRE_LOOP();
  PIPROV_REQUIRE_TOOL("mcopy");
  PIPROV_REQUIRE_TOOL("debugfs");
  PIPROV_REQUIRE_TOOL("xz");
  TempDir d("piprov-t10n-xz");
  const fs::path img = d.path / "ext6.img";
  if (auto why = piprov::test::make_test_image(img, 64, "raspios"); !why.empty()) PIPROV_SKIP(why);
  ASSERT_NO_FATAL_FAILURE(
      t10n_cmdline(img, d.path, "console=tty1 root=PARTUUID=6c586e13-06 rootfstype=ext4 rootwait\n"));
  ASSERT_NO_FATAL_FAILURE(t10n_root_file(
      img, d.path, kT10nRootOffset, "/etc/fstab",
      "PARTUUID=6c586e13-01 /boot/firmware vfat defaults 0 2\nPARTUUID=6c586e13-06 / ext4 defaults,noatime 0 1\n"));
  // One block (xz -T1; make-test-image.sh leaves its own multi-block IMG.xz beside IMG).
  const std::string xz = (d.path / "ext6-one-block.img.xz").string();
  ASSERT_EQ(run("xz -T1 -0 -c " + q(img.string()) + " > " + q(xz)).exit_code, 0);
  auto r = run(piprov::test::piprov_bin() + " boot check --json --board pi4 " + q(xz));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_FALSE(j["image"]["random_access"].get<bool>());
  const auto root = t10n_findings(j, "root-not-on-device");
  ASSERT_EQ(root.size(), 1u) << r.out;
  EXPECT_EQ(root[0]["fix"],
            "set root=PARTUUID=6c586e13-02 (the root partition, " + xz + " partition 2) in cmdline.txt");
  const auto fstab = t10n_findings(j, "fstab-not-on-device");
  ASSERT_EQ(fstab.size(), 1u) << r.out;
  EXPECT_EQ(fstab[0]["line"], 2);
  EXPECT_EQ(fstab[0]["fix"], "set the first field of /etc/fstab line 2 to PARTUUID=6c586e13-02 (the root partition, " +
                                 xz + " partition 2)");
}

// seed check --image reads the root fs boot check IMAGE reads: the partition root= names. p3 holds
// cloud-init (another OS), p2 (Raspberry Pi OS) none: root= decides which verdict the seed gets.
TEST(Trial10Nits, SeedCheckImageReadsTheRootFsRootNames) {
  PIPROV_REQUIRE_LOOP();
  PIPROV_REQUIRE_TOOL("mcopy");
  PIPROV_REQUIRE_TOOL("sfdisk");
  PIPROV_REQUIRE_TOOL("mkfs.ext4");
  TempDir d("piprov-t10n-p3");
  const fs::path img = d.path / "p3.img";
  if (auto why = piprov::test::make_test_image(img, 64, "raspios"); !why.empty()) PIPROV_SKIP(why);
  ASSERT_EQ(run("truncate -s +40M " + q(img.string())).exit_code, 0);
  ASSERT_EQ(run("echo ',32M,83' | sfdisk -q -a " + q(img.string())).exit_code, 0);
  const std::string start = run("sfdisk -d " + q(img.string()) + " | awk -F'[=,]' '/p3.img3/{print $2}'").out;
  ASSERT_FALSE(start.empty());
  const fs::path p3 = d.path / "p3root";
  piprov::test::write_file(p3 / "etc/os-release",
                           "NAME=\"Alpine Linux\"\nID=alpine\nVERSION_ID=3.20.0\nPRETTY_NAME=\"Alpine Linux v3.20\"\n");
  piprov::test::write_file(p3 / "etc/cloud/cloud.cfg", "datasource_list: [NoCloud]\n");
  piprov::test::write_file(p3 / "usr/bin/cloud-init", "#!/bin/sh\n");
  piprov::test::write_file(p3 / "var/lib/dpkg/status",
                           "Package: cloud-init\nStatus: install ok installed\nVersion: 24.1.3-0ubuntu3\n\n");
  ASSERT_EQ(run("mkfs.ext4 -q -F -E offset=" + std::to_string(std::stoull(start) * 512) + " -d " + q(p3.string()) +
                " " + q(img.string()) + " 32M")
                .exit_code,
            0);
  piprov::test::write_file(d.path / "user-data", "#cloud-config\nhostname: node1\n");
  const std::string bin = piprov::test::piprov_bin();
  auto seed = [&] {
    return run(bin + " seed check --image " + q(img.string()) + " --user-data " + q((d.path / "user-data").string()));
  };

  ASSERT_NO_FATAL_FAILURE(
      t10n_cmdline(img, d.path, "console=tty1 root=PARTUUID=6c586e13-03 rootfstype=ext4 rootwait\n"));
  auto boot = nlohmann::json::parse(run(bin + " boot check --json --board pi4 " + q(img.string())).out);
  EXPECT_EQ(boot["layout"]["release"], "Alpine Linux v3.20");
  auto s = seed();
  EXPECT_NE(s.exit_code, 2) << s.out << s.err;
  EXPECT_EQ(s.err.find("no cloud-init"), std::string::npos) << s.err;
  EXPECT_NE((s.out + s.err).find("cloud-init 24.1"), std::string::npos) << s.out << s.err;

  // root= on partition 2 (Raspberry Pi OS, no cloud-init): refused, as provision refuses it.
  ASSERT_NO_FATAL_FAILURE(
      t10n_cmdline(img, d.path, "console=tty1 root=PARTUUID=6c586e13-02 rootfstype=ext4 rootwait\n"));
  s = seed();
  EXPECT_EQ(s.exit_code, 2) << s.out << s.err;
  EXPECT_NE(s.err.find("the image's root fs has no cloud-init"), std::string::npos) << s.err;
}

// An image whose boot partition has no config.txt: the error names that partition of IMAGE, never
// the private directory piprov read it into.
TEST(Trial10Nits, ImageWithoutConfigTxtNamesItsPartitionNotATempDir) {
  PIPROV_REQUIRE_TOOL("mdel");
  TempDir d("piprov-t10n-noconfig");
  const fs::path img = d.path / "noconfig.img";
  if (auto why = piprov::test::make_test_image(img, 64, "raspios"); !why.empty()) PIPROV_SKIP(why);
  ASSERT_EQ(run("export MTOOLS_SKIP_CHECK=1; mdel -i " + q(img.string() + "@@1M") + " ::config.txt").exit_code, 0);
  auto r = run(piprov::test::piprov_bin() + " boot check --board pi4 " + q(img.string()));
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(r.err,
            "piprov: error: " + img.string() + " partition 1 has no config.txt: not a Raspberry Pi boot partition\n");
}
