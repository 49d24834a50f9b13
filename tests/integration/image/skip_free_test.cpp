// piprov write skips the free space of the image's ext4 and FAT file systems
// (issue 20): images made here with sfdisk, mkfs.vfat and mke2fs -d, written
// to loop devices pre-filled with a pattern. The written file systems pass
// fsck and hold the image's files (ext4 read through mounts; FAT through
// mtools, as this kernel may lack vfat); unknown partition types and a
// damaged superblock are written in full; --full writes every byte.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>

#include "skip_fixture.hpp"
#include "support/testsupport.hpp"

namespace piprov::test {
namespace {

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
  sh("xz -0 -T1 -k " + q(s.img.string()));  // one block: sequential, decoded front to back once
  auto a = patterned_loop(tmp.path / "a");
  auto b = patterned_loop(tmp.path / "b");
  auto j = write_json(s.img.string() + ".xz", a->path + " " + b->path);
  ASSERT_EQ(j.value("succeeded", 0), 2) << j.dump();
  EXPECT_EQ(j["format"], "xz");
  EXPECT_EQ(j["decode"]["random_access"], false);
  EXPECT_EQ(j["decode"]["summary"],
            "decoded every byte: single-block .xz is sequential: every byte before a range is decoded to read it (xz "
            "-T0 or -T4 compresses in independent blocks); free space was learnt as the stream passed");
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
