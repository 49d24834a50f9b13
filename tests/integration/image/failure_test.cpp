// Failures say what and where, exit with the documented code, never say
// "wrote", and never leave the image's MBR on the disk.
#include <gtest/gtest.h>
#include <unistd.h>

#include "fixtures.hpp"
#include "support/testsupport.hpp"

namespace piprov::test {
namespace {

TEST(WriteFailure, TruncatedXzFailsBeforeWritingAnything) {
  PIPROV_REQUIRE_LOOP();
  const auto& fx = image_fixtures();
  TempDir tmp("piprov-fail");
  LoopDevice dev(tmp.path / "dev.img", kDevBytes);
  auto r = run(write_cmd((fx / "trunc.img.xz").string(), dev.path));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "piprov: error: " + (fx / "trunc.img.xz").string() +
                       " is truncated or corrupt: the xz index at its end cannot be read, so the file is incomplete "
                       "or damaged; download it again\n");
  EXPECT_TRUE(all_zero(read_bytes(dev.backing, 0, 8 << 20)));
}

TEST(WriteFailure, FlippedByteInXzFailsAndLeavesNoMbr) {
  PIPROV_REQUIRE_LOOP();
  const auto& fx = image_fixtures();
  TempDir tmp("piprov-fail");
  LoopDevice dev(tmp.path / "dev.img", kDevBytes);
  auto r = run(write_cmd((fx / "flip.img.xz").string(), dev.path));
  EXPECT_EQ(r.exit_code, 3);  // a corrupt block of a multi-block .xz (xz -T0): exit 3, at its offset (issue 27)
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.rfind("piprov: error: " + (fx / "flip.img.xz").string() + " is corrupt: block ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("the first MiB was not written, so " + dev.path + " does not look bootable"), std::string::npos)
      << r.err;
  EXPECT_TRUE(all_zero(read_bytes(dev.backing, 0, 1 << 20)));
}

TEST(WriteFailure, IoErrorMidWriteNamesOffsetAndExits3) {
  PIPROV_REQUIRE_LOOP();
  const auto& fx = image_fixtures();
  TempDir tmp("piprov-fail");
  Mount mnt("tmpfs", tmp.path / "tmpfs", "tmpfs", "size=96m");
  std::string err, mbr;
  int code = -1;
  {
    LoopDevice dev(mnt.dir / "dev.img", kDevBytes);  // 400 MiB on a 96 MiB tmpfs: fills up mid-write
    // --full: skipping the free space (and discarding it) would write only ~64 MiB of the image.
    auto r = run(write_cmd((fx / "t.img.xz").string(), dev.path, "--yes --full"));
    code = r.exit_code;
    err = r.err;
    mbr = read_bytes(dev.path, 0, 512);
    EXPECT_EQ(r.out, "");
  }
  EXPECT_EQ(code, 3) << err;
  EXPECT_EQ(err.rfind("piprov: error: writing /dev/loop", 0), 0u) << err;
  EXPECT_NE(err.find(" failed at byte offset "), std::string::npos) << err;
  EXPECT_TRUE(err.find("(ENOSPC)") != std::string::npos || err.find("(EIO)") != std::string::npos) << err;
  EXPECT_NE(err.find("the first MiB was not written"), std::string::npos) << err;
  EXPECT_NE(mbr, read_bytes(fx / "t.img", 0, 512));
}

TEST(WriteFailure, StreamOfUnknownSizeStopsWhenTheDeviceIsFull) {
  PIPROV_REQUIRE_LOOP();
  const auto& fx = image_fixtures();
  TempDir tmp("piprov-fail");
  LoopDevice dev(tmp.path / "dev.img", 64ull << 20);  // gzip does not say its size: found out while writing
  auto r = run(write_cmd((fx / "t.img.gz").string(), dev.path));
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.rfind("piprov: error: " + dev.path +
                            " is full: the image does not fit in its 64.0 MiB (stopped at "
                            "byte offset 67108864); ",
                        0),
            0u)
      << r.err;
  EXPECT_NE(r.err.find("the first MiB was not written, so " + dev.path + " does not look bootable"), std::string::npos);
  EXPECT_TRUE(all_zero(read_bytes(dev.backing, 0, 1 << 20)));
}

TEST(WriteFailure, Sha256MismatchExits4BeforeAnyByteIsWritten) {
  PIPROV_REQUIRE_LOOP();
  const auto& fx = image_fixtures();
  TempDir tmp("piprov-fail");
  LoopDevice dev(tmp.path / "dev.img", kDevBytes);
  std::string zeros(64, '0');
  auto r = run(write_cmd((fx / "t.img.xz").string(), dev.path, "--yes --sha256 " + zeros));
  EXPECT_EQ(r.exit_code, 4);
  auto sha = run("sha256sum " + q((fx / "t.img.xz").string())).out.substr(0, 64);
  EXPECT_EQ(r.err.rfind("piprov: error: SHA-256 of " + (fx / "t.img.xz").string() + " is " + sha + ", expected " +
                            zeros + ": the file is not the published one; download it again; nothing was written\n",
                        0),
            0u)
      << r.err;
  // Checked before the first byte: the whole disk is as it was, not only its first MiB.
  EXPECT_TRUE(all_zero(read_bytes(dev.backing, 0, 16 << 20)));
}

TEST(VerifyStep, ChangedByteIsReportedAtItsOffsetWithExit4) {
  PIPROV_REQUIRE_LOOP();
  const auto& fx = image_fixtures();
  TempDir tmp("piprov-fail");
  LoopDevice dev(tmp.path / "dev.img", kDevBytes);
  ASSERT_EQ(run(write_cmd((fx / "t.img.xz").string(), dev.path, "--yes --no-verify")).exit_code, 0);
  auto ok = run(piprov_bin() + " verify --progress none " + q((fx / "t.img.xz").string()) + " " + dev.path);
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(ok.out.rfind("verified: " + dev.path + " matches ", 0), 0u) << ok.out;

  // Inside the ext4 partition, not 4 KiB aligned; in its free space, which
  // only --full compares (a plain verify passes: WriteSkipFree's tests).
  const std::uint64_t at = 200000003;
  unsigned char was = static_cast<unsigned char>(read_bytes(dev.backing, at, 1)[0]);
  ASSERT_EQ(run("printf '\\377' | dd of=" + q(dev.backing.string()) + " bs=1 seek=" + std::to_string(at) +
                " conv=notrunc status=none")
                .exit_code,
            0);
  ASSERT_NE(was, 0xff);
  auto bad = run(piprov_bin() + " verify --full --progress none " + q((fx / "t.img.xz").string()) + " " + dev.path);
  EXPECT_EQ(bad.exit_code, 4);
  EXPECT_EQ(bad.out, "");
  char expect[200];
  std::snprintf(expect, sizeof expect, "at byte offset %llu (0xbebc203, 190.7 MiB): expected 0x%02x, read 0xff",
                static_cast<unsigned long long>(at), was);
  // ... and says the byte is free space a write skips (where a disk without discard keeps old data).
  EXPECT_EQ(bad.err, "piprov: error: verify failed: " + dev.path + " differs from " + (fx / "t.img.xz").string() + " " +
                         expect +
                         "; this byte is free space of the image's file system, which piprov write skips: a disk "
                         "without discard keeps its old data there (piprov verify without --full does not compare "
                         "it; piprov write --full overwrites it)\n");
}

// A difference in the MBR disk identifier (bytes 440-443) is explained as
// provision's renewed identifier, but only on a disk that has an MBR itself.
TEST(VerifyStep, DiskIdentifierHintOnlyWhereTheDiskHasAnMbr) {
  PIPROV_REQUIRE_LOOP();
  const auto& fx = image_fixtures();
  TempDir tmp("piprov-fail");
  LoopDevice dev(tmp.path / "dev.img", kDevBytes);
  ASSERT_EQ(run(write_cmd((fx / "t.img.xz").string(), dev.path, "--yes --no-verify")).exit_code, 0);
  auto poke = [&](std::uint64_t at, const std::string& octal_bytes) {
    ASSERT_EQ(run("printf '" + octal_bytes + "' | dd of=" + q(dev.backing.string()) +
                  " bs=1 seek=" + std::to_string(at) + " conv=notrunc status=none")
                  .exit_code,
              0);
  };
  const std::string verify = piprov_bin() + " verify --progress none " + q((fx / "t.img.xz").string()) + " " + dev.path;
  poke(440, "\\001\\002\\003\\004");
  auto id = run(verify);
  EXPECT_EQ(id.exit_code, 4);
  EXPECT_NE(id.err.find("; bytes 440-443 are the MBR disk identifier"), std::string::npos) << id.err;
  poke(510, "\\000\\000");  // no MBR signature left on the disk
  auto none = run(verify);
  EXPECT_EQ(none.exit_code, 4);
  EXPECT_EQ(none.err.find("MBR disk identifier"), std::string::npos) << none.err;
}

}  // namespace
}  // namespace piprov::test

namespace piprov::test {
namespace {

// Ctrl-C mid-write: exit 130, says how far it got, no MBR left. The write is
// slowed down by scripts/emulate-device.sh (microsd: 25.5 MiB/s, 13 s for the
// image) so the signal arrives while it runs; the signal is sent after the
// first progress line, not after a fixed time.
TEST(WriteInterrupt, SigintStopsCleanlyWithExit130) {
  PIPROV_REQUIRE_LOOP();
  const std::string emulate = q((source_dir() / "scripts/emulate-device.sh").string());
  if (auto a = run(emulate + " available 2>&1"); a.exit_code != 0) PIPROV_SKIP("no emulated devices here: " << a.out);
  const auto& fx = image_fixtures();
  TempDir tmp("piprov-int");
  std::string e = "EMULATE_DIR=" + q(tmp.path.string()) + " " + emulate;
  std::string name = "image-int-" + std::to_string(::getpid());
  auto created = run(e + " create " + name + " microsd 512M");
  ASSERT_EQ(created.exit_code, 0) << created.err;
  std::string dev = created.out.substr(0, created.out.find('\n'));
  std::string err = (tmp.path / "err").string();
  auto r = run(e + " run -- " + piprov_bin() + " write --yes --progress json " + q((fx / "t.img.xz").string()) + " " +
               dev + " 2>" + q(err) + " & pid=$!; i=0; while [ $i -lt 1200 ] && ! grep -q '\"phase\":\"write\"' " +
               q(err) + "; do sleep 0.05; i=$((i+1)); done; kill -INT $pid; wait $pid; echo $?");
  std::string mbr = read_bytes(dev, 0, 512);
  run(e + " destroy " + name);
  std::string log = read_file(err);
  if (r.out == "0\n") PIPROV_SKIP("the write finished before the signal (device not throttled here?)");
  EXPECT_EQ(r.out, "130\n") << log;
  EXPECT_NE(log.find("piprov: error: interrupted while writing; "), std::string::npos) << log;
  EXPECT_NE(log.find(" of 321.0 MiB written; the first MiB was not written, so " + dev + " does not look bootable"),
            std::string::npos)
      << log;
  EXPECT_NE(mbr, read_bytes(fx / "t.img", 0, 512));
}

}  // namespace
}  // namespace piprov::test
