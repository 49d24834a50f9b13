#pragma once
// Bench profiles:
//   pi (default)  a Pi 4 USB SSD vs SD card comparison: seq read + seq write bs=4M
//                 iodepth=32 libaio direct; rand read + rand write bs=4k iodepth=1
//                 sync=1 direct; 60 s each
//   sync-write    journal-style sync writes (an HBA/SSD fsync test): 4k write direct
//                 fsync=1 psync at numjobs 1, 8, 20; 60 s each
//   throughput    deep-queue throughput (SAS vs NVMe): 256k randwrite iodepth=256
//                 numjobs=4 libaio direct; 60 s
//   quick         the pi tests at 5 s each on a 256 MiB range (tests, demos)
//   agnostics     Raspberry Pi's SD card speed test (raspberrypi-ui/agnostics
//                 data/sd_bench.fio): prepare-file, seq-write (512k write), rand-4k-write,
//                 rand-4k-read (4k, at most 10 s), libaio iodepth=4 direct end_fsync,
//                 64 MiB; pass/fail: bench/verdict.hpp
#include <optional>
#include <string>
#include <vector>

#include "bench/job.hpp"

namespace piprov::bench {

struct Profile {
  std::string name;
  std::vector<JobSpec> jobs;
  std::uint64_t default_size = 0;  ///< bytes for a new test file (0: 1 GiB)
};

/// The named profile; throws Error{Usage} listing the names otherwise.
Profile profile(const std::string& name);

/// Names, in the order --help lists them.
std::vector<std::string> profile_names();

/// "pi (4M seq + ...) | sync-write (...) | ...": every profile with what it is, for --help.
std::string profile_help();

/// Ad-hoc overrides, fio's option names. Unset fields keep the profile's values.
/// When `rw` is set the profile is replaced by one job built from these.
struct Overrides {
  std::optional<Rw> rw;
  std::optional<EngineKind> engine;
  std::optional<std::uint64_t> bs;
  std::optional<unsigned> iodepth, numjobs, fsync, rwmixread;
  std::optional<double> runtime_s, ramp_s;
  std::optional<bool> direct, dsync;
};

/// Applies `o` to every job of `p` (or replaces the jobs, see Overrides).
void apply_overrides(Profile& p, const Overrides& o);

/// Keeps only the jobs named in `names` (comma-separated: "seq-read,rand-write"),
/// in profile order. Throws Error{Usage} naming the profile's jobs on an unknown name.
void select_jobs(Profile& p, const std::string& names);

}  // namespace piprov::bench
