#pragma once
// `piprov bench`: run a list of jobs on each target in turn and collect a
// Report. Targets are checked (safety rules, target.hpp) before anything runs;
// a target failing mid-run keeps what finished and the others still run.
#include <string>
#include <vector>

#include "bench/job.hpp"
#include "bench/result.hpp"
#include "core/progress.hpp"

namespace piprov::bench {

struct BenchRequest {
  std::vector<std::string> targets;
  std::vector<JobSpec> jobs;
  bool destructive = false;
  std::uint64_t size = 0;  ///< 0: whole device / existing file, or 1 GiB for a new test file
};

/// Runs everything. Throws Error{Usage} for refused/invalid targets or
/// options before any I/O. Never throws for I/O errors during jobs: they are
/// in the report (TargetResult::error / JobResult::error). On Ctrl-C stops,
/// removes test files and returns with Report::interrupted set.
/// Progress: phases "prefill" (bytes) and "job" (seconds, see run_job), each
/// event with target = the target's label, index/count = job i of n (1-based;
/// 0 for prefill) and eta_s = seconds left for all targets.
Report run_bench(const BenchRequest& req, const ProgressSink& progress = {});

/// Exit code for a finished report: 130 interrupted, 3 any error, 1 when the
/// agnostics SD card test (bench/verdict.hpp) says FAIL for a target, else 0.
int exit_code_of(const Report& r);

}  // namespace piprov::bench
