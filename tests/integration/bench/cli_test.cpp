// `piprov bench` end to end: safety refusals on loop devices, Ctrl-C cleanup,
// a target failing mid-run (device-mapper error target), JSON/SVG output.
#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "support/testsupport.hpp"

namespace fs = std::filesystem;
using piprov::test::run;

namespace {
std::string bin() { return piprov::test::piprov_bin(); }

int leftover_test_files(const fs::path& dir) {
  int n = 0;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().rfind(".piprov-bench-", 0) == 0) ++n;
  return n;
}
}  // namespace

TEST(BenchCli, RawWriteRefusedWithoutDestructive) {
  PIPROV_REQUIRE_LOOP();
  piprov::test::TempDir dir("bench-cli");
  piprov::test::LoopDevice loop(dir.path / "disk.img", 64 << 20);
  auto r = run(bin() + " bench --rw randwrite --runtime 0.2 --ramp 0 --no-progress " + loop.path);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("refusing to write to block device " + loop.path), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--destructive"), std::string::npos);
  EXPECT_EQ(r.out, "");
  // reads are non-destructive and allowed
  r = run(bin() + " bench --rw randread --runtime 0.2 --ramp 0 --no-progress --format csv " + loop.path);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\n" + loop.path + ",rand read 4k QD1,read,randread,4096,1,1,libaio,"), std::string::npos)
      << r.out;
}

TEST(BenchCli, RawWriteRefusedOnMountedDeviceEvenWithDestructive) {
  PIPROV_REQUIRE_LOOP();
  piprov::test::TempDir dir("bench-cli");
  piprov::test::LoopDevice loop(dir.path / "disk.img", 64 << 20);
  ASSERT_EQ(run("mkfs.ext4 -q -F " + loop.path).exit_code, 0);
  fs::create_directories(dir.path / "mnt");
  ASSERT_EQ(run("mount " + loop.path + " " + (dir.path / "mnt").string()).exit_code, 0);
  auto r = run(bin() + " bench --destructive --rw write --runtime 0.2 --ramp 0 --no-progress " + loop.path);
  auto r_dir = run(bin() + " bench --rw randwrite --runtime 0.3 --ramp 0 --size 8M --no-progress --format csv " +
                   (dir.path / "mnt").string());
  run("umount " + (dir.path / "mnt").string());
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("refusing to write to " + loop.path + ": it is mounted"), std::string::npos) << r.err;
  // the non-destructive way: a directory on that filesystem, test file removed afterwards
  EXPECT_EQ(r_dir.exit_code, 0) << r_dir.err;
  EXPECT_NE(r_dir.out.find(",rand write 4k QD1,write,randwrite,4096,"), std::string::npos) << r_dir.out;
}

TEST(BenchCli, CtrlCRemovesTheTestFileAndPrintsWhatFinished) {
  piprov::test::TempDir dir("bench-cli");
  std::string d = dir.path.string();
  auto r = run("(" + bin() + " bench --profile quick --runtime 3 --ramp 0 --size 8M --no-progress " + d + " > " + d +
               "/out.txt 2> " + d +
               "/err.txt) & pid=$!; "
               "for i in $(seq 300); do ls " +
               d +
               "/.piprov-bench-* >/dev/null 2>&1 && break; sleep 0.05; done; "
               "sleep 4.5; kill -INT $(pgrep -P $pid || echo $pid); wait $pid; echo rc=$?");
  std::string out = piprov::test::read_file(dir.path / "out.txt");
  std::string err = piprov::test::read_file(dir.path / "err.txt");
  EXPECT_NE(r.out.find("rc=130"), std::string::npos) << r.out << err;
  EXPECT_EQ(leftover_test_files(dir.path), 0);
  EXPECT_NE(out.find("seq read 4M QD32"), std::string::npos) << out;
  EXPECT_NE(out.find("interrupted"), std::string::npos) << out;
  EXPECT_NE(err.find("interrupted; test files removed"), std::string::npos) << err;
}

TEST(BenchCli, TargetFailingMidRunKeepsOtherResults) {
  PIPROV_REQUIRE_LOOP();
  piprov::test::TempDir dir("bench-cli");
  // A loop device whose 16 MiB sparse backing file sits on a 2 MiB tmpfs:
  // writes past the first 2 MiB fail (ENOSPC in the backing file -> EIO).
  fs::create_directories(dir.path / "small");
  auto mnt = run("mount -t tmpfs -o size=2M tmpfs " + (dir.path / "small").string());
  if (mnt.exit_code != 0) GTEST_SKIP() << "cannot mount tmpfs: " << mnt.err;
  std::string out, err;
  int code = -1;
  {
    piprov::test::LoopDevice loop(dir.path / "small" / "backing.img", 16 << 20);
    auto r = run(bin() + " bench --destructive --rw randwrite --runtime 1 --ramp 0 --size 8M --no-progress " +
                 dir.path.string() + " " + loop.path);
    out = r.out, err = r.err, code = r.exit_code;
    EXPECT_NE(out.find("B (" + loop.path + ") FAILED: job rand write 4k QD1: write of 4096 bytes at offset "),
              std::string::npos)
        << out;
    EXPECT_NE(err.find("piprov: error: " + loop.path), std::string::npos) << err;
  }
  run("umount " + (dir.path / "small").string());
  EXPECT_EQ(code, 3) << out << err;
  EXPECT_NE(out.find("No space left on device (ENOSPC)"), std::string::npos) << out;  // loop passes the errno on
  EXPECT_NE(out.find("A = " + dir.path.string()), std::string::npos) << out;
  // A's figures are kept: the row has a number in A's IOPS column
  EXPECT_NE(out.find("rand write 4k QD1"), std::string::npos);
  EXPECT_EQ(leftover_test_files(dir.path), 0);
}

TEST(BenchCli, QuickProfileJsonSvgAndImportBack) {
  piprov::test::TempDir dir("bench-cli");
  std::string d = dir.path.string();
  auto r = run(bin() + " bench --profile quick --runtime 0.3 --ramp 0 --size 16M --no-progress --json --svg " + d +
               "/chart.svg " + d + " > " + d + "/run.json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(piprov::test::read_file(dir.path / "run.json"));
  ASSERT_EQ(doc["targets"].size(), 1u);
  const auto& jobs = doc["targets"][0]["jobs"];
  ASSERT_EQ(jobs.size(), 4u);
  EXPECT_EQ(jobs[0]["test"], "seq read 4M QD32");
  EXPECT_EQ(jobs[3]["test"], "rand write 4k QD1 sync");
  for (const auto& j : jobs) {
    const auto& dirj = j["read"].is_object() ? j["read"] : j["write"];
    EXPECT_GT(dirj["ios"].get<int>(), 0);
    EXPECT_EQ(dirj["lat"]["samples"], dirj["ios"]);
    EXPECT_TRUE(dirj["lat"]["histogram"]["buckets"].is_array());
  }
  EXPECT_FALSE(doc["targets"][0]["device"]["name"].get<std::string>().empty());
  EXPECT_EQ(piprov::test::read_file(dir.path / "chart.svg").rfind("<svg", 0), 0u);
  EXPECT_EQ(leftover_test_files(dir.path), 0);
  auto imp = run(bin() + " bench import " + d + "/run.json");
  EXPECT_EQ(imp.exit_code, 0) << imp.err;
  EXPECT_NE(imp.out.find("rand write 4k QD1 sync"), std::string::npos) << imp.out;
}

TEST(BenchCli, UsageErrors) {
  EXPECT_EQ(run(bin() + " bench").exit_code, 2);
  EXPECT_EQ(run(bin() + " bench --profile nope /tmp").exit_code, 2);
  auto r = run(bin() + " bench --rw randread --bs 1000 --runtime 0.1 /tmp");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--bs 1000 is not a multiple"), std::string::npos) << r.err;
  piprov::test::TempDir dir("bench-cli");
  piprov::test::write_file(dir.path / "prose.txt", "no fio here\n");
  r = run(bin() + " bench import " + (dir.path / "prose.txt").string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no fio results found"), std::string::npos) << r.err;
}

TEST(BenchCli, ImportSeed004) {
  auto seed = piprov::test::shared_dir() / "seeds" / "004-pi4-usb-ssd-boot-and-benchmark.txt";
  if (!fs::exists(seed)) GTEST_SKIP() << seed << " is not present";
  auto r = run(bin() + " bench import --format csv " + seed.string());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(
      r.out.find("/dev/mmcblk0,seq read 4M QD32,read,read,4194304,32,1,libaio,665,61.469,10,43.3,45.4033,2935.76,"),
      std::string::npos)
      << r.out;
}

TEST(BenchCli, MissingDevicePathIsATypoNotATestFileOnDevtmpfs) {
  auto r = run(bin() + " bench --destructive --profile quick --no-progress /dev/piprov-no-such-disk1");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err, "piprov: error: /dev/piprov-no-such-disk1 does not exist; run 'piprov devices' to list disks\n");
  EXPECT_FALSE(fs::exists("/dev/piprov-no-such-disk1"));
}

// --destructive is consent to overwrite a test file, never a system file
// (the rule `piprov write` has).
TEST(BenchCli, DestructiveNeverWritesSystemFiles) {
  const std::string before = piprov::test::read_file("/etc/passwd");
  auto r = run(bin() + " bench --destructive --profile quick --runtime 1 --no-progress /etc/passwd");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err,
            "piprov: error: bench target /etc/passwd is a system file under /etc: piprov never writes there; give a "
            "directory for a test file of its own\n");
  EXPECT_EQ(piprov::test::read_file("/etc/passwd"), before);
}

TEST(BenchCli, OutOfRangeJobOptionsAreUsageErrors) {
  piprov::test::TempDir d;
  const std::string base = bin() + " bench --rw read --size 1M --no-progress ";
  struct Case {
    const char* opt;
    const char* err;
  } cases[] = {
      {"--runtime -1",
       "piprov: error: --runtime: must be a number of seconds from 0.01 to 86400, got '-1' (see --help)\n"},
      {"--runtime nan",
       "piprov: error: --runtime: must be a number of seconds from 0.01 to 86400, got 'nan' (see --help)\n"},
      {"--ramp -5", "piprov: error: --ramp: must be a number of seconds from 0 to 3600, got '-5' (see --help)\n"},
      {"--iodepth 0", "piprov: error: --iodepth: must be a whole number from 1 to 4096, got '0' (see --help)\n"},
      // The limits validate() applies (bench/options.hpp), not looser ones of the command line's own.
      {"--iodepth 4097", "piprov: error: --iodepth: must be a whole number from 1 to 4096, got '4097' (see --help)\n"},
      {"--numjobs 0", "piprov: error: --numjobs: must be a whole number from 1 to 256, got '0' (see --help)\n"},
      {"--numjobs 257", "piprov: error: --numjobs: must be a whole number from 1 to 256, got '257' (see --help)\n"},
      {"--rwmixread 200", "piprov: error: --rwmixread: must be a whole number from 0 to 100, got '200' (see --help)\n"},
  };
  for (const auto& c : cases) {
    auto r = run(base + c.opt + " " + d.path.string());
    EXPECT_EQ(r.exit_code, 2) << c.opt;
    EXPECT_EQ(r.err, c.err) << c.opt;
    EXPECT_EQ(leftover_test_files(d.path), 0) << c.opt;
  }
}

TEST(BenchCli, ImportRefusesAnEndlessInput) {
  auto r = run(bin() + " bench import /dev/zero");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "piprov: error: fio output /dev/zero is over 64 MiB: not a fio output (give fio's json or text output)\n");
}
