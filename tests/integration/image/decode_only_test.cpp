// piprov write decodes only what it writes (issue 27 item 2): a multi-block
// .xz and a multi-frame .zst are read through the image reader, the free map
// first, then only the blocks that overlap written ranges; the written file
// systems pass fsck and hold the image's files, and the free space skipped is
// the streaming path's. A corrupt block in a written range fails the write
// naming its decoded offset (exit 3); one wholly in free space is never
// decoded (the write succeeds and says how many blocks it did not decode);
// --full decodes it and fails.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "skip_fixture.hpp"
#include "support/testsupport.hpp"

namespace piprov::test {
namespace {

constexpr std::uint64_t kMiB = 1u << 20;

/// The image compressed as `xz -0 -T2 --block-size=1MiB` (64 blocks of 1 MiB; Ubuntu's xz -0 -T4 makes such blocks).
std::string multi_block_xz(const SkipImage& s) {
  sh("xz -0 -T2 --block-size=1MiB -k -c " + q(s.img.string()) + " > " + q(s.img.string() + ".xz"));
  return s.img.string() + ".xz";
}

/// Flips a byte in the middle of xz block `index` (0-based) of `xz`
/// (xz --robot --list -vv: column 5 the block's compressed offset, 7 its size).
void corrupt_xz_block(const std::string& xz, unsigned index) {
  auto list = run("xz --robot --list -vv " + q(xz) + " | awk '$1 == \"block\" && $4 == " + std::to_string(index + 1) +
                  " {print $5, $7}'");
  std::istringstream in(list.out);
  std::uint64_t off = 0, size = 0;
  ASSERT_TRUE(in >> off >> size) << list.out << list.err;
  sh("printf '\\125' | dd of=" + q(xz) + " bs=1 seek=" + std::to_string(off + size / 2) + " conv=notrunc status=none");
}

/// Every test's start: the skip image (with a FAT) in a temp dir and a patterned loop disk to write it to.
class WriteDecodeOnly : public ::testing::Test {
 protected:
  void SetUp() override {
    PIPROV_REQUIRE_LOOP();
    s = make_skip_image(tmp.path, true);
    dev = patterned_loop(tmp.path / "dev");
  }
  TempDir tmp{"piprov-decode"};
  SkipImage s;
  std::unique_ptr<LoopDevice> dev;
};

TEST_F(WriteDecodeOnly, MultiBlockXzDecodesOnlyTheBlocksItWrites) {
  const std::string xz = multi_block_xz(s);
  auto j = write_json(xz, dev->path);
  ASSERT_TRUE(j.contains("decode")) << j.dump();
  const auto& d = j["decode"];
  EXPECT_EQ(d["random_access"], true);
  EXPECT_EQ(d["units"], 64);
  const auto decoded = d["units_decoded"].get<std::uint64_t>(),
             not_decoded = d["units_not_decoded"].get<std::uint64_t>();
  EXPECT_EQ(decoded + not_decoded, 64u);
  EXPECT_EQ(d["bytes_decoded"], decoded * kMiB);
  EXPECT_EQ(d["bytes_not_decoded"], not_decoded * kMiB);
  // ~14 MiB of the FAT and ~35 MiB of the ext4 are free: every free whole MiB is a block not decoded.
  EXPECT_GE(not_decoded * kMiB, s.ext_free_bytes / 2) << j.dump();
  EXPECT_LE(not_decoded * kMiB, j["skipped_bytes"].get<std::uint64_t>());
  EXPECT_EQ(d["summary"], "decoded " + std::to_string(decoded) + " of 64 xz blocks (" + std::to_string(decoded) +
                              ".0 MiB); " + std::to_string(not_decoded) + " (" + std::to_string(not_decoded) +
                              ".0 MiB) wholly in free space not decoded (their checks not run)");
  EXPECT_TRUE(j["targets"][0]["verified"].get<bool>());
  run_fsck_and_compare(s, dev->path, tmp.path);
  // The same free space as the streaming path skips (a single-block .xz).
  sh("xz -0 -T1 -k -c " + q(s.img.string()) + " > " + q((tmp.path / "one.xz").string()));
  auto dev2 = patterned_loop(tmp.path / "dev2");
  auto j1 = write_json((tmp.path / "one.xz").string(), dev2->path);
  EXPECT_EQ(j1["decode"]["random_access"], false);
  EXPECT_EQ(j1["skipped_bytes"], j["skipped_bytes"]);
  EXPECT_EQ(j1["xxh3_128"], j["xxh3_128"]);  // the image's free space is zeros: the same stream hash
  // piprov verify reads the image through the same reader: the written ranges only.
  auto v = run(piprov_bin() + " verify --progress none --json " + q(xz) + " " + dev->path);
  ASSERT_EQ(v.exit_code, 0) << v.out << v.err;
  auto vj = nlohmann::json::parse(v.out);
  EXPECT_EQ(vj["skipped_bytes"], j["skipped_bytes"]);
  EXPECT_EQ(vj["xxh3_128"], j["xxh3_128"]);
}

TEST_F(WriteDecodeOnly, MultiFrameZstIsWrittenFrameByFrame) {
  // One frame per 4 MiB: independent frames, as rpi-imager's .zst are.
  sh("cd " + q(tmp.path.string()) +
     " && split -b 4M -d t.img piece. && for f in piece.*; do zstd -q $f -o $f.zst; done && cat piece.*.zst > "
     "t.img.zst");
  auto j = write_json((tmp.path / "t.img.zst").string(), dev->path);
  ASSERT_TRUE(j.contains("decode")) << j.dump();
  EXPECT_EQ(j["format"], "zstd");
  EXPECT_EQ(j["decode"]["random_access"], true);
  EXPECT_EQ(j["decode"]["units"], 16);
  EXPECT_GE(j["decode"]["units_not_decoded"].get<int>(), 4) << j.dump();
  EXPECT_TRUE(j["targets"][0]["verified"].get<bool>());
  run_fsck_and_compare(s, dev->path, tmp.path);
}

TEST_F(WriteDecodeOnly, CorruptBlockInAWrittenRangeFailsTheWriteNamingItsOffset) {
  const std::string xz = multi_block_xz(s);
  ASSERT_NO_FATAL_FAILURE(corrupt_xz_block(xz, 2));  // 2-3 MiB: the FAT's kernel.img, written
  auto r = run(piprov_bin() + " write --yes --progress none --json " + q(xz) + " " + dev->path);
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["error"]["kind"], "io");
  EXPECT_EQ(j["error"]["offset"], 2 * kMiB) << j.dump();
  EXPECT_NE(j["error"]["message"].get<std::string>().find(
                " is corrupt: block 2 (decoded bytes 2097152-3145728, compressed byte offset "),
            std::string::npos)
      << j.dump();
  EXPECT_NE(r.err.find("is corrupt: block 2 (decoded bytes 2097152-3145728"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("the first MiB was not written"), std::string::npos) << r.err;
}

TEST_F(WriteDecodeOnly, CorruptBlockWhollyInFreeSpaceIsNotDecodedAndFullFailsOnIt) {
  const std::string xz = multi_block_xz(s);
  auto clean = write_json(xz, dev->path);
  ASSERT_TRUE(clean.contains("decode")) << clean.dump();
  ASSERT_NO_FATAL_FAILURE(corrupt_xz_block(xz, 62));  // 62-63 MiB: the end of the ext4, free (files are at its start)
  auto j = write_json(xz, dev->path);
  ASSERT_TRUE(j.contains("decode")) << j.dump();
  EXPECT_EQ(j["decode"]["units_not_decoded"], clean["decode"]["units_not_decoded"]);
  EXPECT_EQ(j["xxh3_128"], clean["xxh3_128"]);
  EXPECT_TRUE(j["targets"][0]["verified"].get<bool>());
  EXPECT_NE(j["decode"]["summary"].get<std::string>().find("wholly in free space not decoded (their checks not run)"),
            std::string::npos);
  run_fsck_and_compare(s, dev->path, tmp.path);
  auto v = run(piprov_bin() + " verify --progress none " + q(xz) + " " + dev->path);
  EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
  for (const std::string cmd : {" verify --full --progress none ", " write --yes --full --progress none "}) {
    auto f = run(piprov_bin() + cmd + q(xz) + " " + dev->path);
    EXPECT_EQ(f.exit_code, 3) << cmd << f.out << f.err;
    EXPECT_NE(f.err.find("is corrupt: block 62 (decoded bytes 65011712-66060288"), std::string::npos) << f.err;
  }
}

}  // namespace
}  // namespace piprov::test
