#include "bench/profiles.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace piprov::bench {

namespace {

JobSpec job(const char* name, Rw rw, std::uint64_t bs, unsigned qd, const char* engine, bool dsync, double runtime) {
  JobSpec j;
  j.name = name;
  j.rw = rw;
  j.bs = bs;
  j.iodepth = qd;
  j.engine = engine;
  j.direct = true;
  j.dsync = dsync;
  j.runtime_s = runtime;
  j.ramp_s = runtime >= 30 ? 2 : 1;
  return j;
}

std::vector<JobSpec> pi_jobs(double runtime) {
  return {job("seq-read", Rw::Read, 4u << 20, 32, "libaio", false, runtime),
          job("rand-read", Rw::RandRead, 4096, 1, "libaio", true, runtime),
          job("seq-write", Rw::Write, 4u << 20, 32, "libaio", false, runtime),
          job("rand-write", Rw::RandWrite, 4096, 1, "libaio", true, runtime)};
}

// Raspberry Pi's SD card speed test (raspberrypi-ui/agnostics data/sd_bench.fio):
// [global] ioengine=libaio iodepth=4 size=64m direct=1 end_fsync=1; the jobs in
// order, each stonewalled; no time_based, so the 512k jobs write the range once
// and the 4k ones stop at 64 MiB or runtime=10, whichever comes first.
std::vector<JobSpec> agnostics_jobs() {
  auto a = [](const char* name, Rw rw, std::uint64_t bs, double runtime) {
    JobSpec j = job(name, rw, bs, 4, "libaio", false, runtime);
    j.ramp_s = 0;
    j.size_bound = true;
    j.end_fsync = true;
    return j;
  };
  return {a("prepare-file", Rw::Write, 512u << 10, 0), a("seq-write", Rw::Write, 512u << 10, 0),
          a("rand-4k-write", Rw::RandWrite, 4096, 10), a("rand-4k-read", Rw::RandRead, 4096, 10)};
}

}  // namespace

std::vector<std::string> profile_names() { return {"pi", "sync-write", "throughput", "quick", "agnostics"}; }

Profile profile(const std::string& name) {
  Profile p;
  p.name = name;
  if (name == "pi") {
    p.jobs = pi_jobs(60);
  } else if (name == "quick") {
    p.jobs = pi_jobs(5);
    p.default_size = 256ull << 20;
  } else if (name == "sync-write") {
    for (unsigned n : {1u, 8u, 20u}) {
      JobSpec j = job("sync-write", Rw::Write, 4096, 1, "psync", false, 60);
      j.fsync = 1;
      j.numjobs = n;
      j.name = "sync-write-" + std::to_string(n);
      p.jobs.push_back(j);
    }
    p.default_size = 256ull << 20;
  } else if (name == "throughput") {
    JobSpec j = job("throughput", Rw::RandWrite, 256u << 10, 256, "libaio", false, 60);
    j.numjobs = 4;
    p.jobs.push_back(j);
  } else if (name == "agnostics") {
    p.jobs = agnostics_jobs();
    p.default_size = 64ull << 20;
  } else {
    throw Error(ErrorKind::Usage,
                "unknown --profile '" + name + "': use pi, sync-write, throughput, quick or agnostics");
  }
  return p;
}

void apply_overrides(Profile& p, const Overrides& o) {
  if (o.rw) {
    JobSpec j;
    j.name = rw_name(*o.rw);
    j.rw = *o.rw;
    j.runtime_s = p.jobs.empty() ? 5 : p.jobs.front().runtime_s;
    j.ramp_s = p.jobs.empty() ? 1 : p.jobs.front().ramp_s;
    p.jobs = {j};
  }
  for (auto& j : p.jobs) {
    if (o.engine) j.engine = *o.engine;
    if (o.bs) j.bs = *o.bs;
    if (o.iodepth) j.iodepth = *o.iodepth;
    if (o.numjobs) j.numjobs = *o.numjobs;
    if (o.fsync) j.fsync = *o.fsync;
    if (o.rwmixread) j.rwmixread = *o.rwmixread;
    if (o.runtime_s) j.runtime_s = *o.runtime_s;
    if (o.ramp_s) j.ramp_s = *o.ramp_s;
    if (o.direct) j.direct = *o.direct;
    if (o.dsync) j.dsync = *o.dsync;
  }
}

void select_jobs(Profile& p, const std::string& names) {
  std::vector<std::string> want;
  for (std::size_t b = 0; b <= names.size();) {
    auto e = names.find(',', b);
    if (e == std::string::npos) e = names.size();
    if (e > b) want.push_back(names.substr(b, e - b));
    b = e + 1;
  }
  std::string all;
  for (const auto& j : p.jobs) all += (all.empty() ? "" : ", ") + j.name;
  for (const auto& w : want) {
    bool found = false;
    for (const auto& j : p.jobs) found |= j.name == w;
    if (!found) throw Error(ErrorKind::Usage, "--only '" + w + "': profile " + p.name + " has the jobs " + all);
  }
  std::vector<JobSpec> kept;
  for (const auto& j : p.jobs)
    if (std::find(want.begin(), want.end(), j.name) != want.end()) kept.push_back(j);
  p.jobs = kept;
}

}  // namespace piprov::bench
