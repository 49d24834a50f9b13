// The text of write and verify (image/result_text.hpp): every line from a
// result whose figures are known, the verdict words and the exit policy.
#include <gtest/gtest.h>

#include "image/result_text.hpp"

namespace piprov::image {
namespace {

/// A written and verified target: 64 MiB in 2.0 s, 16 MiB of it skipped free space, verified in 1.0 s.
TargetOutcome text_target(const std::string& path) {
  TargetOutcome t;
  t.target = path;
  t.ok = true;
  t.bytes_written = 64u << 20;
  t.bytes_skipped = 16u << 20;
  t.write_seconds = 2.0;
  t.verify_seconds = 1.0;
  t.verified = true;
  return t;
}

WriteResult text_result() {
  WriteResult r;
  r.image = "in.img.xz";
  r.format = "xz";
  r.input_bytes = 8u << 20;
  r.image_bytes = 64u << 20;
  r.write_seconds = 2.0;
  r.xxh3_128 = "00112233445566778899aabbccddeeff";
  r.skip_line = "wrote 48.0 MiB of 64.0 MiB; skipped 16.0 MiB free in writable";
  r.speed.verdict_line = "device-bound: writers waited 0.1 s for the decoder, the decoder waited 1.5 s for the writers";
  r.speed.decode_note = "1 block: decoded on 1 core";
  r.speed.verify_waited_for_device_seconds = 0.5;
  r.speed.verify_waited_for_hashing_seconds = 0.3;
  return r;
}

TEST(ResultText, OneTargetSummaryNamesRatesOfTheBytesWritten) {
  WriteResult r = text_result();
  r.targets = {text_target("/dev/sdb")};
  EXPECT_EQ(write_summary(r),
            "wrote the 64.0 MiB image (xz 8.0 MiB) to /dev/sdb in 2.00 s (48.0 MiB written at 24.0 MiB/s); verified in "
            "1.00 s "
            "(48.0 MiB/s), the 48.0 MiB written (skipped free space not compared); XXH3-128 "
            "00112233445566778899aabbccddeeff\n"
            "wrote 48.0 MiB of 64.0 MiB; skipped 16.0 MiB free in writable\n"
            "speed: device-bound: writers waited 0.1 s for the decoder, the decoder waited 1.5 s for the writers; 1 "
            "block: decoded on 1 core\n"
            "verify: device-bound: reads kept the comparer waiting 0.5 s, hashing kept the reads waiting 0.3 s");
  EXPECT_EQ(write_exit_code(r), 0);
}

TEST(ResultText, SeveralTargetsListEachAndAFailureIsPartial) {
  WriteResult r = text_result();
  r.sha256 = "ab";
  TargetOutcome bad;
  bad.target = "/dev/sdc";
  bad.error = "write to /dev/sdc failed: EIO";
  bad.failed_offset = 4096;
  TargetOutcome unverified = text_target("/dev/sdd");
  unverified.verified = false;
  unverified.bytes_skipped = 0;
  r.targets = {text_target("/dev/sdb"), bad, unverified};
  r.speed.slowest_target = "/dev/sdb";
  const std::string s = write_summary(r);
  EXPECT_EQ(s.substr(0, s.find('\n')),
            "wrote the 64.0 MiB image (xz 8.0 MiB) to 2 of 3 targets in 2.00 s; SHA-256 ok; XXH3-128 "
            "00112233445566778899aabbccddeeff");
  EXPECT_NE(s.find("\n  /dev/sdc: FAILED at byte offset 4096: write to /dev/sdc failed: EIO\n"), std::string::npos)
      << s;
  EXPECT_NE(s.find("\n  /dev/sdd: ok, written in 2.00 s (32.0 MiB/s), not verified (--no-verify)\n"), std::string::npos)
      << s;
  EXPECT_NE(s.find("\nslowest target: /dev/sdb\n"), std::string::npos) << s;
  EXPECT_EQ(write_exit_code(r), 5);  // ErrorKind::Partial
}

TEST(ResultText, VerifySummarySaysWhatWasNotCompared) {
  VerifyResult v;
  v.image = "in.img";
  v.target = "/dev/sdb";
  v.format = "raw";
  v.bytes = 64u << 20;
  v.seconds = 2.0;
  v.xxh3_128 = "ff";
  EXPECT_EQ(verify_summary(v),
            "verified: /dev/sdb matches in.img (64.0 MiB, raw) in 2.00 s (32.0 MiB/s); XXH3-128 ff\n");
  v.skipped_bytes = 16u << 20;
  EXPECT_EQ(verify_summary(v),
            "verified: /dev/sdb matches in.img (64.0 MiB, raw) in 2.00 s (24.0 MiB/s); XXH3-128 ff\n"
            "compared 48.0 MiB written; 16.0 MiB free space not compared (as piprov write skips it; --full compares "
            "it)\n");
}

}  // namespace
}  // namespace piprov::image
