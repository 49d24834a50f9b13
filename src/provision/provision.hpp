#pragma once
// `piprov provision IMAGE DEVICE`: write (image::write_image, same safety and
// verify), a new disk identity (first_boot.hpp), find `system-boot` and
// `writable` with libblkid (by label, else the first FAT and ext4 partitions),
// mount both in a private temp dir, boot patch --root, seed (PARTUUID rewrite,
// cloud-init NoCloud seed), boot check, sync, unmount.
// On a failure after the write it unmounts and says what state the disk is in.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "boot/check.hpp"
#include "boot/patch.hpp"
#include "core/progress.hpp"
#include "image/write.hpp"
#include "provision/first_boot.hpp"
#include "provision/identity.hpp"

namespace piprov::provision {

struct ProvisionOptions {
  image::WriteOptions write;         ///< IMAGE, DEVICE and write's options
  boot::PatchOptions patch;          ///< optional [pi4] settings and UAS quirks (dirs are filled in)
  std::vector<std::string> usb_ids;  ///< passed to boot check
  IdentityOptions identity;          ///< first-boot identity (none: no seed is written)
  /// Receives the write's progress (write.progress, when that is empty) and a
  /// Step event after each of the kSteps steps ("write", "identity",
  /// "partitions", "mount", "patch", "seed", "check", "sync", "unmount") with
  /// its one-line result and duration.
  ProgressSink progress;
};

/// Number of steps provision() reports.
inline constexpr unsigned kSteps = 9;

/// One finished step, as its Step event reported it.
struct StepResult {
  std::string step;    ///< "write", "partitions", ...
  std::string result;  ///< one line
  double seconds = 0;  ///< wall-clock duration of the step
};

struct ProvisionReport {
  image::WriteResult write;
  std::string boot_partition, root_partition;  ///< "/dev/loop3p1"
  std::string mount_dir;                       ///< the private temp dir (removed at the end)
  boot::PatchReport patch;
  image::DiskIdentity disk_identity;  ///< the disk's old and new ids
  SeedPlan seed_plan;                 ///< empty when no identity option was given
  SeedOutcome seed;                   ///< PARTUUID rewrites and seed files written
  boot::CheckReport check;
  std::vector<StepResult> steps;  ///< in order
};

/// Runs everything. DEVICE must be a whole disk (Error{Usage} before writing
/// otherwise). Errors from the write propagate as write_image() throws them;
/// a later failure is rethrown with the same kind and a message naming the
/// step, what was done, and the state of the disk. A boot check with findings
/// is not an exception: see report.check.ok().
ProvisionReport provision(const ProvisionOptions& opts);

/// `provision --json` (schema "piprov.provision/2", docs/boot.md): the write
/// result, partitions, patch actions and diff, boot check findings + summary,
/// and the steps with their durations in seconds.
nlohmann::json provision_json(const ProvisionReport& r);

}  // namespace piprov::provision
