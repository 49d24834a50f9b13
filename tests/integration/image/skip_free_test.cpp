// piprov write skips the free space of the image's ext4 and FAT file systems
// (issue 20): images made here with sfdisk, mkfs.vfat and mke2fs -d, written
// to loop devices pre-filled with a pattern. The written file systems pass
// fsck and hold the image's files (ext4 read through mounts; FAT through
// mtools, as this kernel may lack vfat); unknown partition types and a
// damaged superblock are written in full; --full writes every byte.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>

#include "support/testsupport.hpp"

namespace piprov::test {
namespace {

constexpr std::uint64_t kSkipImgBytes = 64ull << 20;
constexpr std::uint64_t kSkipDevBytes = 80ull << 20;

/// Runs a shell script, failing the test with its output when it fails.
void sh(const std::string& script) {
  auto r = run("set -e\n" + script);
  ASSERT_EQ(r.exit_code, 0) << script << "\n" << r.out << r.err;
}

struct SkipImage {
  std::filesystem::path img;
  std::uint64_t ext_offset = 0;
  std::uint64_t ext_free_bytes = 0;  ///< dumpe2fs: Free blocks * Block size
  std::string dumpe2fs;
};

/// A 64 MiB image: partition 1 FAT (16 MiB, "BOOT") when `with_fat`, then an
/// ext4 ("writable", MBR type `ext_type`) made by mke2fs -d with ~12 MiB of
/// files, 8 MiB block groups; `mke2fs_opts` adds options (-O ^flex_bg).
SkipImage make_skip_image(const std::filesystem::path& dir, bool with_fat, const std::string& ext_type = "83",
                          const std::string& mke2fs_opts = "") {
  SkipImage s;
  s.img = dir / "t.img";
  const std::uint64_t ext_start = with_fat ? 34816 : 2048;  // sectors
  s.ext_offset = ext_start * 512;
  const std::uint64_t ext_sectors = kSkipImgBytes / 512 - ext_start;
  std::string table = "label: dos\n";
  if (with_fat) table += "start=2048, size=32768, type=c\n";
  table += "start=" + std::to_string(ext_start) + ", size=" + std::to_string(ext_sectors) + ", type=" + ext_type + "\n";
  sh("cd " + q(dir.string()) + "\nmkdir -p root/dir boot\n" +
     "head -c 6M /dev/urandom > root/big.bin\nhead -c 3M /dev/urandom > root/dir/mid.bin\n"
     "for i in $(seq 1 40); do head -c $((i * 997)) /dev/urandom > root/dir/f$i; done\n"
     "head -c 2M /dev/urandom > boot/kernel.img\necho 'console=tty1' > boot/cmdline.txt\n"
     "truncate -s " +
     std::to_string(kSkipImgBytes) + " t.img\n" + "printf '" + table + "' | sfdisk -q t.img\n" +
     "mke2fs -q -F -t ext4 -b 4096 -g 2048 -L writable " + mke2fs_opts + " -d root ext.img " +
     std::to_string(ext_sectors / 8) + "\n" + "dd if=ext.img of=t.img bs=512 seek=" + std::to_string(ext_start) +
     " conv=notrunc status=none\n" +
     (with_fat ? "mkfs.vfat -n BOOT -C fat.img 16384 >/dev/null\nmcopy -s -i fat.img boot/* ::\n"
                 "dd if=fat.img of=t.img bs=512 seek=2048 conv=notrunc status=none\n"
               : ""));
  auto d = run("dumpe2fs " + q((dir / "ext.img").string()) + " 2>/dev/null");
  s.dumpe2fs = d.out;
  std::smatch m;
  if (std::regex_search(d.out, m, std::regex("\nFree blocks:\\s+(\\d+)"))) s.ext_free_bytes = std::stoull(m[1]) * 4096;
  return s;
}

/// A loop device whose backing file first holds a repeating pattern (not zeros).
std::unique_ptr<LoopDevice> patterned_loop(const std::filesystem::path& backing) {
  sh("yes piprov-was-here | head -c " + std::to_string(kSkipDevBytes) + " > " + q(backing.string()));
  return std::make_unique<LoopDevice>(backing, kSkipDevBytes);
}

nlohmann::json write_json(const std::string& img, const std::string& dev, const std::string& flags = "") {
  auto r = run(piprov_bin() + " write --yes --progress none --json " + flags + " " + q(img) + " " + dev);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  return r.exit_code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json::object();
}

/// Every file of partition `part` of the image and of the target is the same:
/// read through mounts (ext4), or with mtools (`fat`).
void expect_same_tree(const std::string& img_dev, const std::string& dev, int part, const std::filesystem::path& tmp,
                      bool fat = false) {
  const std::string p = "p" + std::to_string(part);
  // BLKPG (partx -a): also where the kernel does not scan the image's loop device for partitions.
  run("partx -a " + img_dev + " 2>/dev/null; for i in $(seq 100); do [ -b " + img_dev + p + " ] && [ -b " + dev + p +
      " ] && break; sleep 0.1; done");
  std::map<std::string, std::string> ta, tb;
  if (fat) {
    ASSERT_NO_FATAL_FAILURE(copy_fat_out(img_dev + p, tmp / ("img" + p)));
    ASSERT_NO_FATAL_FAILURE(copy_fat_out(dev + p, tmp / ("dev" + p)));
    ta = read_tree(tmp / ("img" + p)), tb = read_tree(tmp / ("dev" + p));
  } else {
    Mount a(img_dev + p, tmp / ("img" + p), "", "ro");
    Mount b(dev + p, tmp / ("dev" + p), "", "ro");
    ta = read_tree(a.dir), tb = read_tree(b.dir);
  }
  EXPECT_GE(ta.size(), 2u);
  EXPECT_TRUE(ta == tb) << "partition " << part << " differs";
}

bool whole_image_on(const std::filesystem::path& img, const std::string& dev) {
  return run("cmp -n " + std::to_string(kSkipImgBytes) + " " + q(img.string()) + " " + dev).exit_code == 0;
}

void run_fsck_and_compare(const SkipImage& s, const std::string& dev, const std::filesystem::path& tmp) {
  auto e = run("e2fsck -fn " + dev + "p2");
  EXPECT_EQ(e.exit_code, 0) << e.out << e.err;
  auto f = run("fsck.vfat -n " + dev + "p1");
  EXPECT_EQ(f.exit_code, 0) << f.out << f.err;
  LoopDevice image(s.img, 0, true);
  expect_same_tree(image.path, dev, 1, tmp, true);
  expect_same_tree(image.path, dev, 2, tmp);
}

TEST(WriteSkipFree, PatternFilledTargetPassesFsckAndHoldsTheImagesFiles) {
  PIPROV_REQUIRE_LOOP();
  TempDir tmp("piprov-skip");
  SkipImage s = make_skip_image(tmp.path, true);
  ASSERT_NE(s.dumpe2fs.find("BLOCK_UNINIT"), std::string::npos) << "fixture without BLOCK_UNINIT groups";
  ASSERT_NE(s.dumpe2fs.find("flex_bg"), std::string::npos);
  auto dev = patterned_loop(tmp.path / "dev");
  auto j = write_json(s.img.string(), dev->path);
  ASSERT_TRUE(j.contains("partitions")) << j.dump();
  EXPECT_EQ(j["schema"], "piprov.write/3");
  const auto& parts = j["partitions"];
  ASSERT_EQ(parts.size(), 2u) << j.dump();
  EXPECT_EQ(parts[0]["fs"], "vfat");
  EXPECT_EQ(parts[0]["label"], "BOOT");
  EXPECT_GT(parts[0]["skipped_bytes"].get<std::uint64_t>(), 8ull << 20) << j.dump();  // 16 MiB, ~2 MiB used
  EXPECT_EQ(parts[1]["fs"], "ext4");
  EXPECT_EQ(parts[1]["label"], "writable");
  // The free blocks dumpe2fs counts, less runs under 256 KiB.
  const auto ext_skipped = parts[1]["skipped_bytes"].get<std::uint64_t>();
  EXPECT_LE(ext_skipped, s.ext_free_bytes);
  EXPECT_GE(ext_skipped, s.ext_free_bytes * 85 / 100) << s.ext_free_bytes;
  EXPECT_EQ(j["skipped_bytes"].get<std::uint64_t>(), ext_skipped + parts[0]["skipped_bytes"].get<std::uint64_t>());
  EXPECT_EQ(j["written_bytes"].get<std::uint64_t>(), kSkipImgBytes - j["skipped_bytes"].get<std::uint64_t>());
  EXPECT_TRUE(j["targets"][0]["verified"].get<bool>());
  EXPECT_EQ(j["targets"][0]["bytes_skipped"], j["skipped_bytes"]);
  EXPECT_EQ(j["targets"][0]["bytes_discarded"], j["skipped_bytes"]);  // a loop device discards
  EXPECT_NE(j["summary"].get<std::string>().find(" free in BOOT"), std::string::npos) << j["summary"];
  run_fsck_and_compare(s, dev->path, tmp.path);
}

TEST(WriteSkipFree, WithoutFlexBgTheBitmapsInEachGroupAreReadToo) {
  PIPROV_REQUIRE_LOOP();
  TempDir tmp("piprov-skip");
  SkipImage s = make_skip_image(tmp.path, true, "83", "-O ^flex_bg");
  ASSERT_EQ(s.dumpe2fs.find("flex_bg"), std::string::npos);
  auto dev = patterned_loop(tmp.path / "dev");
  auto r = run(piprov_bin() + " write --yes --progress none " + q(s.img.string()) + " " + dev->path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      r.out, m,
      std::regex("\nwrote [0-9.]+ MiB of 64.0 MiB; skipped [0-9.]+ MiB free in BOOT, ([0-9.]+) MiB in writable\n")))
      << r.out;
  EXPECT_GE(std::stod(m[1]) * (1 << 20), static_cast<double>(s.ext_free_bytes) * 0.8) << r.out;
  EXPECT_NE(r.out.find("skipped free space not compared"), std::string::npos) << r.out;
  run_fsck_and_compare(s, dev->path, tmp.path);
}

TEST(WriteSkipFree, UnknownPartitionTypeIsWrittenInFull) {
  PIPROV_REQUIRE_LOOP();
  TempDir tmp("piprov-skip");
  SkipImage s = make_skip_image(tmp.path, false, "da");
  auto dev = patterned_loop(tmp.path / "dev");
  auto r = run(piprov_bin() + " write --yes --progress none " + q(s.img.string()) + " " + dev->path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\nwrote 64.0 MiB of 64.0 MiB; skipped nothing; partition 1: type 0xda is not a file system "
                       "piprov reads: written in full"),
            std::string::npos)
      << r.out;
  EXPECT_TRUE(whole_image_on(s.img, dev->path));
}

TEST(WriteSkipFree, DamagedSuperblockIsWrittenInFull) {
  PIPROV_REQUIRE_LOOP();
  TempDir tmp("piprov-skip");
  SkipImage s = make_skip_image(tmp.path, false);
  // s_wtime (superblock byte 48): the metadata_csum checksum no longer matches.
  sh("printf '\\377\\377\\377\\377' | dd of=" + q(s.img.string()) +
     " bs=1 seek=" + std::to_string(s.ext_offset + 1024 + 48) + " conv=notrunc status=none");
  auto dev = patterned_loop(tmp.path / "dev");
  auto r = run(piprov_bin() + " write --yes --progress none " + q(s.img.string()) + " " + dev->path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\nwrote 64.0 MiB of 64.0 MiB; skipped nothing; partition 1: type 0x83: superblock damaged: "),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find(": written in full"), std::string::npos) << r.out;
  EXPECT_TRUE(whole_image_on(s.img, dev->path));
}

TEST(WriteSkipFree, FullWritesEveryByte) {
  PIPROV_REQUIRE_LOOP();
  TempDir tmp("piprov-skip");
  SkipImage s = make_skip_image(tmp.path, true);
  auto dev = patterned_loop(tmp.path / "dev");
  auto j = write_json(s.img.string(), dev->path, "--full");
  EXPECT_EQ(j["full"], true);
  EXPECT_EQ(j["skipped_bytes"], 0);
  EXPECT_EQ(j["written_bytes"], kSkipImgBytes);
  EXPECT_EQ(j["summary"], "wrote every byte of 64.0 MiB (--full)");
  EXPECT_TRUE(whole_image_on(s.img, dev->path));
}

TEST(WriteSkipFree, StreamedXzToTwoTargetsSkipsTheSameAndVerifySaysWhatItCompared) {
  PIPROV_REQUIRE_LOOP();
  TempDir tmp("piprov-skip");
  SkipImage s = make_skip_image(tmp.path, true);
  sh("xz -0 -T2 -k " + q(s.img.string()));  // streamed: decoded front to back once, like a download
  auto a = patterned_loop(tmp.path / "a");
  auto b = patterned_loop(tmp.path / "b");
  auto j = write_json(s.img.string() + ".xz", a->path + " " + b->path);
  ASSERT_EQ(j.value("succeeded", 0), 2) << j.dump();
  EXPECT_EQ(j["format"], "xz");
  const auto skipped = j["skipped_bytes"].get<std::uint64_t>();
  EXPECT_GE(skipped, s.ext_free_bytes * 85 / 100);
  for (const auto& t : j["targets"]) {
    EXPECT_EQ(t["bytes_skipped"], skipped);
    EXPECT_TRUE(t["verified"].get<bool>());
  }
  run_fsck_and_compare(s, a->path, tmp.path / "a-tree");
  run_fsck_and_compare(s, b->path, tmp.path / "b-tree");
  // piprov verify on its own skips the same free space; --full compares it,
  // and the loop device discarded it (zeros), where the image has zeros too.
  auto v = run(piprov_bin() + " verify --progress none --json " + q(s.img.string()) + ".xz " + a->path);
  ASSERT_EQ(v.exit_code, 0) << v.out << v.err;
  auto vj = nlohmann::json::parse(v.out);
  EXPECT_EQ(vj["schema"], "piprov.verify/2");
  EXPECT_EQ(vj["skipped_bytes"], skipped);
  EXPECT_EQ(vj["compared_bytes"].get<std::uint64_t>(), kSkipImgBytes - skipped);
}

TEST(WriteSkipFree, WithoutDiscardTheFreeSpaceKeepsTheOldBytesAndOnlyVerifyFullSeesThem) {
  PIPROV_REQUIRE_LOOP();
  TempDir tmp("piprov-skip");
  SkipImage s = make_skip_image(tmp.path, true);
  // A loop device backed by a file on ramfs has no discard (no hole punching):
  // the skipped free space keeps the pattern that was there before.
  Mount ram("ramfs", tmp.path / "ram", "ramfs");
  auto dev = patterned_loop(ram.dir / "dev");
  ASSERT_EQ(read_file("/sys/block/" + dev->path.substr(5) + "/queue/discard_max_bytes"), "0\n");
  auto j = write_json(s.img.string(), dev->path);
  ASSERT_TRUE(j.contains("targets")) << j.dump();
  EXPECT_GT(j["targets"][0]["bytes_skipped"].get<std::uint64_t>(), s.ext_free_bytes * 85 / 100);
  EXPECT_EQ(j["targets"][0]["bytes_discarded"], 0);
  EXPECT_NE(j["summary"].get<std::string>().find("; not discarded on " + dev->path +
                                                 " (no discard support): its skipped free space still holds the "
                                                 "disk's old data (--full overwrites it)"),
            std::string::npos)
      << j["summary"];
  const std::uint64_t free_at = kSkipImgBytes - (1u << 20);  // the ext4's last MiB: free (files are at its start)
  auto old = run("dd if=" + dev->path + " bs=4096 skip=" + std::to_string(free_at / 4096) +
                 " count=1 status=none | head -c 32");
  EXPECT_EQ(old.out.substr(0, 16), "piprov-was-here\n") << "the free space was written or zeroed";
  auto plain = run(piprov_bin() + " verify --progress none " + q(s.img.string()) + " " + dev->path);
  EXPECT_EQ(plain.exit_code, 0) << plain.out << plain.err;
  EXPECT_NE(plain.out.find(" free space not compared (as piprov write skips it; --full compares it)"),
            std::string::npos)
      << plain.out;
  auto full = run(piprov_bin() + " verify --full --progress none " + q(s.img.string()) + " " + dev->path);
  EXPECT_EQ(full.exit_code, 4) << full.out << full.err;
  EXPECT_NE(full.err.find("differs from"), std::string::npos) << full.err;
  EXPECT_NE(full.err.find("this byte is free space of the image's file system, which piprov write skips: a disk "
                          "without discard keeps its old data there"),
            std::string::npos)
      << full.err;
  auto fj = run(piprov_bin() + " verify --full --json --progress none " + q(s.img.string()) + " " + dev->path);
  EXPECT_EQ(fj.exit_code, 4) << fj.out << fj.err;
  auto vj = nlohmann::json::parse(fj.out);  // the JSON also on a mismatch
  EXPECT_EQ(vj["schema"], "piprov.verify/2");
  EXPECT_EQ(vj["match"], false);
  EXPECT_EQ(vj["error"]["kind"], "verify");
  EXPECT_EQ(vj["error"]["exit_code"], 4);
  ASSERT_TRUE(vj["error"]["offset"].is_number()) << vj.dump();
  EXPECT_NE(fj.err.find("at byte offset " + std::to_string(vj["error"]["offset"].get<std::uint64_t>()) + " "),
            std::string::npos)
      << fj.err;
  run_fsck_and_compare(s, dev->path, tmp.path);
  // What --full writes leaves nothing old: verify --full agrees.
  j = write_json(s.img.string(), dev->path, "--full");
  EXPECT_EQ(j["summary"], "wrote every byte of 64.0 MiB (--full)");
  full = run(piprov_bin() + " verify --full --progress none " + q(s.img.string()) + " " + dev->path);
  EXPECT_EQ(full.exit_code, 0) << full.out << full.err;
}

}  // namespace
}  // namespace piprov::test
