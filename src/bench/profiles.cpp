#include "bench/profiles.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <iterator>

#include "core/error.hpp"

namespace piprov::bench {

namespace {

JobSpec job(const char* name, Rw rw, std::uint64_t bs, unsigned qd, EngineKind engine, bool dsync, double runtime) {
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
  return {job("seq-read", Rw::Read, 4u << 20, 32, EngineKind::Libaio, false, runtime),
          job("rand-read", Rw::RandRead, 4096, 1, EngineKind::Libaio, true, runtime),
          job("seq-write", Rw::Write, 4u << 20, 32, EngineKind::Libaio, false, runtime),
          job("rand-write", Rw::RandWrite, 4096, 1, EngineKind::Libaio, true, runtime)};
}

// Raspberry Pi's SD card speed test (raspberrypi-ui/agnostics data/sd_bench.fio):
// [global] ioengine=libaio iodepth=4 size=64m direct=1 end_fsync=1; the jobs in
// order, each stonewalled; no time_based, so the 512k jobs write the range once
// and the 4k ones stop at 64 MiB or runtime=10, whichever comes first.
std::vector<JobSpec> agnostics_jobs() {
  auto a = [](const char* name, Rw rw, std::uint64_t bs, double runtime) {
    JobSpec j = job(name, rw, bs, 4, EngineKind::Libaio, false, runtime);
    j.ramp_s = 0;
    j.size_bound = true;
    j.end_fsync = true;
    return j;
  };
  return {a("prepare-file", Rw::Write, 512u << 10, 0), a("seq-write", Rw::Write, 512u << 10, 0),
          a("rand-4k-write", Rw::RandWrite, 4096, 10), a("rand-4k-read", Rw::RandRead, 4096, 10)};
}

std::vector<JobSpec> sync_write_jobs() {
  std::vector<JobSpec> jobs;
  for (unsigned n : {1u, 8u, 20u}) {
    JobSpec j = job("sync-write", Rw::Write, 4096, 1, EngineKind::Psync, false, 60);
    j.fsync = 1;
    j.numjobs = n;
    j.name = "sync-write-" + std::to_string(n);
    jobs.push_back(j);
  }
  return jobs;
}

std::vector<JobSpec> throughput_jobs() {
  JobSpec j = job("throughput", Rw::RandWrite, 256u << 10, 256, EngineKind::Libaio, false, 60);
  j.numjobs = 4;
  return {j};
}

// The one table of profiles: name, what it is (--help), its jobs, the size of
// a new test file (0: 1 GiB). profiles.hpp describes each.
struct ProfileRow {
  std::string_view name;
  std::string_view help;
  std::vector<JobSpec> (*jobs)();
  std::uint64_t default_size;
};
const ProfileRow kProfileRows[] = {
    {"pi", "4M seq + 4k sync random, SD vs USB SSD", [] { return pi_jobs(60); }, 0},
    {"sync-write", "4k fsync writes at 1/8/20 jobs", sync_write_jobs, 256ull << 20},
    {"throughput", "256k randwrite, deep queue", throughput_jobs, 0},
    {"quick", "pi, 5 s each", [] { return pi_jobs(5); }, 256ull << 20},
    {"agnostics", "Raspberry Pi's SD card test with PASS/FAIL; exit 1 on FAIL", agnostics_jobs, 64ull << 20},
};

}  // namespace

std::vector<std::string> profile_names() {
  std::vector<std::string> names;
  for (const auto& r : kProfileRows) names.emplace_back(r.name);
  return names;
}

std::string profile_help() {
  std::string out;
  for (const auto& r : kProfileRows) out += fmt::format("{}{} ({})", out.empty() ? "" : " | ", r.name, r.help);
  return out;
}

Profile profile(const std::string& name) {
  for (const auto& r : kProfileRows) {
    if (r.name != name) continue;
    Profile p;
    p.name = name;
    p.jobs = r.jobs();
    p.default_size = r.default_size;
    return p;
  }
  std::string names;
  for (std::size_t i = 0; i < std::size(kProfileRows); ++i)
    names += fmt::format("{}{}", i == 0 ? "" : i + 1 == std::size(kProfileRows) ? " or " : ", ", kProfileRows[i].name);
  throw Error(ErrorKind::Usage, "unknown --profile '" + name + "': use " + names);
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
