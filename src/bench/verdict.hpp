#pragma once
// SD Association application performance classes (SD Physical Layer Simplified Spec, A1/A2):
// A1 >= 1500 random read IOPS and >= 500 random write IOPS at 4 KiB, with
// >= 10 MB/s sustained sequential write; A2 >= 4000 / 2000 IOPS, >= 10 MB/s.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bench/result.hpp"

namespace piprov::bench {

/// The application performance class an SD card's figures meet.
enum class SdClass { A2, A1, BelowA1, Incomplete };

/// "A2", "A1", "below A1", "incomplete" (`bench --json`'s sd_class.class).
std::string_view sd_class_name(SdClass c);

struct SdVerdict {
  double rand_read_iops = -1, rand_write_iops = -1, seq_write_mb_s = -1;  ///< -1: not measured
  SdClass cls = SdClass::Incomplete;
  std::string text;  ///< one line for the report
};

/// Verdict for an SD target: the best 4k random read / write IOPS and the best
/// sequential write MB/s (decimal) among its jobs. nullopt when the target is
/// not an SD card (DeviceInfo::is_sd, or a label naming mmcblk) unless `force`.
std::optional<SdVerdict> sd_verdict(const TargetResult& t, bool force = false);

/// A result of Raspberry Pi's SD card speed test, of one line or overall.
enum class AgnosticsResult { Pass, Fail, Incomplete };
inline constexpr AgnosticsResult kAgnosticsResults[] = {AgnosticsResult::Pass, AgnosticsResult::Fail,
                                                        AgnosticsResult::Incomplete};

/// As sdtest.sh prints it (and the JSON report says it): "PASS", "FAIL", "INCOMPLETE".
std::string_view agnostics_result_name(AgnosticsResult r);
/// The result named `name` (agnostics_result_name()); nullopt otherwise.
std::optional<AgnosticsResult> parse_agnostics_result(std::string_view name);

/// One line of Raspberry Pi's SD card speed test (raspberrypi-ui/agnostics
/// data/sdtest.sh): a job picked by name (not by position: agnostics issue 20).
struct AgnosticsLine {
  std::string job;       ///< "seq-write", "rand-4k-write", "rand-4k-read"
  std::string what;      ///< "Sequential write speed"
  std::string unit;      ///< "KiB/s" or "IOPS"
  double threshold = 0;  ///< pass when measured >= threshold
  double measured = -1;  ///< -1: the job did not run (or failed)
  bool pass() const { return measured >= threshold; }
  /// Incomplete when not measured, else Pass or Fail.
  AgnosticsResult result() const {
    return measured < 0 ? AgnosticsResult::Incomplete : pass() ? AgnosticsResult::Pass : AgnosticsResult::Fail;
  }
};

/// The test's verdict: Pass (every line passes), Fail (a measured line
/// fails), Incomplete (a line was not measured, none failed).
struct AgnosticsVerdict {
  std::vector<AgnosticsLine> lines;  ///< seq-write, rand-4k-write, rand-4k-read, in that order
  AgnosticsResult overall = AgnosticsResult::Incomplete;
  std::vector<std::string> text;  ///< one report line per test line, then the overall line
};

/// sdtest.sh's thresholds on sd_bench.fio's jobs: seq-write write bandwidth
/// >= 10000 KiB/s (fio's terse bw field, KiB/s = 1024 B/s, which agnostics
/// prints as "KB/sec": 10.24 MB/s), rand-4k-write >= 500 write IOPS,
/// rand-4k-read >= 1500 read IOPS. Given for a target that has a job named
/// prepare-file, rand-4k-write or rand-4k-read (`bench --profile agnostics`,
/// or an imported run of sd_bench.fio); nullopt otherwise.
std::optional<AgnosticsVerdict> agnostics_verdict(const TargetResult& t);

}  // namespace piprov::bench
