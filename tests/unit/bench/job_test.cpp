// The job runner on a temp file: engines, data, fsync timing, errors.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>
#include <cmath>
#include <set>
#include <vector>

#include "bench/engines/engine.hpp"
#include "bench/job.hpp"
#include "core/error.hpp"
#include "support/testsupport.hpp"

using namespace piprov::bench;

namespace {
JobTarget file_target(const std::filesystem::path& p, std::uint64_t size) {
  std::string zeros(size, '\0');
  piprov::test::write_file(p, zeros);
  JobTarget t;
  t.path = p.string();
  t.size = size;
  t.align = 4096;
  return t;
}
JobSpec spec(Rw rw, std::string_view engine, bool direct) {
  JobSpec s;
  s.rw = rw;
  s.engine = parse_engine(engine);
  s.direct = direct;
  s.runtime_s = 0.3;
  s.ramp_s = 0.05;
  s.iodepth = 4;
  return s;
}
}  // namespace

TEST(Runner, EachEngineReadsWithODirect) {
  piprov::test::TempDir dir("bench-runner");
  JobTarget t = file_target(dir.path / "f", 1 << 20);
  for (const char* e : {"psync", "libaio", "io_uring"}) {
    JobResult r = run_job(spec(Rw::RandRead, e, true), t);
    // Engine setup failures arrive as EIO with the syscall's errno name in the
    // message: ENOSYS where the kernel (or qemu-user, scripts/cross-test.sh)
    // has no io_setup / io_uring.
    if (r.err == EPERM || r.err == ENOSYS || r.error.find("(ENOSYS)") != std::string::npos ||
        (r.err && std::string(e) == "io_uring" && r.error.find("io_uring") != std::string::npos)) {
      std::cerr << e << " unavailable here: " << r.error << "\n";
      continue;
    }
    if (r.err == EINVAL) PIPROV_SKIP("O_DIRECT unsupported on " << dir.path);
    ASSERT_EQ(r.err, 0) << e << ": " << r.error;
    ASSERT_TRUE(r.read);
    EXPECT_FALSE(r.write);
    EXPECT_GT(r.read->ios, 0u) << e;
    EXPECT_EQ(r.read->bytes, r.read->ios * 4096) << e;
    EXPECT_EQ(r.read->lat.samples, r.read->ios) << e;
    EXPECT_NEAR(r.read->iops, static_cast<double>(r.read->ios) / r.read->runtime_s, 1e-6) << e;
    EXPECT_EQ(r.engine, e);
  }
}

TEST(Runner, WritesRandomDataRefilledPerIo) {
  piprov::test::TempDir dir("bench-runner");
  JobTarget t = file_target(dir.path / "f", 256 << 10);  // 64 blocks, wrapped many times
  JobSpec s = spec(Rw::Write, "psync", false);
  s.iodepth = 1;
  s.runtime_s = 1;  // thousands of 4k writes even on a loaded machine
  JobResult r = run_job(s, t);
  ASSERT_EQ(r.err, 0) << r.error;
  ASSERT_GT(r.write->ios, 64u);
  std::string data = piprov::test::read_file(t.path);
  std::set<std::string> blocks;
  for (std::size_t off = 0; off < data.size(); off += 4096) {
    std::string b = data.substr(off, 4096);
    EXPECT_NE(b, std::string(4096, '\0')) << "zero block at " << off;
    blocks.insert(b);
  }
  EXPECT_EQ(blocks.size(), 64u);  // every block holds different data
}

TEST(Runner, ReportsTheJobAsAPhaseInSeconds) {
  piprov::test::TempDir dir("bench-runner");
  JobTarget t = file_target(dir.path / "f", 256 << 10);
  JobSpec s = spec(Rw::RandRead, "psync", false);
  s.name = "rand-read";
  std::vector<piprov::ProgressEvent> events;
  JobResult r = run_job(s, t, [&events](const piprov::ProgressEvent& e) { events.push_back(e); });
  ASSERT_EQ(r.err, 0) << r.error;
  ASSERT_GE(events.size(), 2u);
  EXPECT_EQ(events.front().kind, piprov::ProgressEvent::Kind::Begin);
  EXPECT_EQ(events.back().kind, piprov::ProgressEvent::Kind::End);
  for (const auto& e : events) {
    EXPECT_EQ(e.phase, piprov::Phase::Job);
    EXPECT_EQ(e.text, "rand-read");
    EXPECT_EQ(e.unit, piprov::ProgressUnit::Seconds);
    EXPECT_DOUBLE_EQ(e.total, s.ramp_s + s.runtime_s);
    EXPECT_LE(e.done, e.total + 0.1);  // an update may land just after the end
    EXPECT_GE(e.rate, 0);
  }
}

TEST(Runner, FsyncEveryNWritesIsTimedSeparately) {
  piprov::test::TempDir dir("bench-runner");
  JobTarget t = file_target(dir.path / "f", 1 << 20);
  JobSpec s = spec(Rw::RandWrite, "psync", false);
  s.iodepth = 1;
  s.fsync = 2;
  s.numjobs = 2;
  JobResult r = run_job(s, t);
  ASSERT_EQ(r.err, 0) << r.error;
  ASSERT_TRUE(r.sync);
  EXPECT_EQ(r.sync->samples, r.sync_ios);
  EXPECT_GT(r.sync_ios, 0u);
  // one fsync per two writes in each of the 2 threads (the ramp cut may split a pair)
  EXPECT_NEAR(static_cast<double>(r.sync_ios) * 2, static_cast<double>(r.write->ios), 4.0);
  EXPECT_EQ(r.numjobs, 2u);
}

TEST(Runner, MixedReadWrite) {
  piprov::test::TempDir dir("bench-runner");
  JobTarget t = file_target(dir.path / "f", 1 << 20);
  JobSpec s = spec(Rw::RandReadWrite, "libaio", false);
  s.rwmixread = 70;
  JobResult r = run_job(s, t);
  if (r.error.find("(ENOSYS)") != std::string::npos) PIPROV_SKIP("libaio unavailable here: " << r.error);
  ASSERT_EQ(r.err, 0) << r.error;
  ASSERT_TRUE(r.read && r.write);
  double share = static_cast<double>(r.read->ios) / static_cast<double>(r.read->ios + r.write->ios);
  // binomial: 5 standard deviations of the read share for this many I/Os
  double n = static_cast<double>(r.read->ios + r.write->ios);
  EXPECT_NEAR(share, 0.70, 5 * std::sqrt(0.7 * 0.3 / n)) << n << " I/Os";
}

TEST(Runner, ReadErrorEndsTheJobWithErrno) {
  piprov::test::TempDir dir("bench-runner");
  JobTarget t = file_target(dir.path / "f", 1 << 20);
  t.path = (dir.path / "missing").string();
  JobResult r = run_job(spec(Rw::RandRead, "psync", false), t);
  EXPECT_EQ(r.err, ENOENT);
  EXPECT_NE(r.error.find("open"), std::string::npos);
  EXPECT_NE(r.error.find("ENOENT"), std::string::npos);
}

TEST(Runner, ValidationNamesTheOption) {
  JobTarget t;
  t.path = "/nonexistent";
  t.size = 1 << 20;
  t.align = 4096;
  JobSpec s = spec(Rw::RandRead, "psync", true);
  s.bs = 1000;
  piprov::test::expect_error(piprov::ErrorKind::Usage, "--bs 1000 is not a multiple", [&] { validate(s, t); });
  s.bs = 4096;
  EXPECT_EQ(parse_rw("trim"), std::nullopt);  // an unknown --rw is refused where it is parsed
  piprov::test::expect_error(piprov::ErrorKind::Usage, "unknown --engine 'posixaio': use psync, libaio or io_uring",
                             [] { parse_engine("posixaio"); });
  EXPECT_EQ(parse_engine("sync"), EngineKind::Psync);  // fio's sync: one request at a time, as psync
  for (auto e : {EngineKind::Psync, EngineKind::Libaio, EngineKind::IoUring})
    EXPECT_EQ(parse_engine(engine_name(e)), e) << engine_name(e);
}

TEST(Runner, FillRandomIsNotZeroAndAdvances) {
  std::uint64_t st = 1;
  std::string a(4096, '\0'), b(4096, '\0');
  fill_random(a.data(), a.size(), st);
  fill_random(b.data(), b.size(), st);
  EXPECT_NE(a, std::string(4096, '\0'));
  EXPECT_NE(a, b);
}
