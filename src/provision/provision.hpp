#pragma once
// `piprov provision IMAGE DEVICE`: write (image::write_image, same safety and
// verify), find `system-boot` and `writable` with libblkid (by label, else the
// first FAT and ext4 partitions), mount both in a private temp dir, boot patch
// --root, boot check, sync, unmount.
// On a failure after the write it unmounts and says what state the disk is in.
#include <functional>
#include <string>
#include <vector>

#include "boot/check.hpp"
#include "boot/patch.hpp"
#include "image/write.hpp"

namespace piprov::provision {

struct ProvisionOptions {
  image::WriteOptions write;         ///< IMAGE, DEVICE and write's options
  boot::PatchOptions patch;          ///< optional [pi4] settings and UAS quirks (dirs are filled in)
  std::vector<std::string> usb_ids;  ///< passed to boot check
  /// Called after each step with its name ("write", "partitions", "mount",
  /// "patch", "check", "sync", "unmount") and a one-line result.
  std::function<void(const std::string& step, const std::string& text)> on_step;
};

struct ProvisionReport {
  image::WriteResult write;
  std::string boot_partition, root_partition;  ///< "/dev/loop3p1"
  std::string mount_dir;                       ///< the private temp dir (removed at the end)
  boot::PatchReport patch;
  boot::CheckReport check;
  std::vector<std::pair<std::string, std::string>> steps;  ///< (step, text) in order
};

/// Runs everything. DEVICE must be a whole disk (Error{Usage} before writing
/// otherwise). Errors from the write propagate as write_image() throws them;
/// a later failure is rethrown with the same kind and a message naming the
/// step, what was done, and the state of the disk. A boot check with findings
/// is not an exception: see report.check.ok().
ProvisionReport provision(const ProvisionOptions& opts);

}  // namespace piprov::provision
