// `piprov backup` of the space outside every partition (trial 5, findings 4
// and 9; docs/keep.md "Backups"), on real loop devices: a disk whose
// partitions end long before it does (an image written onto a larger card,
// its root file system not grown yet) is backed up without reading that end,
// which is a hole in a raw OUT, and the summary names each region; what a
// boot loader keeps before the first partition and a GPT's backup header at
// the end are read, and `piprov write` of the backup gives the same disk
// content. OUT that is the file behind the loop device DISK is refused.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <nlohmann/json.hpp>
#include <regex>

#include "skip_fixture.hpp"
#include "support/testsupport.hpp"

namespace piprov::test {
namespace {

constexpr std::uint64_t kMiB = 1ull << 20;

/// In `dir`: `disk` of `size` (sparse, or holding a pattern when `patterned`), partitioned by
/// `table` (sfdisk), with a FAT at `fat_mib` (16 MiB) and an ext4 holding 5 MiB of random data
/// at `ext_mib` (44 MiB), both in MiB from the start.
void make_outside_disk(const std::filesystem::path& dir, std::uint64_t size, bool patterned, const std::string& table,
                       int fat_mib, int ext_mib) {
  const std::string d = q(dir.string());
  sh("cd " + d + " && " +
     (patterned ? "yes piprov-was-here | head -c " + std::to_string(size) + " > disk"
                : "truncate -s " + std::to_string(size) + " disk") +
     " && printf '" + table + "' | sfdisk -q disk && mkdir -p files && head -c 5M /dev/urandom > files/a" +
     " && mkfs.vfat -n BOOT -C fat 16384 >/dev/null && truncate -s 44M ext && mke2fs -q -b 4096 -t ext4 -d files ext" +
     " && dd if=fat of=disk bs=1M seek=" + std::to_string(fat_mib) + " conv=notrunc status=none" +
     " && dd if=ext of=disk bs=1M seek=" + std::to_string(ext_mib) + " conv=notrunc status=none");
}

nlohmann::json outside_backup_json(const std::string& disk, const std::string& out) {
  auto r = run(piprov_bin() + " backup --progress none --json " + disk + " " + q(out));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  return r.exit_code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json::object();
}

nlohmann::json region(const std::string& where, std::uint64_t offset, std::uint64_t size, bool read,
                      const std::string& why) {
  return {{"where", where}, {"offset", offset}, {"size", size}, {"read", read}, {"why", why}};
}

TEST(BackupOutside, UnpartitionedEndIsNotReadIsAHoleInARawImageAndWriteGivesTheSameDisk) {
  PIPROV_REQUIRE_LOOP();
  TempDir tmp("piprov-backup-outside");
  // 1 GiB, sparse: a FAT at 4 MiB, an ext4 at 20 MiB ending at 64 MiB, a boot loader's bytes at 2 MiB.
  make_outside_disk(tmp.path, 1024 * kMiB, false, "label: dos\\n4MiB,16MiB,c\\n20MiB,44MiB,83\\n", 4, 20);
  sh("printf BOOTLOADER | dd of=" + q((tmp.path / "disk").string()) + " bs=1 seek=" + std::to_string(2 * kMiB) +
     " conv=notrunc status=none");
  LoopDevice src(tmp.path / "disk", 0);

  const std::string raw = (tmp.path / "b.img").string();
  auto j = outside_backup_json(src.path, raw);
  ASSERT_TRUE(j.contains("outside_partitions")) << j.dump();
  EXPECT_EQ(j["outside_partitions"],
            nlohmann::json::array(
                {region("before partition 1", 0, 4 * kMiB, true, "the partition table and boot loader area"),
                 region("after partition 2", 64 * kMiB, 960 * kMiB, false, "")}))
      << j.dump();
  EXPECT_EQ(j["unpartitioned_skipped_bytes"].get<std::uint64_t>(), 960 * kMiB) << j.dump();
  EXPECT_LE(j["read_bytes"].get<std::uint64_t>(), 64 * kMiB) << j.dump();
  EXPECT_EQ(j["read_bytes"].get<std::uint64_t>() + j["skipped_bytes"].get<std::uint64_t>(), 1024 * kMiB);
  // The raw image keeps the disk's size, its unpartitioned end (and the free space) a hole.
  struct stat st {};
  ASSERT_EQ(::stat(raw.c_str(), &st), 0);
  EXPECT_EQ(static_cast<std::uint64_t>(st.st_size), 1024 * kMiB);
  EXPECT_LT(static_cast<std::uint64_t>(st.st_blocks) * 512, 32 * kMiB);
  EXPECT_EQ(run("cmp " + q(raw) + " " + src.path).exit_code, 0);  // the disk's bytes, the end zeros on both

  const std::string zst = (tmp.path / "b.img.zst").string();
  auto t = run(piprov_bin() + " backup --progress none " + src.path + " " + q(zst));
  ASSERT_EQ(t.exit_code, 0) << t.out << t.err;
  EXPECT_NE(t.out.find(" and 960.0 MiB unpartitioned (zeros in the image)"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("\nunpartitioned: 960.0 MiB after partition 2 (from 64.0 MiB to 1.0 GiB): not copied (zeros "
                       "in the image)\n"),
            std::string::npos)
      << t.out;
  EXPECT_NE(t.out.find("\noutside the partitions: 4.0 MiB before partition 1 (from 0 B to 4.0 MiB): the partition "
                       "table and boot loader area: read in full\n"),
            std::string::npos)
      << t.out;
  // Restored onto a disk holding old data (here and there, the end included): every byte of the
  // source disk, the boot loader's included.
  const auto dst_file = tmp.path / "dst";
  sh("truncate -s 1G " + q(dst_file.string()) + " && for at in 2 40 100 1016; do yes piprov-was-here | head -c 8M | " +
     "dd of=" + q(dst_file.string()) + " bs=1M seek=$at conv=notrunc iflag=fullblock status=none; done");
  LoopDevice dst(dst_file, 0);
  write_json(zst, dst.path);
  EXPECT_EQ(run("cmp " + src.path + " " + dst.path).exit_code, 0);
  EXPECT_EQ(run("dd if=" + dst.path + " bs=1 skip=" + std::to_string(2 * kMiB) + " count=10 status=none").out,
            "BOOTLOADER");
}

TEST(BackupOutside, GptBackupHeaderIsReadAndTheGapBetweenPartitionsIsNot) {
  PIPROV_REQUIRE_LOOP();
  PIPROV_REQUIRE_TOOL("sfdisk");
  TempDir tmp("piprov-backup-outside");
  // 256 MiB holding old data: a GPT, an EFI system partition at 1 MiB, a 3 MiB gap, a Linux one at 20 MiB.
  make_outside_disk(tmp.path, 256 * kMiB, true, "label: gpt\\n1MiB,16MiB,uefi\\n20MiB,44MiB,linux\\n", 1, 20);
  LoopDevice src(tmp.path / "disk", 0);
  const std::string out = (tmp.path / "b.img.xz").string();
  auto j = outside_backup_json(src.path, out);
  const std::uint64_t last = 256 * kMiB / 512 - 1;  // the backup header's LBA; its 32 sectors of entries before it
  EXPECT_EQ(
      j["outside_partitions"],
      nlohmann::json::array({region("before partition 1", 0, kMiB, true, "the partition table and boot loader area"),
                             region("between partitions 1 and 2", 17 * kMiB, 3 * kMiB, false, ""),
                             region("after partition 2", 64 * kMiB, (last - 32) * 512 - 64 * kMiB, false, ""),
                             region("at the end of the disk", (last - 32) * 512, 33 * 512, true,
                                    "the GPT's backup entries and header (LBA " + std::to_string(last - 32) + " to " +
                                        std::to_string(last) + ")")}))
      << j.dump();
  EXPECT_EQ(j["unpartitioned_skipped_bytes"].get<std::uint64_t>(), 3 * kMiB + 188 * kMiB) << j.dump();

  auto dst = std::make_unique<LoopDevice>(tmp.path / "dst", 256 * kMiB);
  write_json(out, dst->path);
  auto v = run("sfdisk --verify " + dst->path);
  EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
  EXPECT_NE(v.out.find("No errors detected"), std::string::npos) << v.out;
  auto tail = [](const std::string& dev) {
    return run("tail -c " + std::to_string(33 * 512) + " " + dev + " | sha256sum").out;
  };
  EXPECT_EQ(tail(dst->path), tail(src.path));
  // The partitions and everything before the first are the disk's; the gap holds zeros.
  EXPECT_EQ(run("cmp -n " + std::to_string(17 * kMiB) + " " + src.path + " " + dst->path).exit_code, 0);
  auto part2 = [](const std::string& dev) {
    return run("dd if=" + dev + " bs=1M skip=20 count=44 status=none | sha256sum").out;
  };
  EXPECT_EQ(part2(dst->path), part2(src.path));
  EXPECT_EQ(run("dd if=" + dst->path + " bs=1M skip=17 count=3 status=none | tr -d '\\000' | wc -c").out, "0\n");
}

TEST(BackupOutside, OutThatIsTheFileBehindTheLoopDiskIsRefusedWithAFixThatWorks) {
  PIPROV_REQUIRE_LOOP();
  TempDir tmp("piprov-backup-outside");
  make_outside_disk(tmp.path, 80 * kMiB, false, "label: dos\\n1MiB,16MiB,c\\n20MiB,44MiB,83\\n", 1, 20);
  const auto img = tmp.path / "d1.img";
  std::filesystem::rename(tmp.path / "disk", img);
  LoopDevice dev(img, 0);
  const std::string before = run("sha256sum < " + q(img.string())).out;
  auto r = run("cd " + q(tmp.path.string()) + " && " + piprov_bin() + " backup --yes --progress none " + dev.path +
               " d1.img");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("d1.img is the backing file of " + dev.path +
                       ", the disk being backed up: the backup would overwrite what it reads; write OUT to another "
                       "disk, or to another file name"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("losetup -d"), std::string::npos) << r.err;
  EXPECT_EQ(run("sha256sum < " + q(img.string())).out, before);
}

// trial 9 finding 9: a last file system already at its minimum is not shrunk, yet --shrink still
// cuts the unpartitioned end (MBR: OUT ends where partition 2 does; GPT: 1 MiB later, holding
// the backup header moved there), and `piprov write` of OUT gives partitions that pass fsck.
TEST(BackupOutside, ShrinkCutsTheEndWhenTheLastFileSystemIsAlreadyMinimal) {
  PIPROV_REQUIRE_LOOP();
  PIPROV_REQUIRE_TOOL("resize2fs");
  PIPROV_REQUIRE_TOOL("sfdisk");
  PIPROV_REQUIRE_TOOL("fsck.vfat");
  for (const std::string label : {"dos", "gpt"}) {
    SCOPED_TRACE(label);
    TempDir tmp("piprov-backup-outside");
    make_outside_disk(
        tmp.path, 256 * kMiB, false,
        "label: " + label +
            (label == "gpt" ? "\\n4MiB,16MiB,uefi\\n20MiB,44MiB,linux\\n" : "\\n4MiB,16MiB,c\\n20MiB,44MiB,83\\n"),
        4, 20);
    // The ext4 cut to its minimum (resize2fs -M), rounded up to a MiB, and partition 2 with it.
    const std::string ext = q((tmp.path / "ext").string());
    sh("e2fsck -fy " + ext + " >/dev/null; resize2fs -M " + ext + " 2>/dev/null");
    const std::uint64_t blocks =
        std::stoull(run("dumpe2fs -h " + ext + " 2>/dev/null | sed -n 's/^Block count: *//p'").out);
    const std::uint64_t mib = (blocks * 4096 + kMiB - 1) / kMiB;
    const std::string disk = q((tmp.path / "disk").string());
    sh("resize2fs " + ext + " " + std::to_string(mib) + "M 2>/dev/null && dd if=" + ext + " of=" + disk +
       " bs=1M seek=20 conv=notrunc status=none && echo 'size=" + std::to_string(mib * 2048) + "' | sfdisk -q -N 2 " +
       disk);
    LoopDevice src(tmp.path / "disk", 0);
    const std::string out = (tmp.path / "b.img").string();
    auto r = run(piprov_bin() + " backup --progress none --json --shrink " + src.path + " " + q(out));
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["shrink"],
              "--shrink: partition 2 (ext4) is already at its minimum plus the margin; the image ends "
              "after it")
        << j.dump();
    if (label == "dos") {
      // trial 10 nit 8c: the summary's first line says the unpartitioned end was cut from the image, as
      // that region's own line does, not "zeros in the image": the 4 MiB pieces wholly after partition 2.
      const std::string txt = (tmp.path / "t.img").string();
      auto fmt_mib = [](std::uint64_t n) { return std::to_string(n) + ".0 MiB"; };
      auto t = run(piprov_bin() + " backup --progress none --shrink " + src.path + " " + q(txt));
      ASSERT_EQ(t.exit_code, 0) << t.out << t.err;
      const std::string first = t.out.substr(0, t.out.find('\n'));
      std::smatch m;
      ASSERT_TRUE(std::regex_search(first, m,
                                    std::regex("; read [0-9.]+ [KMG]?i?B, skipped [0-9.]+ [KMG]?i?B of free space "
                                               "\\(zeros in the image\\) and ([0-9.]+) MiB unpartitioned \\(cut "
                                               "from the image by --shrink\\)$")))
          << first;
      const double cut = std::stod(m[1]);
      EXPECT_LE(cut, double(256 - 20 - mib)) << first;
      EXPECT_GE(cut, double(256 - (20 + mib + 3) / 4 * 4)) << first;
      EXPECT_NE(t.out.find("\nunpartitioned: " + fmt_mib(256 - 20 - mib) + " after partition 2 (from " +
                           fmt_mib(20 + mib) + " to 256.0 MiB): not copied (cut from the image by --shrink)\n"),
                std::string::npos)
          << t.out;
    }
    const std::uint64_t end = (20 + mib) * kMiB + (label == "gpt" ? kMiB : 0);
    EXPECT_EQ(std::filesystem::file_size(out), end);
    EXPECT_EQ(j["image_bytes"].get<std::uint64_t>(), end) << j.dump();
    const auto& outside = j["outside_partitions"];
    ASSERT_FALSE(outside.empty()) << j.dump();
    EXPECT_EQ(outside[outside.size() - (label == "gpt" ? 2 : 1)]["why"], "cut from the image by --shrink") << j.dump();
    auto v = run("sfdisk -V " + q(out));
    EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
    // The table is still read as what it was (libfdisk reads no GPT whose header names an end past the
    // file's), and a GPT's last usable LBA is inside the cut image (trial 10: it named the old end).
    auto d = run("sfdisk --json " + q(out));
    ASSERT_EQ(d.exit_code, 0) << d.err;
    const auto pt = nlohmann::json::parse(d.out)["partitiontable"];
    EXPECT_EQ(pt["label"], label) << d.out;
    if (label == "gpt") EXPECT_LT(pt["lastlba"].get<std::uint64_t>(), end / 512) << d.out;
    // Written onto a disk smaller than the one backed up: its partitions are there and sound.
    LoopDevice dst(tmp.path / "dst", 128 * kMiB);
    write_json(out, dst.path);
    run("partx -a " + dst.path + " 2>/dev/null; for i in $(seq 100); do [ -b " + dst.path +
        "p2 ] && break; sleep 0.1; done");
    auto e = run("e2fsck -fn " + dst.path + "p2");
    EXPECT_EQ(e.exit_code, 0) << e.out << e.err;
    e = run("fsck.vfat -n " + dst.path + "p1");
    EXPECT_EQ(e.exit_code, 0) << e.out << e.err;
  }
}

}  // namespace
}  // namespace piprov::test
