#pragma once
// SD Association application performance classes (SD Physical Layer Simplified Spec, A1/A2):
// A1 >= 1500 random read IOPS and >= 500 random write IOPS at 4 KiB, with
// >= 10 MB/s sustained sequential write; A2 >= 4000 / 2000 IOPS, >= 10 MB/s.
#include <optional>
#include <string>

#include "bench/result.hpp"

namespace piprov::bench {

struct SdVerdict {
  double rand_read_iops = -1, rand_write_iops = -1, seq_write_mb_s = -1;  ///< -1: not measured
  std::string cls;                                                        ///< "A2", "A1", "below A1", or "incomplete"
  std::string text;                                                       ///< one line for the report
};

/// Verdict for an SD target: the best 4k random read / write IOPS and the best
/// sequential write MB/s (decimal) among its jobs. nullopt when the target is
/// not an SD card (DeviceInfo::is_sd, or a label naming mmcblk) unless `force`.
std::optional<SdVerdict> sd_verdict(const TargetResult& t, bool force = false);

}  // namespace piprov::bench
