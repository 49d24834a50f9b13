#pragma once
// A job: what to run (fio's options of the same names) and where.
#include <cstdint>
#include <functional>
#include <string>

#include "bench/engines/engine.hpp"
#include "bench/result.hpp"
#include "core/progress.hpp"

namespace piprov::bench {

/// fio-like job options. Times in seconds, sizes in bytes.
struct JobSpec {
  std::string name;  ///< "seq-read", shown in progress
  Rw rw = Rw::RandRead;
  std::uint64_t bs = 4096;
  unsigned iodepth = 1;
  unsigned numjobs = 1;  ///< threads, each with its own fd and engine
  double runtime_s = 5;  ///< measured time (time_based)
  double ramp_s = 1;     ///< not counted (fio ramp_time)
  EngineKind engine = EngineKind::Libaio;
  bool direct = true;       ///< O_DIRECT
  bool dsync = false;       ///< O_DSYNC (--sync; fio sync=1)
  unsigned fsync = 0;       ///< fsync after every N writes, timed as the sync section
  unsigned rwmixread = 50;  ///< percent reads for rw/randrw
  /// fio's `size` without `time_based`: each thread ends after transferring the
  /// target range's size in bytes, or at runtime_s, whichever comes first
  /// (runtime_s 0: no time limit). false: time based (fio time_based).
  bool size_bound = false;
  /// fio's end_fsync: one fsync(2) after the last write of each thread; its time
  /// is part of the runtime (bandwidth and IOPS include it), as in fio.
  bool end_fsync = false;
  bool has_reads() const { return rw_reads(rw); }
  bool has_writes() const { return rw_writes(rw); }
  bool random() const { return rw_random(rw); }
};

/// Where a job runs: the file or device, the byte range [offset, offset+size),
/// the alignment for O_DIRECT (logical block size or statx DIOALIGN), and the
/// /sys/class/block name whose stat is sampled ("" for none).
struct JobTarget {
  std::string path;
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
  unsigned align = 512;
  std::string stat_name;
};

/// Checks `spec`: bs, iodepth, numjobs, runtime, ramp and rwmixread
/// within option_limits() (bench/options.hpp); bs a multiple of target.align
/// when direct; the range holds one block (runtime 0 is allowed for a
/// size_bound job: no time limit). Throws Error{Usage} naming the option.
void validate(const JobSpec& spec, const JobTarget& target);

/// Runs `spec` on `target`: numjobs threads, iodepth kept full, each I/O's
/// latency (submit to completion, CLOCK_MONOTONIC ns) into a histogram;
/// fsync timed separately; /sys/block stat deltas over the measured part.
/// An I/O error ends the job with JobResult::err/error set (never throws for
/// I/O errors after start); Ctrl-C ends it early with `interrupted` set.
/// Progress: phase "job" in seconds (ramp included; done = seconds run, total =
/// ramp + runtime, text = spec.name, rate = I/Os per second over the last
/// half second), an Update every 0.5 s.
/// Throws Error{Io} when the target cannot be opened, Error{Usage} on bad options.
JobResult run_job(const JobSpec& spec, const JobTarget& target, const ProgressSink& progress = {});

/// CLOCK_MONOTONIC in ns.
std::uint64_t now_ns();

/// Fills `len` bytes with a cheap generator (splitmix64); `state` advances.
void fill_random(void* buf, std::size_t len, std::uint64_t& state);

}  // namespace piprov::bench
