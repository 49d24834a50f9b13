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
  EXPECT_EQ(r.err, "piprov: error: " + loop.path +
                       " is an existing block device: the write tests would overwrite its data; pass --destructive if "
                       "you mean it, or give a directory for a test file of its own\n");
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
  piprov::test::RunResult r, r_dir;
  {
    piprov::test::Mount mnt(loop.path, dir.path / "mnt");
    r = run(bin() + " bench --destructive --rw write --runtime 0.2 --ramp 0 --no-progress " + loop.path);
    r_dir = run(bin() + " bench --rw randwrite --runtime 0.3 --ramp 0 --size 8M --no-progress --format csv " +
                mnt.dir.string());
  }
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(r.err, "piprov: error: " + loop.path + " has mounted file systems (" + loop.path + " on " +
                       (dir.path / "mnt").string() +
                       "): unmount them or give a directory for a test file of its own\n");
  // the non-destructive way: a directory on that filesystem, test file removed afterwards
  EXPECT_EQ(r_dir.exit_code, 0) << r_dir.err;
  EXPECT_NE(r_dir.out.find(",rand write 4k QD1,write,randwrite,4096,"), std::string::npos) << r_dir.out;
}

TEST(BenchCli, CtrlCRemovesTheTestFileAndPrintsWhatFinished) {
  PIPROV_REQUIRE_TOOL("script");
  piprov::test::TempDir dir("bench-cli");
  std::string d = dir.path.string();
  using piprov::test::q;
  // stderr on a terminal (script(1)'s pty, logged to tty.log) so the progress
  // line names the running job; Ctrl-C goes to piprov once job 2 of 4 has
  // started, i.e. when the first one has finished.
  std::string inner = "echo $$ > " + q(d + "/pid") + "; exec " + bin() +
                      " bench --profile quick --runtime 3 --ramp 0 " + "--size 8M " + q(d) + " > " + q(d + "/out.txt");
  auto r = run("script -qfec " + q(inner) + " " + q(d + "/tty.log") + " >/dev/null & s=$!; i=0; " +
               "while [ $i -lt 1200 ] && ! grep -qF '[2/4]' " + q(d + "/tty.log") + " 2>/dev/null; do sleep 0.05; " +
               "i=$((i+1)); done; kill -INT $(cat " + q(d + "/pid") + "); wait $s; echo rc=$?");
  std::string out = piprov::test::read_file(dir.path / "out.txt");
  std::string err = piprov::test::read_file(dir.path / "tty.log");
  EXPECT_NE(r.out.find("rc=130"), std::string::npos) << r.out << err;
  EXPECT_EQ(leftover_test_files(dir.path), 0);
  EXPECT_NE(out.find("seq read 4M QD32"), std::string::npos) << out;
  EXPECT_NE(out.find("interrupted"), std::string::npos) << out;
  EXPECT_NE(err.find("interrupted; test files removed"), std::string::npos) << err;
}

TEST(BenchCli, TargetFailingMidRunKeepsOtherResults) {
  PIPROV_REQUIRE_LOOP();
  piprov::test::TempDir dir("bench-cli");
  // A loop device whose 16 MiB sparse backing file sits on a 128 KiB tmpfs:
  // the 33rd distinct 4 KiB block written fails (ENOSPC in the backing file),
  // well within the 1 s run even on a slow, loaded machine (a 2 MiB tmpfs
  // needed 512 distinct blocks, more than a sanitizer build wrote in 1 s).
  piprov::test::Mount small("tmpfs", dir.path / "small", "tmpfs", "size=128k");
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
  if (!fs::exists(seed)) PIPROV_SKIP(seed << " is not present");
  auto r = run(bin() + " bench import --format csv " + seed.string());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(
      r.out.find("/dev/mmcblk0,seq read 4M QD32,read,read,4194304,32,1,libaio,665,61.469,10,43.3,45.4033,2935.76,"),
      std::string::npos)
      << r.out;
}

// A failed fio job (14: "error" : 22 after three error lines) is printed and
// makes the import exit 3 naming the job and errno; never "no fio results".
TEST(BenchCli, ImportFailedJobExits3NamingJobAndErrno) {
  PIPROV_REQUIRE_SHARED("fio/14_fio-3.33_json_failed-job-error22_preamble.json", f);
  auto r = run(bin() + " bench import " + f.string());
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_EQ(r.err,
            "piprov: error: job 1m failed: Invalid argument (fio error 22) [fio-3.33 "
            "(14_fio-3.33_json_failed-job-error22_preamble.json)]\n");
  EXPECT_NE(r.out.find("A job 1m failed: Invalid argument (fio error 22)"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("no fio results"), std::string::npos);
  // with a good output beside it: that one's figures are printed too, the exit code stays 3
  PIPROV_REQUIRE_SHARED("fio/12_fio-3.36_terse_randrw_single-line.txt", ok);
  r = run(bin() + " bench import --format csv " + f.string() + " " + ok.string());
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.out.find("nvme0n1,probe,read,,,,1,,994,0.064,15531,"), std::string::npos) << r.out;
}

TEST(BenchCli, ImportReadsStandardInput) {
  PIPROV_REQUIRE_SHARED("fio/13_fio-3.32_terse+normal_randread_psync.txt", f);
  auto r = run(bin() + " bench import --format csv - < " + piprov::test::q(f.string()));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("vda,rand read 4k QD1,read,randread,4096,1,1,psync,33383,10.001,3337,13,"), std::string::npos)
      << r.out;
  r = run(bin() + " bench import - < /dev/null");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("standard input: no fio results found"), std::string::npos) << r.err;
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
            "piprov: error: /etc/passwd is an existing system file: piprov never overwrites files under /etc; give a "
            "directory for a test file of its own\n");
  EXPECT_EQ(piprov::test::read_file("/etc/passwd"), before);
}

// Nor a test file in, or a new file under, a system directory.
TEST(BenchCli, NeverCreatesTestFilesUnderSystemDirectories) {
  for (const char* target : {"/etc", "/usr/lib", "/etc/piprov-bench-new"}) {
    auto r = run(bin() + " bench --profile quick --only rand-write --runtime 1 --size 4M --no-progress --destructive " +
                 target);
    EXPECT_EQ(r.exit_code, 2) << target << ": " << r.out << r.err;
    EXPECT_NE(r.err.find(", a system directory: piprov never creates files there"), std::string::npos) << r.err;
  }
  EXPECT_FALSE(std::filesystem::exists("/etc/piprov-bench-new"));
  EXPECT_EQ(run("ls -a /etc /usr/lib | grep -c piprov-bench").out, "0\n");
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
            "piprov: error: /dev/zero is not a regular file: pass a file (or - for standard input where supported)\n");
}

// A FIFO with no writer: refused at once with exit 2, never a hang (timeout(1)
// ends a blocked piprov with 124); - still reads standard input.
TEST(BenchCli, ImportRefusesAFifoAndStillReadsStdin) {
  piprov::test::TempDir dir("bench-cli");
  const std::string fifo = (dir.path / "fio.txt").string();
  ASSERT_EQ(run("mkfifo " + piprov::test::q(fifo)).exit_code, 0);
  auto r = run("timeout 20 " + bin() + " bench import " + piprov::test::q(fifo));
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(r.err, "piprov: error: " + fifo +
                       " is not a regular file: pass a file (or - for standard input where supported)\n");
  EXPECT_EQ(r.out, "");
  r =
      run("printf 'Run 1\\nprepare-file;0;0;16062;31\\nseq-write;0;0;11603;22\\nrand-4k-write;0;0;3291;822\\n"
          "rand-4k-read;8451;2112;0;0\\n' | timeout 20 " +
          bin() + " bench import --format csv -");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("stdin,rand-4k-read,"), std::string::npos) << r.out;
}

// The backing file of a mounted loop device is that disk: bench --destructive
// must refuse it exactly as `piprov write` does (one rule, core/write_guard).
TEST(BenchCli, DestructiveRefusesTheBackingFileOfAMountedLoopDevice) {
  PIPROV_REQUIRE_LOOP();
  piprov::test::TempDir dir("bench-cli");
  piprov::test::LoopDevice loop(dir.path / "disk.img", 64 << 20);
  // No lazy init and a read-only mount: the file system itself then writes
  // nothing to the backing file while the test compares it (ext4lazyinit
  // zeroes inode tables in the background of a rw mount).
  ASSERT_EQ(run("mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 " + loop.path).exit_code, 0);
  fs::create_directories(dir.path / "mnt");
  ASSERT_EQ(run("mount -o ro " + loop.path + " " + (dir.path / "mnt").string()).exit_code, 0);
  const std::string backing = fs::canonical(loop.backing).string();
  const std::string before = piprov::test::read_file(backing);
  auto r = run(bin() + " bench --destructive --profile quick --only rand-write --no-progress " + backing);
  const std::string after = piprov::test::read_file(backing);
  run("umount " + (dir.path / "mnt").string());
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(r.err, "piprov: error: " + backing + " is the backing file of " + loop.path +
                       ": writing it would corrupt that disk under its users; detach it first (losetup -d " +
                       loop.path + ")\n");
  EXPECT_EQ(r.out, "");
  EXPECT_TRUE(after == before) << "the backing file was written";
}

// Every target `piprov write` refuses, bench --destructive refuses for the
// same rule (the one deliberate difference, partitions, is in the unit test
// of the rule table).
TEST(BenchCli, DestructiveRefusesEveryTargetWriteRefuses) {
  PIPROV_REQUIRE_LOOP();
  piprov::test::TempDir dir("bench-cli");
  piprov::test::write_file(dir.path / "small.img", std::string(1 << 20, 'x'));
  piprov::test::LoopDevice mounted(dir.path / "mounted.img", 64 << 20);
  piprov::test::LoopDevice read_only(dir.path / "ro.img", 64 << 20, /*read_only=*/true);
  piprov::test::LoopDevice backed(dir.path / "backed.img", 64 << 20);
  ASSERT_EQ(run("mkfs.ext4 -q -F " + mounted.path).exit_code, 0);
  fs::create_directories(dir.path / "mnt");
  ASSERT_EQ(run("mount " + mounted.path + " " + (dir.path / "mnt").string()).exit_code, 0);
  struct Case {
    std::string target, why;
  } cases[] = {
      {mounted.path, " has mounted file systems (" + mounted.path + " on " + (dir.path / "mnt").string() + ")"},
      {read_only.path, " is read-only: "},
      {fs::canonical(backed.backing).string(), " is the backing file of " + backed.path},
      {"/etc/passwd", " is an existing system file: piprov never overwrites files under /etc"},
      {"/proc/version", " is on a kernel pseudo file system"},
      {"/dev/piprov-no-such-disk1", " does not exist; run 'piprov devices' to list disks"},
  };
  std::vector<piprov::test::RunResult> writes, benches;
  for (const auto& c : cases) {
    writes.push_back(
        run(bin() + " write --yes --overwrite --progress none " + (dir.path / "small.img").string() + " " + c.target));
    benches.push_back(run(bin() + " bench --destructive --profile quick --only rand-write --no-progress " + c.target));
  }
  run("umount " + (dir.path / "mnt").string());
  for (std::size_t i = 0; i < std::size(cases); ++i) {
    const std::string head = "piprov: error: " + cases[i].target + cases[i].why;
    EXPECT_EQ(writes[i].exit_code, 2) << cases[i].target << writes[i].err;
    EXPECT_EQ(writes[i].err.rfind(head, 0), 0u) << writes[i].err;
    EXPECT_EQ(benches[i].exit_code, 2) << cases[i].target << benches[i].err;
    EXPECT_EQ(benches[i].err.rfind(head, 0), 0u) << benches[i].err;
    EXPECT_EQ(benches[i].out, "") << cases[i].target;
  }
  EXPECT_FALSE(fs::exists("/dev/piprov-no-such-disk1"));
}

// A mistyped mount point (or a disk not mounted yet): refused, no test file on the disk that holds its parent.
TEST(BenchCli, ATargetThatDoesNotExistIsRefusedNotMadeATestFile) {
  piprov::test::TempDir dir("bench-typo");
  std::string typo = (dir.path / "ssdd").string();
  auto r = run(bin() + " bench --profile quick --only rand-read --runtime 1 --size 4M --no-progress " + typo);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(r.err, "piprov: error: " + typo +
                       " does not exist: give a directory on the mounted disk (piprov makes its own test file there), "
                       "an existing file or a block device; is the disk mounted?\n");
  EXPECT_EQ(r.out, "");
  EXPECT_TRUE(fs::is_empty(dir.path));
}

// sdtest.sh's report cut short (here: file 17 without its last row and the
// verdict lines) exits 2 naming the missing rows, not 0 with an INCOMPLETE verdict.
TEST(BenchCli, ImportOfATruncatedAgnosticsReportExits2NamingTheRows) {
  PIPROV_REQUIRE_SHARED("fio/17_agnostics-sdtest_pass_cut-terse-fields.txt", f);
  auto whole = run(bin() + " bench import " + piprov::test::q(f.string()));
  EXPECT_EQ(whole.exit_code, 0) << whole.out << whole.err;
  EXPECT_NE(whole.out.find("Raspberry Pi SD card test (agnostics): PASS"), std::string::npos) << whole.out;
  piprov::test::TempDir dir("bench-cli");
  const auto cut = dir.path / "sdtest-cut.txt";
  const std::string text = piprov::test::read_file(f);
  piprov::test::write_file(cut, text.substr(0, text.find("rand-4k-read;")));
  auto r = run(bin() + " bench import " + piprov::test::q(cut.string()));
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(r.err, "piprov: error: " + cut.string() +
                       ": the agnostics sdtest.sh report is incomplete: run 1 has no rand-4k-read row (each run prints "
                       "prepare-file, seq-write, rand-4k-write and rand-4k-read); give the whole report\n");
  EXPECT_EQ(r.out, "");
}
