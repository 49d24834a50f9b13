#include "bench/bench.hpp"

#include <algorithm>
#include <functional>

#include "bench/target.hpp"
#include "bench/verdict.hpp"
#include "core/cancel.hpp"
#include "core/error.hpp"

namespace piprov::bench {

namespace {

/// Forwards `sink`'s events with the target, job index/count and the ETA for
/// everything (`left(e)`: seconds left after this event) filled in.
ProgressSink tagged(const ProgressSink& sink, const std::string& target, unsigned index, unsigned count,
                    const std::function<double(const ProgressEvent&)>& left) {
  if (!sink) return {};
  return [=, &sink](const ProgressEvent& e) {
    ProgressEvent t = e;
    t.target = target;
    t.index = index;
    t.count = count;
    t.eta_s = std::max(0.0, left(e));
    sink(t);
  };
}

/// Seconds one target takes: every job's runtime and ramp.
double bench_seconds_per_target(const BenchRequest& req) {
  double per_target = 0;
  for (const auto& j : req.jobs) per_target += j.runtime_s + j.ramp_s;
  return per_target;
}

/// The JobResult of a job that threw before it produced one.
JobResult bench_failed_job(const JobSpec& js, const Error& e) {
  JobResult jr;
  jr.name = js.name, jr.rw = rw_name(js.rw), jr.bs = js.bs, jr.iodepth = js.iodepth, jr.numjobs = js.numjobs;
  jr.err = EIO, jr.error = e.what(), jr.tool = ResultTool::Piprov, jr.source = "piprov";
  return jr;
}

/// Runs the jobs of `req` on `pt` into `tr`, in order; stops after a failed job
/// (tr.err and tr.error name it) or on Ctrl-C. `later`: seconds the targets
/// after this one take (for the ETA). Throws Error{Usage} from a job.
void run_bench_jobs(const BenchRequest& req, const PreparedTarget& pt, const ProgressSink& progress, double later,
                    TargetResult& tr) {
  double left = bench_seconds_per_target(req);
  for (unsigned ji = 0; ji < req.jobs.size(); ++ji) {
    const JobSpec& js = req.jobs[ji];
    JobResult jr;
    try {
      jr = run_job(js, pt.job_target,
                   tagged(progress, pt.label, ji + 1, static_cast<unsigned>(req.jobs.size()),
                          [&](const ProgressEvent& e) { return left - e.done + later; }));
    } catch (const Error& e) {
      if (e.kind() == ErrorKind::Usage) throw;
      jr = bench_failed_job(js, e);
    }
    left -= js.runtime_s + js.ramp_s;
    bool failed = jr.err != 0;
    if (failed) {
      tr.err = jr.err;
      tr.error = "job " + jr.test_label() + ": " + jr.error;
    }
    tr.jobs.push_back(std::move(jr));
    if (failed) break;  // keep what finished, go on with the next target
    if (cancel_requested()) break;
  }
}

}  // namespace

Report run_bench(const BenchRequest& req, const ProgressSink& progress) {
  if (req.targets.empty()) throw Error(ErrorKind::Usage, "no bench target given: name a directory, file or device");
  if (req.jobs.empty()) throw Error(ErrorKind::Usage, "no jobs to run");
  TargetOptions opt;
  opt.destructive = req.destructive;
  opt.size = req.size;
  opt.direct = false;
  for (const auto& j : req.jobs) opt.writes |= j.has_writes(), opt.direct |= j.direct;

  std::vector<PreparedTarget> targets;
  for (const auto& t : req.targets) {
    targets.push_back(resolve_target(t, opt));
    for (const auto& j : req.jobs) validate(j, targets.back().job_target);
  }

  const double per_target = bench_seconds_per_target(req);
  Report rep;
  for (std::size_t ti = 0; ti < targets.size(); ++ti) {
    PreparedTarget& pt = targets[ti];
    TargetResult tr;
    tr.label = pt.label;
    tr.path = pt.job_target.path;
    tr.device = pt.device;
    double later = per_target * static_cast<double>(targets.size() - ti - 1);
    try {
      create_test_file(pt, opt,
                       tagged(progress, pt.label, 0, static_cast<unsigned>(req.jobs.size()),
                              [&](const ProgressEvent&) { return per_target + later; }));
    } catch (const Error& e) {
      if (e.kind() == ErrorKind::Interrupted) {
        rep.interrupted = true;
        rep.targets.push_back(std::move(tr));
        break;
      }
      if (e.kind() == ErrorKind::Usage) throw;
      tr.err = EIO;
      tr.error = e.what();
      rep.targets.push_back(std::move(tr));
      continue;
    }
    run_bench_jobs(req, pt, progress, later, tr);
    pt.cleanup();
    rep.targets.push_back(std::move(tr));
    if (cancel_requested()) {
      rep.interrupted = true;
      break;
    }
  }
  for (auto& t : targets) t.cleanup();
  return rep;
}

int exit_code_of(const Report& r) {
  if (r.interrupted) return 130;
  for (const auto& t : r.targets) {
    if (t.err || !t.error.empty()) return 3;
    for (const auto& j : t.jobs)
      if (j.err) return 3;
  }
  for (const auto& t : r.targets)
    if (auto v = agnostics_verdict(t); v && v->overall == AgnosticsResult::Fail) return 1;
  return 0;
}

}  // namespace piprov::bench
