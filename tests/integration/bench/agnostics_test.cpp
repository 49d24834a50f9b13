// `piprov bench --profile agnostics` end to end: on an emulated microSD card
// (scripts/emulate-device.sh microsd: a throttled loop device) and on a
// test file in a directory. The verdict must follow the measured figures and
// sdtest.sh's thresholds, whichever way they fall.
#include <gtest/gtest.h>

#include <unistd.h>
#include <nlohmann/json.hpp>

#include "support/testsupport.hpp"

namespace piprov::test {
namespace {

// Checks the JSON report's agnostics verdict against its own job figures and
// returns the overall verdict.
std::string check_verdict(const nlohmann::json& target) {
  const auto& jobs = target["jobs"];
  EXPECT_EQ(jobs.size(), 4u);
  auto figure = [&](const std::string& name, const char* dir, bool iops) {
    for (const auto& j : jobs)
      if (j["name"] == name) return iops ? j[dir]["iops"].get<double>() : j[dir]["bw_bytes"].get<double>() / 1024;
    ADD_FAILURE() << "no job " << name;
    return -1.0;
  };
  const double seq_kib = figure("seq-write", "write", false), rand_w = figure("rand-4k-write", "write", true),
               rand_r = figure("rand-4k-read", "read", true);
  const auto& lines = target["agnostics"]["lines"];
  EXPECT_EQ(lines.size(), 3u);
  const double measured[] = {seq_kib, rand_w, rand_r}, thresholds[] = {10000, 500, 1500};
  bool all = true;
  for (std::size_t i = 0; i < 3 && i < lines.size(); ++i) {
    EXPECT_NEAR(lines[i]["measured"].get<double>(), measured[i], 1e-6 * measured[i]);
    EXPECT_EQ(lines[i]["threshold"].get<double>(), thresholds[i]);
    bool pass = measured[i] >= thresholds[i];
    all &= pass;
    EXPECT_EQ(lines[i]["result"], pass ? "PASS" : "FAIL") << lines[i];
  }
  EXPECT_EQ(target["agnostics"]["overall"], all ? "PASS" : "FAIL");
  return target["agnostics"]["overall"];
}

TEST(BenchAgnostics, EmulatedMicroSdVerdictFollowsTheThresholds) {
  PIPROV_REQUIRE_LOOP();
  const std::string emulate = q((source_dir() / "scripts/emulate-device.sh").string());
  if (auto a = run(emulate + " available 2>&1"); a.exit_code != 0) PIPROV_SKIP("no emulated devices here: " << a.out);
  TempDir tmp("piprov-agnostics");
  const std::string e = "EMULATE_DIR=" + q(tmp.path.string()) + " " + emulate;
  const std::string name = "bench-agn-" + std::to_string(::getpid());
  auto created = run(e + " create " + name + " microsd 64M");
  ASSERT_EQ(created.exit_code, 0) << created.err;
  const std::string dev = created.out.substr(0, created.out.find('\n'));
  // Small: 16 MiB range, 1 s for the random jobs (sd_bench.fio: 64 MiB, 10 s).
  const std::string cmd = e + " run -- " + piprov_bin() + " bench --profile agnostics --size 16M --runtime 1 " +
                          "--destructive --no-progress " + dev;
  auto json = run(cmd + " --json");
  auto table = run(cmd);
  run(e + " destroy " + name);
  ASSERT_TRUE(json.exit_code == 0 || json.exit_code == 1) << json.err;
  auto doc = nlohmann::json::parse(json.out);
  ASSERT_EQ(doc["targets"].size(), 1u);
  std::string overall = check_verdict(doc["targets"][0]);
  EXPECT_EQ(json.exit_code, overall == "FAIL" ? 1 : 0);
  // The microsd profile's 163 write IOPS are far below 500: the throttle works, the test fails.
  EXPECT_EQ(doc["targets"][0]["agnostics"]["lines"][1]["result"], "FAIL");
  EXPECT_EQ(table.exit_code, 1) << table.err;
  EXPECT_NE(table.out.find(dev + ": Random write speed "), std::string::npos) << table.out;
  EXPECT_NE(table.out.find(dev + ": Raspberry Pi SD card test (agnostics): FAIL"), std::string::npos) << table.out;
}

TEST(BenchAgnostics, OnATestFileInADirectory) {
  TempDir dir("piprov-agnostics");
  auto r = run(piprov_bin() + " bench --profile agnostics --size 4M --runtime 0.3 --no-progress --json " +
               q(dir.path.string()));
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  std::string overall = check_verdict(doc["targets"][0]);
  EXPECT_EQ(r.exit_code, overall == "FAIL" ? 1 : 0);
  for (const auto& j : doc["targets"][0]["jobs"]) {
    const auto& d = j["read"].is_object() ? j["read"] : j["write"];
    if (j["name"] == "prepare-file" || j["name"] == "seq-write") EXPECT_EQ(d["bytes"], 4 << 20) << j["name"];
  }
  EXPECT_EQ(run("ls -a " + q(dir.path.string()) + " | grep -c piprov-bench").out, "0\n");
}

}  // namespace
}  // namespace piprov::test
