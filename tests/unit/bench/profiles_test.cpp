// Profiles match the published fio runs they are named for (what each measures: profiles.hpp).
#include <gtest/gtest.h>

#include "bench/profiles.hpp"
#include "core/error.hpp"

using namespace piprov::bench;

TEST(Profiles, PiIsSeed004) {
  Profile p = profile("pi");
  ASSERT_EQ(p.jobs.size(), 4u);
  EXPECT_EQ(p.jobs[0].rw, Rw::Read);
  EXPECT_EQ(p.jobs[0].bs, 4u << 20);
  EXPECT_EQ(p.jobs[0].iodepth, 32u);
  EXPECT_EQ(p.jobs[0].engine, EngineKind::Libaio);
  EXPECT_TRUE(p.jobs[0].direct);
  EXPECT_FALSE(p.jobs[0].dsync);
  EXPECT_EQ(p.jobs[1].rw, Rw::RandRead);
  EXPECT_EQ(p.jobs[1].bs, 4096u);
  EXPECT_EQ(p.jobs[1].iodepth, 1u);
  EXPECT_TRUE(p.jobs[1].dsync);
  EXPECT_EQ(p.jobs[3].rw, Rw::RandWrite);
  EXPECT_DOUBLE_EQ(p.jobs[3].runtime_s, 60);
}

TEST(Profiles, SyncWriteIsSeed000AndThroughputSeed001) {
  Profile s = profile("sync-write");
  ASSERT_EQ(s.jobs.size(), 3u);
  EXPECT_EQ(s.jobs[2].numjobs, 20u);
  EXPECT_EQ(s.jobs[1].numjobs, 8u);
  EXPECT_EQ(s.jobs[0].fsync, 1u);
  EXPECT_EQ(s.jobs[0].engine, EngineKind::Psync);
  Profile t = profile("throughput");
  ASSERT_EQ(t.jobs.size(), 1u);
  EXPECT_EQ(t.jobs[0].bs, 256u << 10);
  EXPECT_EQ(t.jobs[0].iodepth, 256u);
  EXPECT_EQ(t.jobs[0].numjobs, 4u);
  EXPECT_EQ(t.jobs[0].rw, Rw::RandWrite);
  Profile q = profile("quick");
  EXPECT_DOUBLE_EQ(q.jobs[0].runtime_s, 5);
  EXPECT_EQ(q.default_size, 256ull << 20);
}

TEST(Profiles, OverridesAndAdHoc) {
  Profile p = profile("quick");
  Overrides o;
  o.runtime_s = 1.5;
  o.engine = EngineKind::IoUring;
  apply_overrides(p, o);
  EXPECT_EQ(p.jobs.size(), 4u);
  EXPECT_DOUBLE_EQ(p.jobs[3].runtime_s, 1.5);
  EXPECT_EQ(p.jobs[2].engine, EngineKind::IoUring);
  o.rw = Rw::RandReadWrite;
  o.bs = 8192;
  apply_overrides(p, o);
  ASSERT_EQ(p.jobs.size(), 1u);
  EXPECT_EQ(p.jobs[0].rw, Rw::RandReadWrite);
  EXPECT_EQ(p.jobs[0].bs, 8192u);
  EXPECT_THROW(profile("fast"), piprov::Error);
}

TEST(Profiles, SelectJobsByName) {
  Profile p = profile("pi");
  select_jobs(p, "rand-write,seq-read");
  ASSERT_EQ(p.jobs.size(), 2u);
  EXPECT_EQ(p.jobs[0].name, "seq-read");  // profile order kept
  EXPECT_EQ(p.jobs[1].name, "rand-write");
  try {
    select_jobs(p, "seq-write");
    FAIL();
  } catch (const piprov::Error& e) {
    EXPECT_EQ(std::string(e.what()), "--only 'seq-write': profile pi has the jobs seq-read, rand-write");
  }
}

TEST(Profiles, OneTableNamesEveryProfileForHelpAndErrors) {
  const auto names = profile_names();
  ASSERT_EQ(names.size(), 5u);
  EXPECT_EQ(names.front(), "pi");
  EXPECT_EQ(names.back(), "agnostics");
  const std::string help = profile_help();
  for (const auto& n : names) {
    EXPECT_EQ(profile(n).name, n);
    EXPECT_NE(help.find(n + " ("), std::string::npos) << n;
  }
  piprov::test::expect_error(piprov::ErrorKind::Usage,
                             "unknown --profile 'nope': use pi, sync-write, throughput, quick or agnostics",
                             [] { profile("nope"); });
}
