#pragma once
// `piprov provision --dry-run IMAGE DEVICE...` (issue 27 item 3): each disk's
// whole plan, and no disk touched. The checks of a real run before the first
// byte (prepare_provision(): the write's checks, the seed files judged by
// the image's cloud-init; no confirmation is asked); then the image's boot partition and root files,
// read through the image reader into a private temporary directory
// (ImageTree), are patched there as boot patch would patch the disk, each
// disk's seed is written there and boot check runs on it: the findings and
// the exit code of the real run. Nothing is written to IMAGE or any DEVICE.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "boot/check.hpp"
#include "boot/patch.hpp"
#include "provision/image_check.hpp"
#include "provision/provision.hpp"
#include "provision/seed_notes.hpp"

namespace piprov::provision {

struct DryRunTarget {
  std::string target;
  std::string disk_id;       ///< what the identity step would do: "MBR disk identifier 4ec8ea53 -> a new random one"
  SeedPlan seed;             ///< empty files when no identity option was given
  std::string seed_refused;  ///< why the seed step would refuse (no cloud-init in the image), "" when it would not
  /// --wifi-country: the cmdline files that get cfg80211.ieee80211_regdom=CC (as the real run's
  /// seed step sets it, also without --wifi-ssid), empty when none or already set
  std::vector<std::string> regdom_set;
  SeedReplacement replacement;  ///< the image's seed files the seed replaces, a lost login (seed_notes.hpp)
  boot::CheckReport check;      ///< boot check after the patch and the seed, paths named as on the image
};

struct DryRunReport {
  std::string image, format;
  SeedCheck seed_check;
  boot::PatchReport patch;  ///< boot patch of the image's boot partition (the same on every disk)
  std::vector<DryRunTarget> targets;
  image::ReaderStats stats;
  std::uint64_t image_bytes = 0;  ///< the image's decoded size
};

/// boot patch with `patch`'s options applied to `tree`'s temporary copy of the image's boot
/// partition (and root files): what the real run's patch step does, judged from the image alone
/// (the dry run's plan; provision's refusal before writing). Errors (Error{Usage}: an unknown
/// layout, a layout that cannot boot `patch.board`, boot/patch.hpp) name the image's partition
/// ("IMAGE partition 1"), never the temporary directory.
boot::PatchReport patch_image_tree(const boot::PatchOptions& patch, const ImageTree& tree);

/// Plans `o` without writing. Throws what the real run throws before its
/// first byte (Error{Usage}: a refused target or seed), and Error{Usage} /
/// Error{Io} when the image cannot be read.
DryRunReport provision_dry_run(const ProvisionOptions& o);

/// The exit code the real run would have: 2 when a disk's seed would be
/// refused, else findings_exit_code() of the checks (0 or 1).
int dry_run_exit_code(const DryRunReport& r);

/// The text plan ("provision --dry-run: nothing was written ..." then each disk).
std::string dry_run_text(const DryRunReport& r);

/// `provision --dry-run --json` (schema "piprov.provision.dry-run/1", docs/provision.md):
/// image, format, decoded, seed_check, patch {summary, actions, config_diff, cmdline_diff},
/// targets [{target, disk_id, seed_files {name: text}, seed_refused, check (boot check --json)}], exit_code.
nlohmann::json dry_run_json(const ProvisionOptions& o, const DryRunReport& r);

}  // namespace piprov::provision
