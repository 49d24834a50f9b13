// `piprov clone SOURCE TARGET` (issue 28) on real loop devices: a 64 MiB MBR
// disk (disk identifier 0x12345678; a FAT boot partition whose cmdline.txt
// and an ext4 root whose /etc/fstab name it by PARTUUID=) cloned onto a
// larger disk holding old data: e2fsck -fn and fsck.vfat -n pass, every file
// is the same but the PARTUUID= lines, which name the TARGET's new disk
// identifier, and the root ext4 fills the TARGET; a mounted SOURCE is copied
// file by file. Bad input, each refused with nothing written: SOURCE ==
// TARGET, a TARGET too small, a file system marked with errors; an unknown
// file system is copied in full; Ctrl-C leaves no partition table.
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "clone_fixture.hpp"
#include "logical_disk_fixture.hpp"
#include "skip_fixture.hpp"
#include "support/testsupport.hpp"

namespace piprov::test {
namespace {

TEST(Clone, OntoALargerDiskCopiesUsedBlocksGrowsTheRootAndRenewsTheDiskIdentifier) {
  PIPROV_REQUIRE_LOOP();
  PIPROV_REQUIRE_TOOL("e2fsck");
  PIPROV_REQUIRE_TOOL("fsck.vfat");
  PIPROV_REQUIRE_TOOL("resize2fs");
  TempDir tmp("piprov-clone");
  const auto img = make_clone_image(tmp.path);
  const std::string before = run("sha256sum < " + q(img.string())).out;
  LoopDevice src(img, 0);
  auto dst = clone_target_loop(tmp.path / "dst", 128ull << 20);
  auto r = clone_run("--yes --json " + src.path + " " + dst->path);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["schema"], "piprov.clone/1") << j.dump();
  EXPECT_EQ(j["copy_bytes"].get<std::uint64_t>(), kCloneSrcBytes);
  // The ext4's free space (~25 of its 47 MiB) was neither read nor written.
  EXPECT_GE(j["skipped_bytes"].get<std::uint64_t>(), 16ull << 20) << j.dump();
  EXPECT_LE(j["read_bytes"].get<std::uint64_t>(), kCloneSrcBytes - (12ull << 20)) << j.dump();
  ASSERT_EQ(j["targets"].size(), 1u);
  const auto& t = j["targets"][0];
  EXPECT_TRUE(t["ok"].get<bool>()) << t.dump();
  EXPECT_TRUE(t["verified"].get<bool>()) << t.dump();
  EXPECT_NE(t["grown"].get<std::string>().find("partition 2 grown from 47.0 MiB to 111.0 MiB"), std::string::npos)
      << t.dump();
  EXPECT_EQ(t["disk_identity"]["old_id"], "0x12345678") << t.dump();
  const std::string new_id = t["disk_identity"]["new_id"].get<std::string>();
  ASSERT_EQ(new_id.size(), 10u) << new_id;
  ASSERT_NE(new_id, "0x12345678");
  const std::string id = new_id.substr(2);
  EXPECT_EQ(t["partuuid_references"].get<int>(), 3) << t.dump();
  EXPECT_EQ(run("sha256sum < " + q(img.string())).out, before) << "SOURCE changed";

  // The TARGET: its table names the new identifier, both file systems are clean and hold SOURCE's files.
  wait_for_partitions(dst->path, 2);
  EXPECT_EQ(run("blkid -p -o value -s PTUUID " + dst->path).out, id + "\n");
  auto e = run("e2fsck -fn " + dst->path + "p2");
  EXPECT_EQ(e.exit_code, 0) << e.out << e.err;
  auto f = run("fsck.vfat -n " + dst->path + "p1");
  EXPECT_EQ(f.exit_code, 0) << f.out << f.err;
  // The root ext4 fills the grown partition: 128 MiB - 17 MiB.
  auto blocks = run("dumpe2fs -h " + dst->path + "p2 2>/dev/null | sed -n 's/^Block count: *//p'");
  ASSERT_FALSE(blocks.out.empty());
  EXPECT_EQ(std::stoull(blocks.out) * 4096, (128ull - 17) << 20);
  wait_for_partitions(src.path, 2);
  std::map<std::string, std::string> a, b;
  {
    Mount ms(src.path + "p2", tmp.path / "srcroot", "", "ro");
    Mount md(dst->path + "p2", tmp.path / "dstroot", "", "ro");
    a = read_tree(ms.dir);
    b = read_tree(md.dir);
    auto df = run("df -B1 --output=size " + q(md.dir.string()) + " | tail -1");
    EXPECT_GT(std::stoull(df.out), 100ull << 20) << df.out;
  }
  ASSERT_EQ(a.size(), b.size());
  for (const auto& [path, content] : a) {
    if (path == "etc/fstab") continue;
    EXPECT_TRUE(b[path] == content) << path << " differs";
  }
  EXPECT_EQ(b["etc/fstab"], "PARTUUID=" + id + "-01  /boot/firmware  vfat  defaults  0  2\nPARTUUID=" + id +
                                "-02  /  ext4  defaults,noatime  0  1\n");
  ASSERT_NO_FATAL_FAILURE(copy_fat_out(src.path + "p1", tmp.path / "srcboot"));
  ASSERT_NO_FATAL_FAILURE(copy_fat_out(dst->path + "p1", tmp.path / "dstboot"));
  auto fa = read_tree(tmp.path / "srcboot"), fb = read_tree(tmp.path / "dstboot");
  EXPECT_TRUE(fa["kernel8.img"] == fb["kernel8.img"]);
  EXPECT_EQ(fb["cmdline.txt"], "console=serial0,115200 root=PARTUUID=" + id + "-02 rootfstype=ext4 rootwait\n");
}

// --board: the TARGET's boot check judges what that Pi's firmware loads (trial 8: a Pi 5 disk was
// checked as a Pi 4, "kernel kernel8.img"); without it the check line names the board assumed.
// Findings name the TARGET's partitions, not clone's temporary mount points.
TEST(Clone, BoardOptionDecidesTheBootCheckAndTheLineNamesIt) {
  PIPROV_REQUIRE_LOOP();
  PIPROV_REQUIRE_TOOL("mcopy");
  TempDir tmp("piprov-clone-board");
  const auto img = make_clone_image(tmp.path);
  write_file(tmp.path / "config.txt", "arm_64bit=1\n");
  sh("MTOOLS_SKIP_CHECK=1 mcopy -i " + q(img.string() + "@@1M") + " " + q((tmp.path / "config.txt").string()) +
     " ::config.txt");
  auto dst = clone_target_loop(tmp.path / "dst", 96ull << 20);
  auto pi5 = clone_run("--yes --json --board pi5 " + q(img.string()) + " " + dst->path);
  EXPECT_EQ(pi5.exit_code, 1) << pi5.out << pi5.err;  // a random kernel8.img and no device tree: errors
  const auto j = nlohmann::json::parse(pi5.out);
  const auto& c = j["targets"][0]["boot_check"];
  EXPECT_EQ(c["board"], "pi5") << c.dump();
  EXPECT_EQ(c["board_given"], true);
  EXPECT_EQ(c["summary"].get<std::string>().rfind("boot check (Raspberry Pi 5): ", 0), 0u) << c.dump();
  std::set<std::string> messages;
  for (const auto& f : c["findings"])
    messages.insert(f["rule"].get<std::string>() + ": " + f["message"].get<std::string>());
  EXPECT_TRUE(messages.count("kernel-fallback: no kernel_2712.img in the boot partition (" + dst->path +
                             "p1): the Pi 5 firmware falls back to kernel8.img, the generic arm64 kernel without the "
                             "BCM2712 optimisations (16K pages)"))
      << c.dump();
  EXPECT_TRUE(
      messages.count("dtb-missing: the Pi 5 device tree bcm2712-rpi-5-b.dtb does not exist in the boot "
                     "partition (" +
                     dst->path + "p1): the firmware has no device tree to pass to the kernel"))
      << c.dump();
  EXPECT_EQ(c.dump().find("piprov-clone-"), std::string::npos) << c.dump();  // no temporary mount point

  auto dflt = clone_run("--yes " + q(img.string()) + " " + dst->path);
  EXPECT_EQ(dflt.exit_code, 1) << dflt.out << dflt.err;
  EXPECT_TRUE(std::regex_search(
      dflt.out, std::regex("\n" + dst->path + R"(: boot check \(Raspberry Pi [^,)]+, assumed: no --board\): )")))
      << dflt.out;
  auto bad = clone_run("--yes --board pi3 " + q(img.string()) + " " + dst->path);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--board pi3: not a board; use one of pi4|pi400|cm4|pi5|pi500|cm5"), std::string::npos)
      << bad.err;
}

// The TARGET's boot check judges root= against the TARGET as probed after its new disk identifier (as
// provision's check step does): a PARTUUID of no partition, or the SD card's kernel name on a USB/loop
// disk, is root-not-on-device.
TEST(Clone, RootThatNamesNoPartitionOfTheTargetIsAnError) {
  PIPROV_REQUIRE_LOOP();
  PIPROV_REQUIRE_TOOL("mcopy");
  TempDir tmp("piprov-clone-root");
  const auto img = make_clone_image(tmp.path);
  write_file(tmp.path / "config.txt", "arm_64bit=1\n");
  auto dst = clone_target_loop(tmp.path / "dst", 96ull << 20);
  for (const std::string root : {"PARTUUID=deadbeef-02", "/dev/mmcblk0p2"}) {
    write_file(tmp.path / "cmdline.txt", "console=tty1 root=" + root + " rootwait\n");
    sh("MTOOLS_SKIP_CHECK=1 mcopy -o -i " + q(img.string() + "@@1M") + " " + q((tmp.path / "config.txt").string()) +
       " " + q((tmp.path / "cmdline.txt").string()) + " ::");
    auto r = clone_run("--yes --json " + q(img.string()) + " " + dst->path);
    EXPECT_EQ(r.exit_code, 1) << root << "\n" << r.out << r.err;
    const auto j = nlohmann::json::parse(r.out);
    std::vector<std::string> rules;
    for (const auto& f : j["targets"][0]["boot_check"]["findings"])
      if (f["rule"] == "root-not-on-device") rules.push_back(f["message"].get<std::string>());
    ASSERT_EQ(rules.size(), 1u) << root << "\n" << j.dump(1);
    EXPECT_NE(rules[0].find("root=" + root), std::string::npos) << rules[0];
    EXPECT_NE(rules[0].find(dst->path), std::string::npos) << rules[0];
  }
}

// --new-identity: each TARGET its own node (a fleet from a golden node):
// provision's cloud-init seed with its host name on the boot partition, an
// empty /etc/machine-id; identity options without --new-identity are refused.
TEST(Clone, NewIdentityGivesEachTargetItsOwnSeedAndMachineId) {
  PIPROV_REQUIRE_LOOP();
  TempDir tmp("piprov-clone");
  const auto img = make_clone_image(tmp.path);
  LoopDevice src(img, 0);
  auto d1 = clone_target_loop(tmp.path / "d1", 64ull << 20);
  auto d2 = clone_target_loop(tmp.path / "d2", 64ull << 20);
  auto refused = clone_run("--yes --hostname node2 " + src.path + " " + d1->path);
  EXPECT_EQ(refused.exit_code, 2) << refused.out << refused.err;
  EXPECT_NE(refused.err.find("add --new-identity"), std::string::npos) << refused.err;
  auto r =
      clone_run("--yes --json --new-identity --hostname 'node{2..3}' " + src.path + " " + d1->path + " " + d2->path);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  int n = 2;
  std::set<std::string> instance_ids;
  for (const auto* dev : {d1.get(), d2.get()}) {
    const auto& t = j["targets"][n - 2];
    EXPECT_EQ(t["hostname"], "node" + std::to_string(n)) << t.dump();
    EXPECT_EQ(t["seed_files"], nlohmann::json({"user-data", "network-config", "meta-data"})) << t.dump();
    instance_ids.insert(t["instance_id"].get<std::string>());
    wait_for_partitions(dev->path, 2);
    const auto boot = tmp.path / ("boot" + std::to_string(n));
    ASSERT_NO_FATAL_FAILURE(copy_fat_out(dev->path + "p1", boot));
    const std::string meta = read_file(boot / "meta-data");
    EXPECT_NE(meta.find("local-hostname: \"node" + std::to_string(n) + "\""), std::string::npos) << meta;
    EXPECT_NE(meta.find(t["instance_id"].get<std::string>()), std::string::npos) << meta;
    {
      Mount m(dev->path + "p2", tmp.path / ("root" + std::to_string(n)), "", "ro");
      EXPECT_EQ(read_file(m.dir / "etc/machine-id"), "");
    }
    ++n;
  }
  EXPECT_EQ(instance_ids.size(), 2u);
  wait_for_partitions(src.path, 2);
  Mount m(src.path + "p2", tmp.path / "srcroot", "", "ro");
  EXPECT_EQ(read_file(m.dir / "etc/machine-id"), "0123456789abcdef0123456789abcdef\n") << "SOURCE changed";
}

TEST(Clone, SourceAsTargetIsRefused) {
  PIPROV_REQUIRE_LOOP();
  TempDir tmp("piprov-clone");
  const auto img = make_clone_image(tmp.path);
  const std::string before = run("sha256sum < " + q(img.string())).out;
  LoopDevice src(img, 0);
  auto r = clone_run("--yes " + src.path + " " + src.path);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("cannot be cloned onto itself"), std::string::npos) << r.err;
  // The same file behind a second loop device, and the image file itself.
  LoopDevice again(img, 0);
  r = clone_run("--yes " + src.path + " " + again.path);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("cannot be cloned onto itself"), std::string::npos) << r.err;
  r = clone_run("--yes " + q(img.string()) + " " + src.path);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("cannot be cloned onto itself"), std::string::npos) << r.err;
  EXPECT_EQ(run("sha256sum < " + q(img.string())).out, before);
}

TEST(Clone, TooSmallTargetIsRefusedSayingByHowMuch) {
  PIPROV_REQUIRE_LOOP();
  TempDir tmp("piprov-clone");
  const auto img = make_clone_image(tmp.path);
  LoopDevice src(img, 0);
  auto dst = clone_target_loop(tmp.path / "dst", 48ull << 20);
  const std::string before = run("sha256sum < " + dst->path).out;
  auto r = clone_run("--yes --json " + src.path + " " + dst->path);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("is too small for " + src.path), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("it is 16777216 bytes (16.0 MiB) short"), std::string::npos) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["error"]["exit_code"], 2) << j.dump();
  EXPECT_EQ(run("sha256sum < " + dst->path).out, before) << "TARGET changed";
}

TEST(Clone, WithoutYesAndNoTerminalNothingIsWritten) {
  PIPROV_REQUIRE_LOOP();
  TempDir tmp("piprov-clone");
  const auto img = make_clone_image(tmp.path);
  LoopDevice src(img, 0);
  auto dst = clone_target_loop(tmp.path / "dst", 64ull << 20);
  const std::string before = run("sha256sum < " + dst->path).out;
  auto r = clone_run(src.path + " " + dst->path + " < /dev/null");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("pass --yes"), std::string::npos) << r.err;
  EXPECT_EQ(run("sha256sum < " + dst->path).out, before) << "TARGET changed";
}

TEST(Clone, FileSystemMarkedWithErrorsIsRefusedUnlessForce) {
  PIPROV_REQUIRE_LOOP();
  PIPROV_REQUIRE_TOOL("tune2fs");
  TempDir tmp("piprov-clone");
  const auto img = make_clone_image(tmp.path);
  LoopDevice src(img, 0);
  wait_for_partitions(src.path, 2);
  auto tu = run("tune2fs -E force_fsck " + src.path + "p2");  // sets EXT2_ERROR_FS in s_state
  ASSERT_EQ(tu.exit_code, 0) << tu.out << tu.err;
  auto dst = clone_target_loop(tmp.path / "dst", 64ull << 20);
  const std::string before = run("sha256sum < " + dst->path).out;
  auto r = clone_run("--yes " + src.path + " " + dst->path);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("partition 2 of " + src.path), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("it is marked as having errors"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--force to copy it as it is"), std::string::npos) << r.err;
  EXPECT_EQ(run("sha256sum < " + dst->path).out, before) << "TARGET changed";
  r = clone_run("--yes --force --json " + src.path + " " + dst->path);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_NE(j["partitions"][1]["full_reason"].get<std::string>().find("marked as having errors"), std::string::npos);
  EXPECT_EQ(j["partitions"][1]["skipped_bytes"], 0u);
  // Same size: nothing to grow.
  EXPECT_EQ(j["targets"][0]["grown"], "partition 2 not grown: " + dst->path + " has no room after it") << j.dump();
}

TEST(Clone, UnknownFileSystemIsCopiedInFullAndSaysSo) {
  PIPROV_REQUIRE_LOOP();
  TempDir tmp("piprov-clone");
  const auto img = make_clone_image(tmp.path, "da");
  LoopDevice src(img, 0);
  auto dst = clone_target_loop(tmp.path / "dst", 80ull << 20);
  auto r = clone_run("--yes " + src.path + " " + dst->path);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("partition 2: type 0xda is not a file system piprov reads: copied in full"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("partition 2 not grown: it holds no file system piprov reads"), std::string::npos) << r.out;
  // Partition 2 byte for byte (the first MiB holds the new disk identifier).
  const std::uint64_t p2 = 34816ull * 512;
  EXPECT_EQ(run("cmp -n " + std::to_string(kCloneSrcBytes - p2) + " -i " + std::to_string(p2) + " " + q(img.string()) +
                " " + dst->path)
                .exit_code,
            0);
}

// A GPT SOURCE (80 MiB, its partitions ending at 63 MiB) onto two TARGETs
// from one read: one smaller than SOURCE (64 MiB), one larger (100 MiB).
// Each TARGET's GPT header is fitted to its size (sfdisk --verify is clean;
// libfdisk refuses a header whose last usable LBA lies past the disk's end)
// and has its own disk GUID; the larger one's root is grown.
TEST(Clone, GptSourceOntoASmallerAndALargerDisk) {
  PIPROV_REQUIRE_LOOP();
  PIPROV_REQUIRE_TOOL("e2fsck");
  TempDir tmp("piprov-clone");
  const std::string t = q(tmp.path.string());
  sh("cd " + t + " && mkdir files && head -c 9M /dev/urandom > files/a && truncate -s 80M src.img" +
     " && printf 'label: gpt\\nstart=2048, size=32768, type=C12A7328-F81F-11D2-BA4B-00A0C93EC93B\\n" +
     "start=34816, size=94208, type=0FC63DAF-8483-4772-8E79-3D69D8477DE4\\n' | sfdisk -q src.img" +
     " && mkfs.vfat -C fat.img 16384 >/dev/null && mke2fs -q -F -t ext4 -b 4096 -d files ext.img 11776" +
     " && dd if=fat.img of=src.img bs=512 seek=2048 conv=notrunc status=none" +
     " && dd if=ext.img of=src.img bs=512 seek=34816 conv=notrunc status=none");
  LoopDevice src(tmp.path / "src.img", 0);
  auto small = clone_target_loop(tmp.path / "small", 64ull << 20);
  auto large = clone_target_loop(tmp.path / "large", 100ull << 20);
  auto r = clone_run("--yes --json " + src.path + " " + small->path + " " + large->path);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["table"], "gpt");
  EXPECT_EQ(j["copy_bytes"].get<std::uint64_t>(), 63ull << 20);
  ASSERT_EQ(j["targets"].size(), 2u);
  EXPECT_EQ(j["targets"][0]["grown"], "partition 2 not grown: " + small->path + " has no room after it") << j.dump();
  EXPECT_NE(j["targets"][1]["grown"].get<std::string>().find("partition 2 grown from 46.0 MiB to "), std::string::npos)
      << j.dump();
  std::set<std::string> guids{run("blkid -p -o value -s PTUUID " + src.path).out};
  for (const auto* dev : {small.get(), large.get()}) {
    auto v = run("sfdisk --verify " + dev->path);
    EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
    EXPECT_NE(v.out.find("No errors detected"), std::string::npos) << v.out << v.err;
    guids.insert(run("blkid -p -o value -s PTUUID " + dev->path).out);
    wait_for_partitions(dev->path, 2);
    auto e = run("e2fsck -fn " + dev->path + "p2");
    EXPECT_EQ(e.exit_code, 0) << e.out << e.err;
    auto blocks = run("dumpe2fs -h " + dev->path + "p2 2>/dev/null | sed -n 's/^Block count: *//p'");
    auto sectors = run("blockdev --getsz " + dev->path + "p2");
    ASSERT_FALSE(blocks.out.empty());
    ASSERT_FALSE(sectors.out.empty());
    EXPECT_EQ(std::stoull(blocks.out) * 4096 / 1048576, std::stoull(sectors.out) * 512 / 1048576) << dev->path;
  }
  EXPECT_EQ(guids.size(), 3u) << "the disks' GUIDs are not all different";
}

/// "Filesystem features:" of dumpe2fs -h, without needs_recovery (a mounted ext4's journal).
// The last file system is logical partition 6, not the extended partition 2 that holds it: on a larger
// TARGET the extended partition grows to the disk's end, partition 6 to the extended partition's end,
// and its ext4 with it; partitions 1 and 5 are where they were.
TEST(Clone, GrowsTheLastLogicalPartitionWithItsExtendedPartition) {
  PIPROV_REQUIRE_LOOP();
  PIPROV_REQUIRE_TOOL("e2fsck");
  PIPROV_REQUIRE_TOOL("resize2fs");
  PIPROV_REQUIRE_TOOL("sfdisk");
  PIPROV_REQUIRE_TOOL("mkfs.vfat");
  TempDir tmp("piprov-clone");
  const auto disk = make_logical_disk(tmp, "mke2fs -q -b 4096 -t ext4 -L writable -d files p6");
  LoopDevice src(disk, 0);
  auto dst = clone_target_loop(tmp.path / "dst", 300ull << 20);
  auto r = clone_run("--yes --json " + src.path + " " + dst->path);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["copy_bytes"].get<std::uint64_t>(), 200ull << 20) << j.dump();
  ASSERT_EQ(j["targets"].size(), 1u);
  const auto& t = j["targets"][0];
  EXPECT_TRUE(t["ok"].get<bool>()) << t.dump();
  EXPECT_EQ(t["grown"],
            "partition 6 (logical, with its extended partition 2) grown from 165.0 MiB to 265.0 MiB, its ext4 "
            "resized to fill it (resize2fs)")
      << t.dump();
  // The table: valid; 1 and 5 as they were; 2 and 6 keep their starts and end at the TARGET's end.
  auto v = run("sfdisk -V " + dst->path);
  EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
  auto e = sfdisk_entries(dst->path);
  ASSERT_EQ(e.size(), 4u) << run("sfdisk -d " + dst->path).out;
  EXPECT_EQ(e[1], (std::pair<std::uint64_t, std::uint64_t>{2048, 32768}));
  EXPECT_EQ(e[5], (std::pair<std::uint64_t, std::uint64_t>{36864, 32768}));
  EXPECT_EQ(e[2], (std::pair<std::uint64_t, std::uint64_t>{34816, (300ull << 11) - 34816}));
  EXPECT_EQ(e[6], (std::pair<std::uint64_t, std::uint64_t>{71680, (300ull << 11) - 71680}));
  // Partition 6: clean, its ext4 the partition's size, holding the files; partition 5 clean.
  wait_for_partitions(dst->path, 6);
  auto f = run("e2fsck -fn " + dst->path + "p6");
  EXPECT_EQ(f.exit_code, 0) << f.out << f.err;
  f = run("e2fsck -fn " + dst->path + "p5");
  EXPECT_EQ(f.exit_code, 0) << f.out << f.err;
  auto d = run("dumpe2fs -h " + dst->path + "p6 2>/dev/null | sed -n 's/^Block count: *//p'");
  ASSERT_FALSE(d.out.empty());
  EXPECT_EQ(std::stoull(d.out) * 4096, (300ull - 35) << 20);
  Mount mnt(dst->path + "p6", tmp.path / "mnt", "", "ro");
  EXPECT_EQ(run("sha256sum < " + q((mnt.dir / "a").string())).out,
            run("sha256sum < " + q((tmp.path / "files/a").string())).out);
  // The summary (no --json) says the same of another TARGET, 36 MiB larger than SOURCE.
  auto dst2 = clone_target_loop(tmp.path / "dst2", 236ull << 20);
  r = clone_run("--yes " + src.path + " " + dst2->path);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE((r.out + r.err)
                .find("; partition 6 (logical, with its extended partition 2) grown from 165.0 MiB to "
                      "201.0 MiB, its ext4 resized to fill it (resize2fs)"),
            std::string::npos)
      << r.out << r.err;
}

// The EBR before logical partition 6 wiped: the chain breaks after 5, so a partition after it may be missing
// and which one is last is not known. Everything up to the extended partition's end is copied, nothing grown
// (growing 5 would lay it over 6), and the line says why.
TEST(Clone, BrokenEbrChainIsCopiedAndNothingGrown) {
  PIPROV_REQUIRE_LOOP();
  PIPROV_REQUIRE_TOOL("sfdisk");
  PIPROV_REQUIRE_TOOL("mkfs.vfat");
  TempDir tmp("piprov-clone");
  const auto disk = make_logical_disk(tmp, "mke2fs -q -b 4096 -t ext4 -L writable -d files p6");
  sh("dd if=/dev/zero of=" + q(disk.string()) + " bs=512 seek=" + std::to_string(34 * 2048) +
     " count=1 conv=notrunc status=none");
  LoopDevice src(disk, 0);
  auto dst = clone_target_loop(tmp.path / "dst", 300ull << 20);
  auto r = clone_run("--yes --json " + src.path + " " + dst->path);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["copy_bytes"].get<std::uint64_t>(), 200ull << 20) << j.dump();
  ASSERT_EQ(j["targets"].size(), 1u);
  const auto& t = j["targets"][0];
  EXPECT_TRUE(t["ok"].get<bool>()) << t.dump();
  EXPECT_EQ(t["grown"],
            "nothing grown: the last partition is not known (extended partition 2 has no EBR (55 AA) at byte "
            "35651584)")
      << t.dump();
  // The first EBR and everything after partition 5 (the wiped EBR, partition 6) as SOURCE's (5 is the root the
  // kernel lists, mounted for the PARTUUID rewrite); the MBR's entries kept their sizes.
  EXPECT_EQ(run("cmp -i 17M -n 1M " + src.path + " " + dst->path).exit_code, 0);
  EXPECT_EQ(run("cmp -i 34M -n 166M " + src.path + " " + dst->path).exit_code, 0);
  auto e = sfdisk_entries(dst->path);
  EXPECT_EQ(e[1], (std::pair<std::uint64_t, std::uint64_t>{2048, 32768})) << run("sfdisk -d " + dst->path).out;
  EXPECT_EQ(e[2], (std::pair<std::uint64_t, std::uint64_t>{34816, 374784})) << run("sfdisk -d " + dst->path).out;
}

std::string ext_features(const std::string& dev) {
  auto r = run("dumpe2fs -h " + dev +
               " 2>/dev/null | sed -n 's/^Filesystem features: *//p' | tr ' ' '\\n' | "
               "grep -v '^needs_recovery$' | sort | tr '\\n' ' '");
  return r.out;
}

// A live SOURCE: its root file system mounted (and written to) while it is
// cloned: made anew on the TARGET with the same label, UUID and features and
// filled with rsync; the boot partition, not mounted, copied block for block.
TEST(Clone, MountedSourceIsCopiedFileByFile) {
  PIPROV_REQUIRE_LOOP();
  PIPROV_REQUIRE_TOOL("rsync");
  PIPROV_REQUIRE_TOOL("e2fsck");
  PIPROV_REQUIRE_TOOL("fsck.vfat");
  TempDir tmp("piprov-clone");
  const auto img = make_clone_image(tmp.path);
  LoopDevice src(img, 0);
  wait_for_partitions(src.path, 2);
  auto dst = clone_target_loop(tmp.path / "dst", 128ull << 20);
  nlohmann::json j;
  std::map<std::string, std::string> a;
  {
    Mount live(src.path + "p2", tmp.path / "live");
    write_file(live.dir / "marker", "written while mounted\n");
    auto r = clone_run("--yes --json " + src.path + " " + dst->path);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    j = nlohmann::json::parse(r.out);
    a = read_tree(live.dir);
  }
  EXPECT_TRUE(j["live"].get<bool>()) << j.dump();
  const auto& t = j["targets"][0];
  ASSERT_TRUE(t["ok"].get<bool>()) << t.dump();
  ASSERT_EQ(t["copied"].size(), 2u) << t.dump();
  EXPECT_EQ(t["copied"][0], "partition 1 (vfat): not mounted: copied block for block (16.0 MiB)") << t.dump();
  EXPECT_EQ(t["copied"][1], "partition 2 (ext4 on " + (tmp.path / "live").string() +
                                "): made anew with its label, UUID and features; files copied with rsync -aHAXx")
      << t.dump();
  EXPECT_EQ(t["grown"], "partition 2 grown from 47.0 MiB to 111.0 MiB, its ext4 made to fill it") << t.dump();
  const std::string id = t["disk_identity"]["new_id"].get<std::string>().substr(2);
  ASSERT_NE(id, "12345678");
  EXPECT_EQ(t["partuuid_references"].get<int>(), 3) << t.dump();

  wait_for_partitions(dst->path, 2);
  EXPECT_EQ(run("blkid -p -o value -s PTUUID " + dst->path).out, id + "\n");
  for (const char* tag : {"UUID", "LABEL"})
    EXPECT_EQ(run(std::string("blkid -p -o value -s ") + tag + " " + dst->path + "p2").out,
              run(std::string("blkid -p -o value -s ") + tag + " " + src.path + "p2").out)
        << tag;
  EXPECT_EQ(ext_features(dst->path + "p2"), ext_features(src.path + "p2"));
  auto e = run("e2fsck -fn " + dst->path + "p2");
  EXPECT_EQ(e.exit_code, 0) << e.out << e.err;
  auto f = run("fsck.vfat -n " + dst->path + "p1");
  EXPECT_EQ(f.exit_code, 0) << f.out << f.err;
  auto blocks = run("dumpe2fs -h " + dst->path + "p2 2>/dev/null | sed -n 's/^Block count: *//p'");
  ASSERT_FALSE(blocks.out.empty());
  EXPECT_EQ(std::stoull(blocks.out) * 4096, (128ull - 17) << 20);
  std::map<std::string, std::string> b;
  {
    Mount md(dst->path + "p2", tmp.path / "dstroot", "", "ro");
    b = read_tree(md.dir);
  }
  EXPECT_EQ(b["marker"], "written while mounted\n");
  ASSERT_EQ(a.size(), b.size());
  for (const auto& [path, content] : a)
    if (path != "etc/fstab") EXPECT_TRUE(b[path] == content) << path << " differs";
  EXPECT_NE(b["etc/fstab"].find("PARTUUID=" + id + "-02  /  ext4"), std::string::npos) << b["etc/fstab"];
  ASSERT_NO_FATAL_FAILURE(copy_fat_out(dst->path + "p1", tmp.path / "dstboot"));
  EXPECT_EQ(read_tree(tmp.path / "dstboot")["cmdline.txt"],
            "console=serial0,115200 root=PARTUUID=" + id + "-02 rootfstype=ext4 rootwait\n");
}

// Ctrl-C while the TARGET is written: exit 130, and the TARGET has no
// partition table (its first MiB is written last). The TARGET is an emulated
// microSD (scripts/emulate-device.sh: 25.5 MiB/s, ~6 s for the 150 MiB of
// data); the signal is sent after the first progress line.
TEST(Clone, InterruptedCloneLeavesTheTargetWithoutAPartitionTable) {
  PIPROV_REQUIRE_LOOP();
  const std::string emulate = q((source_dir() / "scripts/emulate-device.sh").string());
  if (auto a = run(emulate + " available 2>&1"); a.exit_code != 0) PIPROV_SKIP("no emulated devices here: " << a.out);
  TempDir tmp("piprov-clone");
  const auto img = make_clone_image(tmp.path, "83", 256ull << 20, 150);
  LoopDevice src(img, 0);
  std::string e = "EMULATE_DIR=" + q(tmp.path.string()) + " " + emulate;
  std::string name = "keep-int-" + std::to_string(::getpid());
  auto created = run(e + " create " + name + " microsd 320M");
  ASSERT_EQ(created.exit_code, 0) << created.err;
  std::string dev = created.out.substr(0, created.out.find('\n'));
  std::string err = (tmp.path / "err").string();
  auto r = run(e + " run -- " + piprov_bin() + " clone --yes --progress json " + src.path + " " + dev + " 2>" + q(err) +
               " & pid=$!; i=0; while [ $i -lt 1200 ] && ! grep -q '\"phase\":\"write\"' " + q(err) +
               "; do sleep 0.05; i=$((i+1)); done; kill -INT $pid; wait $pid; echo $?");
  const std::string mbr = read_bytes(dev, 0, 512);
  run(e + " destroy " + name);
  const std::string log = read_file(err);
  if (r.out == "0\n") PIPROV_SKIP("the clone finished before the signal (device not throttled here?)");
  EXPECT_EQ(r.out, "130\n") << log;
  EXPECT_NE(log.find("does not look bootable"), std::string::npos) << log;
  EXPECT_EQ(mbr, std::string(512, '\0')) << "the TARGET has a partition table";
}

}  // namespace
}  // namespace piprov::test
