#pragma once
// `piprov bench`: run a list of jobs on each target in turn and collect a
// Report. Targets are checked (safety rules, target.hpp) before anything runs;
// a target failing mid-run keeps what finished and the others still run.
#include <functional>
#include <string>
#include <vector>

#include "bench/job.hpp"
#include "bench/result.hpp"

namespace piprov::bench {

struct BenchRequest {
  std::vector<std::string> targets;
  std::vector<JobSpec> jobs;
  bool destructive = false;
  std::uint64_t size = 0;  ///< 0: whole device / existing file, or 1 GiB for a new test file
};

/// Progress events for the CLI's status line: phase "prefill" (bytes) or
/// "job" (seconds), with the target and job index.
struct BenchProgress {
  std::string target, phase, job;
  unsigned job_index = 0, job_count = 0;
  double done = 0, total = 0;  ///< bytes (prefill) or seconds (job)
  double iops_now = 0;
  double eta_s = 0;  ///< seconds left for all targets
};

/// Runs everything. Throws Error{Usage} for refused/invalid targets or
/// options before any I/O. Never throws for I/O errors during jobs: they are
/// in the report (TargetResult::error / JobResult::error). On Ctrl-C stops,
/// removes test files and returns with Report::interrupted set.
Report run_bench(const BenchRequest& req, const std::function<void(const BenchProgress&)>& progress = {});

/// Exit code for a finished report: 130 interrupted, 3 any error, else 0.
int exit_code_of(const Report& r);

}  // namespace piprov::bench
