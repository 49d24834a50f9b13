#pragma once
// Bench targets:
// - a directory, or a path that does not exist yet: piprov creates its own
//   test file there, pre-fills it with random data and removes it at the end
//   (also on Ctrl-C and on errors) - the non-destructive default;
// - an existing regular file or a block device (disk or partition): read
//   tests anytime; write tests only when core/write_guard.hpp allows them
//   (intent DestructiveBench: --destructive, never a mounted or system disk,
//   a system file or a loop device's backing file).
// The size used is capped to what the target holds (free space minus 5% for
// a new file, the device or file size otherwise).
#include <cstdint>
#include <functional>
#include <string>

#include "bench/job.hpp"
#include "bench/result.hpp"

namespace piprov::bench {

struct TargetOptions {
  bool destructive = false;
  bool writes = false;     ///< some job writes
  bool direct = true;      ///< some job uses O_DIRECT (pre-fill and alignment)
  std::uint64_t size = 0;  ///< wanted bytes (0: whole device/file, or 1 GiB for a new file)
};

/// A target ready for jobs; removes its own test file when destroyed.
class PreparedTarget {
 public:
  PreparedTarget() = default;
  ~PreparedTarget();
  PreparedTarget(PreparedTarget&&) noexcept;
  PreparedTarget& operator=(PreparedTarget&&) noexcept;
  PreparedTarget(const PreparedTarget&) = delete;
  PreparedTarget& operator=(const PreparedTarget&) = delete;

  std::string label;     ///< as the user typed it
  JobTarget job_target;  ///< path, range, alignment, stat name
  DeviceInfo device;
  bool raw_device = false;
  bool own_file = false;  ///< created by piprov, removed at the end
  /// Removes the test file now (idempotent).
  void cleanup();
};

/// Checks the safety rules and resolves `arg` (does not create anything).
/// Throws Error{Usage} with the reason and what to do when refused or invalid.
PreparedTarget resolve_target(const std::string& arg, const TargetOptions& opt);

/// Creates and pre-fills the test file of a resolved target that needs one
/// (progress: phase "prefill" in bytes, target = t.label); no-op otherwise.
/// Throws Error{Io} (file removed), Error{Interrupted} on Ctrl-C (file removed).
void create_test_file(PreparedTarget& t, const TargetOptions& opt, const ProgressSink& progress = {});

}  // namespace piprov::bench
