// `piprov write --json` and `piprov verify --json` (docs/write.md "Output").
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "image/verify.hpp"
#include "image/write.hpp"

namespace piprov::image {
namespace {

WriteResult sample() {
  WriteResult r;
  r.image = "ubuntu.img.xz";
  r.format = "xz";
  r.decoder_threads = 2;
  r.input_bytes = 400;
  r.image_bytes = 2000;
  r.write_seconds = 5;
  r.verify_seconds = 2;
  r.xxh3_128 = "922d5e69cbfb6edb201a9cdde3538ae2";
  TargetOutcome ok;
  ok.target = "/dev/sdb";
  ok.ok = true;
  ok.bytes_written = 2000;
  ok.write_seconds = 4;
  ok.verify_seconds = 2;
  ok.verified = true;
  ok.unmounted = {"/dev/sdb2 on /media/u/writable"};
  ok.partitions = {"/dev/sdb1", "/dev/sdb2"};
  ok.usb = usb_link_from_speed("480", piprov::UsbDriver::Uas);
  TargetOutcome bad;
  bad.target = "/dev/sdc";
  bad.error_kind = ErrorKind::Io;
  bad.error = "writing /dev/sdc failed at byte offset 1048576 (1.0 MiB): Input/output error (EIO)";
  bad.failed_offset = 1048576;
  bad.bytes_written = 1048576;
  r.targets = {ok, bad};
  r.speed.verdict = "device-bound";
  r.speed.xz_blocks = 7;
  r.speed.usable_threads = 2;
  return r;
}

TEST(WriteResultJson, HasTheSchemaStreamFieldsAndOneObjectPerTarget) {
  nlohmann::json j = write_result_json(sample());
  EXPECT_EQ(j["schema"], "piprov.write/3");
  EXPECT_EQ(j["image"], "ubuntu.img.xz");
  EXPECT_EQ(j["format"], "xz");
  EXPECT_EQ(j["decoder_threads"], 2);
  EXPECT_EQ(j["input_bytes"], 400);
  EXPECT_EQ(j["image_bytes"], 2000);
  EXPECT_EQ(j["xxh3_128"], "922d5e69cbfb6edb201a9cdde3538ae2");
  EXPECT_TRUE(j["sha256"].is_null());
  EXPECT_EQ(j["succeeded"], 1);
  EXPECT_EQ(j["failed"], 1);
  ASSERT_EQ(j["targets"].size(), 2u);
  const auto& t = j["targets"][0];
  EXPECT_EQ(t["target"], "/dev/sdb");
  EXPECT_EQ(t["ok"], true);
  EXPECT_TRUE(t["error"].is_null());
  EXPECT_EQ(t["bytes_written"], 2000);
  EXPECT_EQ(t["write_bytes_per_second"], 500.0);
  EXPECT_EQ(t["verified"], true);
  EXPECT_EQ(t["verify_bytes_per_second"], 1000.0);
  EXPECT_EQ(t["unmounted"], nlohmann::json::array({"/dev/sdb2 on /media/u/writable"}));
  EXPECT_EQ(t["partitions"], nlohmann::json::array({"/dev/sdb1", "/dev/sdb2"}));
  EXPECT_EQ(t["usb"]["speed_mbps"], 480.0);
  EXPECT_EQ(t["usb"]["version"], "USB 2.0");
  const auto& f = j["targets"][1];
  EXPECT_EQ(f["ok"], false);
  EXPECT_EQ(f["error"]["kind"], "io");
  EXPECT_EQ(f["error"]["exit_code"], 3);
  EXPECT_EQ(f["error"]["offset"], 1048576);
  EXPECT_EQ(f["verify_bytes_per_second"], 0.0);
  EXPECT_TRUE(f["usb"].is_null());
  EXPECT_EQ(j["speed"]["verdict"], "device-bound");
  EXPECT_EQ(j["speed"]["xz_blocks"], 7);
  EXPECT_EQ(j["speed"]["usable_threads"], 2);
}

TEST(WriteResultJson, UnmeasuredTimesGiveZeroRatesAndShaIsAString) {
  WriteResult r = sample();
  r.targets[0].write_seconds = 0;  // too fast to measure: no division by zero
  r.targets[0].verified = false;
  r.sha256 = "ab";
  nlohmann::json j = write_result_json(r);
  EXPECT_EQ(j["targets"][0]["write_bytes_per_second"], 0.0);
  EXPECT_EQ(j["targets"][0]["verify_bytes_per_second"], 0.0);
  EXPECT_EQ(j["sha256"], "ab");
}

TEST(VerifyResultJson, HasTheDocumentedKeys) {
  VerifyResult r;
  r.image = "t.img.xz";
  r.target = "/dev/loop3";
  r.format = "xz";
  r.bytes = 3000;
  r.skipped_bytes = 1000;
  r.seconds = 1.5;
  r.xxh3_128 = "00112233445566778899aabbccddeeff";
  nlohmann::json j = verify_result_json(r);
  EXPECT_EQ(j, nlohmann::json({{"schema", "piprov.verify/2"},
                               {"image", "t.img.xz"},
                               {"target", "/dev/loop3"},
                               {"format", "xz"},
                               {"bytes", 3000},
                               {"compared_bytes", 2000},
                               {"skipped_bytes", 1000},
                               {"seconds", 1.5},
                               {"bytes_per_second", 2000.0 / 1.5},  // of the 2000 bytes compared
                               {"xxh3_128", "00112233445566778899aabbccddeeff"},
                               {"match", true}}));
}

}  // namespace
}  // namespace piprov::image
