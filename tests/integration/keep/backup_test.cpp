// `piprov backup DISK OUT` (issue 28) on real loop devices: a disk made by
// `piprov write` of a free-space fixture (sfdisk, mkfs.vfat, mke2fs -d) onto
// a loop device whose free space holds a pattern (old data), backed up,
// then written onto another such disk: e2fsck and fsck.vfat pass and every
// file is the same; the backup's free space is zeros and `piprov write`
// of a multi-block backup decodes only what it writes.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <regex>

#include "logical_disk_fixture.hpp"
#include "skip_fixture.hpp"
#include "support/testsupport.hpp"

namespace piprov::test {
namespace {

/// A loop device holding the fixture image as `piprov write` wrote it (pattern in its free space).
struct SourceDisk {
  SkipImage s;
  std::unique_ptr<LoopDevice> dev;
};

SourceDisk make_source(const TempDir& tmp, bool with_fat = true, const std::string& type = "83") {
  SourceDisk d;
  d.s = make_skip_image(tmp.path, with_fat, type);
  d.dev = patterned_loop(tmp.path / "src");
  write_json(d.s.img.string(), d.dev->path);
  if (type == "83") {
    // Old data in the ext4's free space, as on a used card: a file written
    // and deleted (the write above discarded the free space: zeros).
    run("partx -a " + d.dev->path + " 2>/dev/null; for i in $(seq 100); do [ -b " + d.dev->path +
        "p2 ] && break; sleep 0.1; done");
    Mount m(d.dev->path + "p2", tmp.path / "srcmnt", "", "nodiscard");
    sh("head -c 16M /dev/urandom > " + q((m.dir / "old").string()) + " && sync && rm " + q((m.dir / "old").string()) +
       " && sync");
  }
  return d;
}

nlohmann::json backup_json(const std::string& disk, const std::string& out, const std::string& flags = "") {
  auto r = run(piprov_bin() + " backup --progress none --json " + flags + " " + disk + " " + q(out));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  return r.exit_code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json::object();
}

class BackupFormats : public ::testing::TestWithParam<std::string> {};

TEST_P(BackupFormats, BackupThenWriteGivesTheSameFilesAndDecodesOnlyWhatIsWritten) {
  PIPROV_REQUIRE_LOOP();
  PIPROV_REQUIRE_TOOL("e2fsck");
  PIPROV_REQUIRE_TOOL("fsck.vfat");
  TempDir tmp("piprov-backup");
  SourceDisk src = make_source(tmp);
  const std::string out = (tmp.path / ("b" + GetParam())).string();
  auto j = backup_json(src.dev->path, out);
  ASSERT_EQ(j["schema"], "piprov.backup/1") << j.dump();
  EXPECT_EQ(j["disk_bytes"].get<std::uint64_t>(), kSkipDevBytes);
  // Most of the ext4's free blocks (dumpe2fs) were not read.
  EXPECT_GE(j["skipped_bytes"].get<std::uint64_t>(), src.s.ext_free_bytes * 8 / 10) << j.dump();
  // Read in 4 MiB pieces: those wholly in free space were not read.
  EXPECT_LE(j["read_bytes"].get<std::uint64_t>(), kSkipDevBytes - src.s.ext_free_bytes / 2) << j.dump();
  // What was read and what was not add up to the disk (skipped counted free space inside pieces
  // that were read as well: the sum was 4 MiB over).
  EXPECT_EQ(j["read_bytes"].get<std::uint64_t>() + j["skipped_bytes"].get<std::uint64_t>(), kSkipDevBytes) << j.dump();
  // The sha256sum line beside OUT checks.
  auto c = run("cd " + q(tmp.path.string()) + " && sha256sum -c " + q("b" + GetParam() + ".sha256"));
  EXPECT_EQ(c.exit_code, 0) << c.out << c.err;
  EXPECT_EQ(read_file(out + ".sha256"), j["sha256"].get<std::string>() + "  b" + GetParam() + "\n");

  auto dst = patterned_loop(tmp.path / "dst");
  auto w = write_json(out, dst->path, "--sha256-file " + q(out + ".sha256"));
  ASSERT_TRUE(w.contains("decode")) << w.dump();
  EXPECT_EQ(w["sha256"], j["sha256"]);
  EXPECT_EQ(j["format"], w["format"]);  // backup names OUT's format as write names what it reads
  if (GetParam() == ".img.xz" || GetParam() == ".img.zst") {
    // Independent blocks/frames: those wholly in free space are never decoded.
    EXPECT_GT(w["decode"]["units_not_decoded"].get<std::uint64_t>(), 0u) << w.dump();
  } else if (GetParam() == ".img.gz") {
    EXPECT_FALSE(w["decode"]["random_access"].get<bool>()) << w.dump();  // gzip has no index
  }
  EXPECT_GT(w["skipped_bytes"].get<std::uint64_t>(), 0u) << w.dump();
  run_fsck_and_compare(src.s, dst->path, tmp.path);

  // verify OUT DISK compares what `piprov write` of OUT writes: the file systems' free space is
  // not compared (the disk's still holds the pattern, the backup's is zeros), but the disk's
  // unpartitioned end is: backup did not copy its old data (the 16 MiB after partition 2), so
  // verify names its first byte (docs/keep.md "Checking a backup against its disk").
  EXPECT_EQ(j["unpartitioned_skipped_bytes"].get<std::uint64_t>(), kSkipDevBytes - kSkipImgBytes) << j.dump();
  auto v = run(piprov_bin() + " verify --progress none " + q(out) + " " + src.dev->path);
  EXPECT_EQ(v.exit_code, 4) << v.out << v.err;
  EXPECT_NE(v.err.find("at byte offset 67108864 (0x4000000, 64.0 MiB): expected 0x00"), std::string::npos) << v.err;
  // With that end zeros (a new card, or one wiped with blkdiscard), verify passes.
  sh("dd if=/dev/zero of=" + src.dev->path + " bs=1M seek=64 count=16 oflag=direct status=none");
  v = run(piprov_bin() + " verify --progress none " + q(out) + " " + src.dev->path);
  EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
  auto vf = run(piprov_bin() + " verify --full --progress none " + q(out) + " " + src.dev->path);
  EXPECT_EQ(vf.exit_code, 4) << vf.out << vf.err;  // every byte: the old data in the free space differs
}

INSTANTIATE_TEST_SUITE_P(Keep, BackupFormats, ::testing::Values(".img.xz", ".img.zst", ".img.gz", ".img"),
                         [](const auto& info) {
                           std::string n = info.param.substr(1);
                           for (auto& ch : n)
                             if (ch == '.') ch = '_';
                           return n;
                         });

TEST(Backup, OutOnTheSourceIsRefused) {
  PIPROV_REQUIRE_LOOP();
  TempDir tmp("piprov-backup");
  SkipImage s = make_skip_image(tmp.path, true);
  // DISK an image file, OUT the same file under another spelling.
  auto r = run(piprov_bin() + " backup --yes --progress none " + q(s.img.string()) + " " +
               q((tmp.path / "." / s.img.filename()).string()));
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("itself"), std::string::npos) << r.err;
  // OUT's name must say the format, and that it is a disk image (docs/keep.md): b.xz is refused too.
  for (const char* name : {"b.tar", "b.xz", "b.zst", "b.gz"}) {
    r = run(piprov_bin() + " backup --progress none " + q(s.img.string()) + " " + q((tmp.path / name).string()));
    EXPECT_EQ(r.exit_code, 2) << name << ": " << r.err;
    EXPECT_NE(r.err.find("end it in .img (raw), .img.xz, .img.zst or .img.gz"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(tmp.path / name)) << name;
  }
  // OUT a disk: said so (was the format message).
  auto out_disk = patterned_loop(tmp.path / "outdisk");
  r = run(piprov_bin() + " backup --progress none " + q(s.img.string()) + " " + out_disk->path);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(out_disk->path + " is a disk: OUT must be an image file"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("OUT's name picks the format"), std::string::npos) << r.err;
  // The advice for copying a disk onto another names clone, which does it in one step.
  EXPECT_NE(r.err.find("piprov clone DISK TARGET does it in one step"), std::string::npos) << r.err;
  // OUT a new file under /dev (devtmpfs: device nodes only) is named so, not as a missing disk; as under /dev/shm
  // (trial 6 finding 10).
  r = run(piprov_bin() + " backup --yes --progress none " + q(s.img.string()) + " " + out_disk->path + "p1.img");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err, "piprov: error: OUT " + out_disk->path +
                       "p1.img would be a new file under /dev, which is for devices (devtmpfs, a kernel pseudo file "
                       "system), not files: piprov never creates files there; put it on a real file system (give a "
                       "new file name in a directory of yours)\n");
  EXPECT_FALSE(std::filesystem::exists(out_disk->path + "p1.img"));
  r = run(piprov_bin() + " backup --yes --progress none " + q(s.img.string()) + " /dev/shm/piprov-t7c.img");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("/dev/shm/piprov-t7c.img is on a kernel pseudo file system"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists("/dev/shm/piprov-t7c.img"));
  // OUT on a file system of one of DISK's partitions.
  auto dev = patterned_loop(tmp.path / "src");
  write_json(s.img.string(), dev->path);
  run("partx -a " + dev->path + " 2>/dev/null; for i in $(seq 100); do [ -b " + dev->path +
      "p2 ] && break; sleep 0.1; done");
  Mount m(dev->path + "p2", tmp.path / "mnt");
  r = run(piprov_bin() + " backup --progress none " + dev->path + " " + q((m.dir / "b.img.xz").string()));
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("the disk being backed up"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(m.dir / "b.img.xz"));
  // A mounted DISK (OUT elsewhere) is refused, naming the mount.
  r = run(piprov_bin() + " backup --progress none " + dev->path + " " + q((tmp.path / "b.img.xz").string()));
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("is in use"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(m.dir.string()), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(tmp.path / "b.img.xz"));
  // DISK the image file behind that loop device: in use as well (its ext4's journal needs
  // recovery because it is mounted; e2fsck must not be suggested on a mounted file system).
  r = run(piprov_bin() + " backup --progress none " + q((tmp.path / "src").string()) + " " +
          q((tmp.path / "b.img.xz").string()));
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find((tmp.path / "src").string() + " is in use: it is the backing file of " + dev->path + " (" +
                       dev->path + "p2 on " + m.dir.string() + ")"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("e2fsck"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(tmp.path / "b.img.xz"));
  // OUT a partition of DISK, or DISK itself (trial 8: clone's advice, for another disk, did not
  // fit): said plainly, as the disk being backed up; a partition of another disk keeps the advice.
  const std::string image_file =
      "OUT must be an image file (.img, .img.xz, .img.zst or .img.gz) on another disk's "
      "file system; a backup is never written onto the disk it reads\n";
  r = run(piprov_bin() + " backup --yes --progress none " + dev->path + " " + dev->path + "p1");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(r.err, "piprov: error: " + dev->path + "p1 is a partition of " + dev->path +
                       ", the DISK being backed up: " + image_file);
  r = run(piprov_bin() + " backup --yes --progress none " + dev->path + " " + dev->path);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(r.err, "piprov: error: " + dev->path + " is the DISK being backed up: " + image_file);
  r = run(piprov_bin() + " backup --yes --progress none " + q(s.img.string()) + " " + dev->path + "p1");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find(dev->path + "p1 is a partition of " + dev->path +
                       ": OUT must be an image file (.img, .img.xz, .img.zst or .img.gz), not a disk or partition; "
                       "to copy a disk onto another, piprov clone DISK TARGET does it in one step"),
            std::string::npos)
      << r.err;
}

TEST(Backup, FullOutputFileSystemFailsWithExit3AndRemovesThePartialFile) {
  PIPROV_REQUIRE_LOOP();
  TempDir tmp("piprov-backup");
  SourceDisk src = make_source(tmp);
  Mount small("tmpfs", tmp.path / "small", "tmpfs", "size=8m");
  const auto out = small.dir / "b.img";  // raw: ~30 MiB of data do not fit in 8 MiB
  auto r = run(piprov_bin() + " backup --progress none " + src.dev->path + " " + q(out.string()));
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(out.string()), std::string::npos) << r.err;
  auto left = run("ls -A " + q(small.dir.string()));
  EXPECT_EQ(left.out, "") << "partial files left: " << left.out;
}

// OUT.sha256 is treated like OUT: an existing one (here a symlink to another file) is refused
// without --yes; with --yes the link itself is replaced, its target never written.
TEST(Backup, ExistingSha256FileIsRefusedWithoutYesAndASymlinkIsNeverFollowed) {
  TempDir tmp("piprov-backup");
  SkipImage s = make_skip_image(tmp.path, true);
  const auto out = tmp.path / "b.img.zst";
  const auto victim = tmp.path / "victim";
  write_file(victim, "keep me\n");
  std::filesystem::create_symlink(victim, out.string() + ".sha256");
  auto r = run(piprov_bin() + " backup --progress none " + q(s.img.string()) + " " + q(out.string()));
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find(out.string() + ".sha256 exists (a symlink: it would be replaced, never followed): give --yes"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
  r = run(piprov_bin() + " backup --yes --progress none " + q(s.img.string()) + " " + q(out.string()));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(read_file(victim), "keep me\n");
  EXPECT_FALSE(std::filesystem::is_symlink(out.string() + ".sha256"));
  EXPECT_NE(read_file(out.string() + ".sha256").find("  b.img.zst\n"), std::string::npos);
  // A plain existing OUT.sha256 (OUT itself gone): refused without --yes too.
  std::filesystem::remove(out);
  r = run(piprov_bin() + " backup --progress none " + q(s.img.string()) + " " + q(out.string()));
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find(".sha256 exists: give --yes to replace it with OUT's checksum"), std::string::npos) << r.err;
}

TEST(Backup, FileSystemMarkedWithErrorsIsRefusedUnlessForce) {
  PIPROV_REQUIRE_LOOP();
  PIPROV_REQUIRE_TOOL("tune2fs");
  TempDir tmp("piprov-backup");
  SourceDisk src = make_source(tmp);
  run("partx -a " + src.dev->path + " 2>/dev/null; for i in $(seq 100); do [ -b " + src.dev->path +
      "p2 ] && break; sleep 0.1; done");
  auto t = run("tune2fs -E force_fsck " + src.dev->path + "p2");  // sets EXT2_ERROR_FS in s_state
  ASSERT_EQ(t.exit_code, 0) << t.out << t.err;
  const auto out = tmp.path / "b.img.zst";
  auto r = run(piprov_bin() + " backup --progress none " + src.dev->path + " " + q(out.string()));
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("partition 2"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("marked as having errors"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--force"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
  auto j = backup_json(src.dev->path, out.string(), "--force");
  ASSERT_EQ(j["partitions"].size(), 2u) << j.dump();
  EXPECT_NE(j["partitions"][1]["full_reason"].get<std::string>().find("marked as having errors"), std::string::npos);
  EXPECT_EQ(j["partitions"][1]["skipped_bytes"], 0u);
}

TEST(Backup, UnknownFileSystemIsCopiedInFullAndSaysSo) {
  PIPROV_REQUIRE_LOOP();
  TempDir tmp("piprov-backup");
  SourceDisk src = make_source(tmp, false, "da");
  const auto out = tmp.path / "b.img.xz";
  auto r = run(piprov_bin() + " backup --progress none " + src.dev->path + " " + q(out.string()));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("partition 1: type 0xda is not a file system piprov reads: read in full"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("skipped 0 B of free space"), std::string::npos) << r.out;
  auto dst = patterned_loop(tmp.path / "dst");
  write_json(out.string(), dst->path);
  EXPECT_TRUE(whole_image_on(src.s.img, dst->path));
}

TEST(Backup, ShrinkCutsTheLastExt4InTheImageNotOnTheDisk) {
  PIPROV_REQUIRE_LOOP();
  PIPROV_REQUIRE_TOOL("resize2fs");
  PIPROV_REQUIRE_TOOL("sfdisk");
  TempDir tmp("piprov-backup");
  // A 258 MiB disk: a 16 MiB FAT, then a 240 MiB ext4 (4 KiB blocks) holding 120 MiB of files.
  const auto disk = tmp.path / "disk";
  const std::string t = q(tmp.path.string());
  sh("cd " + t + " && mkdir files && head -c 100M /dev/urandom > files/a && head -c 20M /dev/urandom > files/b" +
     " && truncate -s 258M disk && printf 'label: dos\\n1MiB,16MiB,c\\n17MiB,240MiB,83\\n' | sfdisk -q disk" +
     " && truncate -s 16M fat && mkfs.vfat -n BOOT fat >/dev/null && truncate -s 240M ext" +
     " && mke2fs -q -b 4096 -t ext4 -L writable -d files ext" +
     " && dd if=fat of=disk bs=1M seek=1 conv=notrunc status=none && dd if=ext of=disk bs=1M seek=17 conv=notrunc "
     "status=none");
  auto du = run("dumpe2fs -h " + (tmp.path / "ext").string() + " 2>/dev/null");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(du.out, m, std::regex("\nFree blocks: +([0-9]+)"))) << du.out;
  const std::uint64_t used = (240ull << 20) - std::stoull(m[1]) * 4096;
  LoopDevice src(disk, 0);
  const std::string before = run("sha256sum < " + src.path).out;
  const auto out = tmp.path / "b.img.zst";
  auto j = backup_json(src.path, out.string(), "--shrink");
  ASSERT_TRUE(j.contains("image_bytes")) << j.dump();
  EXPECT_EQ(run("sha256sum < " + src.path).out, before) << "DISK changed";
  // The image: the boot partition's end (1 MiB + 16 MiB) + the ext4's used blocks + 10%.
  EXPECT_LE(j["image_bytes"].get<std::uint64_t>(), (17ull << 20) + used + used / 10) << j.dump();
  EXPECT_NE(j["shrink"].get<std::string>().find("partition 2 (ext4) shrunk from 240.0 MiB to "), std::string::npos)
      << j.dump();
  EXPECT_NE(j["shrink"].get<std::string>().find("does not grow back"), std::string::npos) << j.dump();
  // The disk ends 1 MiB after partition 2: that MiB is not in the image at all.
  ASSERT_EQ(j["outside_partitions"].size(), 2u) << j.dump();
  EXPECT_EQ(j["outside_partitions"][1]["where"], "after partition 2");
  EXPECT_EQ(j["outside_partitions"][1]["offset"].get<std::uint64_t>(), 257ull << 20);
  EXPECT_FALSE(j["outside_partitions"][1]["read"].get<bool>());
  EXPECT_EQ(j["outside_partitions"][1]["why"], "cut from the image by --shrink");
  // Written onto a disk: the table's entry ends where the file system does; it is clean and holds the files.
  auto dst = std::make_unique<LoopDevice>(tmp.path / "dst", 258ull << 20);
  write_json(out.string(), dst->path);
  run("partx -a " + dst->path + " 2>/dev/null; for i in $(seq 100); do [ -b " + dst->path +
      "p2 ] && break; sleep 0.1; done");
  auto e = run("e2fsck -fn " + dst->path + "p2");
  EXPECT_EQ(e.exit_code, 0) << e.out << e.err;
  {
    Mount mnt(dst->path + "p2", tmp.path / "mnt", "", "ro");
    EXPECT_EQ(run("cd " + q(mnt.dir.string()) + " && sha256sum a b").out,
              run("cd " + t + "/files && sha256sum a b").out);
  }
  auto d = run("dumpe2fs -h " + dst->path + "p2 2>/dev/null | sed -n 's/^Block count: *//p'");
  auto p = run("sfdisk -d " + dst->path + " | sed -n 's/.*p2 .*size= *\\([0-9]*\\).*/\\1/p'");
  ASSERT_FALSE(d.out.empty());
  ASSERT_FALSE(p.out.empty()) << run("sfdisk -d " + dst->path).out;
  EXPECT_EQ(std::stoull(d.out) * 4096, std::stoull(p.out) * 512);
}

// The last file system is logical partition 6, not the extended partition 2 that holds it: it is
// shrunk, and the extended partition's entry is cut to end with it, where the image ends.
TEST(Backup, ShrinkCutsTheLastLogicalPartitionAndItsExtendedPartitionWithIt) {
  PIPROV_REQUIRE_LOOP();
  PIPROV_REQUIRE_TOOL("resize2fs");
  PIPROV_REQUIRE_TOOL("sfdisk");
  PIPROV_REQUIRE_TOOL("mkfs.vfat");
  TempDir tmp("piprov-backup");
  const auto disk = make_logical_disk(tmp, "mke2fs -q -b 4096 -t ext4 -L writable -d files p6");
  LoopDevice src(disk, 0);
  const std::string before = run("sha256sum < " + src.path).out;
  const auto out = tmp.path / "b.img";
  auto j = backup_json(src.path, out.string(), "--shrink");
  ASSERT_TRUE(j.contains("image_bytes")) << j.dump();
  EXPECT_EQ(run("sha256sum < " + src.path).out, before) << "DISK changed";
  EXPECT_NE(j["shrink"].get<std::string>().find(
                "partition 6 (ext4, logical: extended partition 2 cut with it) shrunk from 165.0 MiB to "),
            std::string::npos)
      << j.dump();
  // The table: 1 and 5 as they were; 6 cut to its file system's size; 2 ends where 6 does, and so does the image.
  auto e = sfdisk_entries(out.string());
  ASSERT_EQ(e.size(), 4u) << run("sfdisk -d " + q(out.string())).out;
  EXPECT_EQ(e[1], (std::pair<std::uint64_t, std::uint64_t>{2048, 32768}));
  EXPECT_EQ(e[5], (std::pair<std::uint64_t, std::uint64_t>{36864, 32768}));
  EXPECT_EQ(e[2].first, 34816u);
  EXPECT_EQ(e[6].first, 71680u);
  EXPECT_LT(e[6].second, 337920u / 2) << "40 MiB of files in 165 MiB";
  EXPECT_EQ(e[2].first + e[2].second, e[6].first + e[6].second);
  EXPECT_EQ((e[6].first + e[6].second) * 512, std::filesystem::file_size(out));
  EXPECT_EQ(j["image_bytes"].get<std::uint64_t>(), std::filesystem::file_size(out));
  auto v = run("sfdisk -V " + q(out.string()));
  EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
  // Partition 6 of the image: clean, its size the table's, holding the files; partition 5 untouched.
  LoopDevice img(out, 0);
  run("partx -a " + img.path + " 2>/dev/null; for i in $(seq 100); do [ -b " + img.path +
      "p6 ] && break; sleep 0.1; done");
  auto f = run("e2fsck -fn " + img.path + "p6");
  EXPECT_EQ(f.exit_code, 0) << f.out << f.err;
  f = run("e2fsck -fn " + img.path + "p5");
  EXPECT_EQ(f.exit_code, 0) << f.out << f.err;
  auto d = run("dumpe2fs -h " + img.path + "p6 2>/dev/null | sed -n 's/^Block count: *//p'");
  ASSERT_FALSE(d.out.empty());
  EXPECT_EQ(std::stoull(d.out) * 4096, e[6].second * 512);
  Mount mnt(img.path + "p6", tmp.path / "mnt", "", "ro");
  EXPECT_EQ(run("sha256sum < " + q((mnt.dir / "a").string())).out,
            run("sha256sum < " + q((tmp.path / "files/a").string())).out);
}

// A last logical partition that is not ext2/3/4 is named (partition 6), not the extended partition 2.
TEST(Backup, ShrinkNamesTheLastLogicalPartitionWhenItIsNotExt) {
  PIPROV_REQUIRE_LOOP();
  PIPROV_REQUIRE_TOOL("sfdisk");
  PIPROV_REQUIRE_TOOL("mkfs.vfat");
  TempDir tmp("piprov-backup");
  const auto disk = make_logical_disk(tmp, "mkfs.vfat -n DATA p6 >/dev/null");
  const auto out = tmp.path / "b.img";
  auto j = backup_json(disk.string(), out.string(), "--shrink");
  EXPECT_EQ(j["shrink"], "--shrink: partition 6 holds vfat, not ext2/3/4: not shrunk") << j.dump();
  EXPECT_EQ(std::filesystem::file_size(out), 200ull << 20);
}

// The EBR before logical partition 6 wiped: the chain breaks after 5, so a partition after it may be missing and
// which one is last is not known: nothing is shrunk or cut (cutting after 5 would cut 6 off), and the line says why.
TEST(Backup, ShrinkLeavesAnImageWhoseEbrChainBreaksAsItIs) {
  PIPROV_REQUIRE_LOOP();
  PIPROV_REQUIRE_TOOL("sfdisk");
  PIPROV_REQUIRE_TOOL("mkfs.vfat");
  TempDir tmp("piprov-backup");
  const auto disk = make_logical_disk(tmp, "mke2fs -q -b 4096 -t ext4 -L writable -d files p6");
  sh("dd if=/dev/zero of=" + q(disk.string()) + " bs=512 seek=" + std::to_string(34 * 2048) +
     " count=1 conv=notrunc status=none");
  const auto out = tmp.path / "b.img";
  auto j = backup_json(disk.string(), out.string(), "--shrink");
  EXPECT_EQ(j["shrink"],
            "--shrink: the last partition is not known (extended partition 2 has no EBR (55 AA) at byte 35651584): "
            "not shrunk")
      << j.dump();
  EXPECT_EQ(std::filesystem::file_size(out), 200ull << 20);
  EXPECT_EQ(run("cmp " + q(disk.string()) + " " + q(out.string())).exit_code, 0) << "the image is the disk";
}

}  // namespace
}  // namespace piprov::test
