// `piprov write --json` and `piprov verify --json` (docs/write.md "Output").
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "image/verify.hpp"
#include "image/write.hpp"

namespace piprov::image {
namespace {

TEST(WriteResultJson, HasTheDocumentedKeysAndRates) {
  WriteResult r;
  r.image = "ubuntu.img.xz";
  r.target = "/dev/sdb";
  r.format = "xz";
  r.decoder_threads = 2;
  r.input_bytes = 400;
  r.bytes_written = 2000;
  r.write_seconds = 4;
  r.verify_seconds = 2;
  r.verified = true;
  r.xxh3_128 = "922d5e69cbfb6edb201a9cdde3538ae2";
  r.unmounted = {"/dev/sdb2 on /media/u/writable"};
  r.partitions = {"/dev/sdb1", "/dev/sdb2"};
  nlohmann::json j = write_result_json(r);
  EXPECT_EQ(j["image"], "ubuntu.img.xz");
  EXPECT_EQ(j["target"], "/dev/sdb");
  EXPECT_EQ(j["format"], "xz");
  EXPECT_EQ(j["decoder_threads"], 2);
  EXPECT_EQ(j["input_bytes"], 400);
  EXPECT_EQ(j["bytes_written"], 2000);
  EXPECT_EQ(j["write_seconds"], 4.0);
  EXPECT_EQ(j["write_bytes_per_second"], 500.0);
  EXPECT_EQ(j["verified"], true);
  EXPECT_EQ(j["verify_seconds"], 2.0);
  EXPECT_EQ(j["verify_bytes_per_second"], 1000.0);
  EXPECT_EQ(j["xxh3_128"], "922d5e69cbfb6edb201a9cdde3538ae2");
  EXPECT_TRUE(j["sha256"].is_null());
  EXPECT_EQ(j["unmounted"], nlohmann::json::array({"/dev/sdb2 on /media/u/writable"}));
  EXPECT_EQ(j["partitions"], nlohmann::json::array({"/dev/sdb1", "/dev/sdb2"}));
  EXPECT_EQ(j.size(), 15u);
}

TEST(WriteResultJson, UnverifiedHasNoVerifyRateAndShaIsAString) {
  WriteResult r;
  r.bytes_written = 100;
  r.write_seconds = 0;  // too fast to measure: no division by zero
  r.verify_seconds = 3;
  r.sha256 = "ab";
  nlohmann::json j = write_result_json(r);
  EXPECT_EQ(j["write_bytes_per_second"], 0.0);
  EXPECT_EQ(j["verify_bytes_per_second"], 0.0);
  EXPECT_EQ(j["sha256"], "ab");
}

TEST(VerifyResultJson, HasTheDocumentedKeys) {
  VerifyResult r;
  r.image = "t.img.xz";
  r.target = "/dev/loop3";
  r.format = "xz";
  r.bytes = 3000;
  r.seconds = 1.5;
  r.xxh3_128 = "00112233445566778899aabbccddeeff";
  nlohmann::json j = verify_result_json(r);
  EXPECT_EQ(j, nlohmann::json({{"image", "t.img.xz"},
                               {"target", "/dev/loop3"},
                               {"format", "xz"},
                               {"bytes", 3000},
                               {"seconds", 1.5},
                               {"bytes_per_second", 2000.0},
                               {"xxh3_128", "00112233445566778899aabbccddeeff"},
                               {"match", true}}));
}

}  // namespace
}  // namespace piprov::image
