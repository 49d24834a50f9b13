#pragma once
// `piprov provision IMAGE DEVICE...`: write every disk from one decode
// (image::write_image, same safety and verify); then for every disk written,
// all disks at once (a thread each): a new disk identity (first_boot.hpp),
// find `system-boot` and `writable` with libblkid (by label, else the first FAT
// and ext4 partitions; a FAT partition of only autoboot.txt: the one it names,
// autoboot_target.hpp), mount both in a private temp dir, boot patch --root,
// seed (PARTUUID= rewrite and the cloud-init NoCloud seed), boot check, sync,
// unmount: the steps of steps.hpp, one short function each.
// On a failure after the write it unmounts and says what state the disk is in;
// the other disks go on.
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "boot/check.hpp"
#include "boot/patch.hpp"
#include "core/error.hpp"
#include "core/progress.hpp"
#include "image/write.hpp"
#include "provision/autoboot_target.hpp"
#include "provision/first_boot.hpp"
#include "provision/identity.hpp"
#include "provision/image_check.hpp"
#include "provision/steps.hpp"

namespace piprov::provision {

struct ProvisionOptions {
  image::WriteOptions write;         ///< IMAGE, DEVICE... and write's options (write.targets: one or more disks)
  boot::PatchOptions patch;          ///< optional [pi4] settings, UAS quirks and --board (dirs are filled in)
  std::vector<std::string> usb_ids;  ///< passed to boot check
  IdentityOptions identity;          ///< first-boot identity, one seed per disk (none given: no seed)
  /// Receives the write's progress (write.progress, when that is empty) and a
  /// Step event as each step of each target (steps.hpp) ends: phase
  /// step_name(), index/count its place in kStepOrder, text its one-line
  /// result, elapsed_s its duration; with several targets,
  /// ProgressEvent::target names the disk.
  ProgressSink progress;
};

/// One finished step, as its Step event reported it.
struct StepResult {
  Step step = Step::Write;
  std::string result;  ///< one line
  double seconds = 0;  ///< wall-clock duration of the step
};

/// What provision did to one disk.
struct TargetReport {
  std::string target;                          ///< the DEVICE as given
  bool ok = false;                             ///< every step finished (a boot check with findings still counts)
  ErrorKind error_kind = ErrorKind::Io;        ///< when !ok: the failed step's kind (Interrupted after SIGINT/SIGTERM)
  std::string error;                           ///< when !ok: "provision failed at step 'S': ..." or the write's error
  Step failed_step = Step::Write;              ///< when !ok: the step that failed (S above)
  image::TargetOutcome write;                  ///< the write's outcome for this disk
  std::string boot_partition, root_partition;  ///< "/dev/loop3p1"
  std::string mount_dir;                       ///< the private temp dir (removed at the end)
  boot::BootLayout layout;                     ///< the boot layout as written (boot::detect_layout, before patching)
  boot::PatchReport patch;
  image::DiskIdentity disk_identity;  ///< the disk's old and new identifiers and PARTUUIDs
  SeedPlan seed_plan;                 ///< this disk's seed (empty without identity options)
  SeedOutcome seed;                   ///< PARTUUID= rewrites and the seed files written
  boot::CheckReport check;
  std::vector<StepResult> steps;  ///< in order
  /// Wall-clock seconds of this disk's steps after the write (identity to
  /// unmount, or to the failed one); the disks' steps run at the same time.
  double seconds = 0;
  /// Why boot_partition: "autoboot.txt boot_partition=2", "LABEL=system-boot", "the first FAT partition".
  std::string boot_partition_reason;
  /// Set when the first FAT partition holds only autoboot.txt: boot_partition is the one it names.
  std::optional<AutobootBoot> autoboot;
};

struct ProvisionReport {
  image::WriteResult write;           ///< the one decode (write.targets: per-disk write outcomes)
  std::vector<TargetReport> targets;  ///< one per DEVICE, same order
  SeedCheck seed_check;  ///< the check of the user's seed files (warnings; errors refused before the write)
  /// Wall-clock seconds from the end of the write until the last disk's steps
  /// ended (every disk's steps run in parallel, one thread each).
  double steps_seconds = 0;
  /// SIGINT/SIGTERM arrived while the disks' steps ran (cancel_requested() at their end), also
  /// after a disk's last step began: then that disk may have finished (ok) and the exit is still
  /// 130 (exit_code(), interrupted_text()).
  bool interrupted = false;
  std::size_t succeeded() const;
};

/// Runs everything: prepare_provision(), then the one write of every DEVICE
/// (image::run_write(): its confirmation, same safety and verify), then the
/// per-disk steps of every disk written at the same time (a thread per disk;
/// opts.progress gets one event at a time). A disk whose write or later step
/// fails is reported in its TargetReport (message naming the step, what was
/// done, and the state of the disk) and the others go on. Returns the report
/// also when no disk got through after the write (every per-disk step
/// failed), so `--json` can print it: pair with no_disk_provisioned(). Throws
/// only what happens before or during the write (as write_image() throws
/// it). A boot check with findings is not an exception: see
/// TargetReport::check.ok(). SIGINT/SIGTERM (cancel_requested(),
/// core/cancel.hpp) after the write fails each disk at its next step but
/// unmount (Error{Interrupted}; it is unmounted).
ProvisionReport provision_all(const ProvisionOptions& opts);

/// What provision made ready before the first byte (prepare_provision()).
struct PreparedProvision {
  image::PreparedWrite write;   ///< the write, checked and opened (image::prepare_write())
  std::vector<SeedPlan> seeds;  ///< one per DEVICE; empty without identity options
  SeedCheck seed_check;         ///< the user's seed files judged (warnings; errors were thrown)
  /// A random-access image's boot partition and root files, read once through write.reader() (the
  /// dry run's plan and the real run's refusal before the write both judge it); nullptr for an image
  /// read only from its start (gzip, single-block xz). Declared after `write`: destroyed first.
  std::unique_ptr<ImageTree> tree;
};

/// What provision checks before the first byte, each thing once: VID:PIDs
/// must parse; image::prepare_write() with the write guard's rules for a
/// disk to provision (every DEVICE a whole disk; each inspected once; IMAGE
/// opened, its partition table read once); the identity options must give
/// one valid seed per disk (the user's files judged by the image's
/// cloud-init, read through the write's reader); the image must have a
/// partition table; a random-access image's tree read (PreparedProvision::tree,
/// through the write's reader: IMAGE is not opened again). Throws Error{Usage}
/// (or what prepare_write() and ImageTree throw); writes nothing and asks
/// nothing (run_write() asks).
PreparedProvision prepare_provision(const ProvisionOptions& o);

/// The real run's patch step made on the image alone, before the first byte (boot/patch.hpp:
/// a layout boot patch refuses, `unknown`, such as a U-Boot kernel= on a root fs that is not
/// Ubuntu's or a config.txt with no kernel= for the board; with a Pi 5 family --board, the
/// Pi 4 fix of Ubuntu 20.04's U-Boot layout), as `provision --dry-run` makes it:
/// patch_image_tree() on prepared.tree, for o.patch.board (one board for every DEVICE). Judged
/// on a random-access image whose root fs was read (without it the layout is the disk's to
/// tell), and, with a Pi 5 family board, on a sequential one too (its start, through a reader
/// of its own). An image whose first FAT partition holds only autoboot.txt is left to the
/// real run, which follows it on the disk. Throws patch_image_tree()'s Error (Usage), its text
/// ending "nothing was written"; nothing for an image boot patch accepts. A sequential image
/// with another board is written first and refused at the patch step (docs/provision.md).
void refuse_unpatchable_image(const ProvisionOptions& o, PreparedProvision& prepared);

/// The error for `rep` when no disk got through after the write (one line
/// per disk, the first disk's error kind); nullopt when one did.
std::optional<Error> no_disk_provisioned(const ProvisionReport& rep);

/// `provision --json` (schema "piprov.provision/3", docs/provision.md): the
/// write's stream fields and speed ("write"), and a "targets" array, one
/// object per disk: the write outcome, "identity" (new disk id, PARTUUIDs,
/// files rewritten, hostname, instance_id, seed_files), partitions, patch actions and diff,
/// boot check findings + summary, the steps with their durations in seconds;
/// "seed_check": {validator, partial, rules, findings} of the user's seed files;
/// "interrupted": true when SIGINT/SIGTERM arrived while the steps ran (exit 130).
nlohmann::json provision_json(const ProvisionReport& r);

/// The "seed_check" object of `provision --json` and `seed check --json`:
/// {validator, partial, rules, findings}.
nlohmann::json seed_check_json(const SeedCheck& c);

/// The last text line of a disk that got through (t.ok): "provision: DEV is
/// ready: ..." saying why it boots from USB (as shipped, [pi4] kernel=vmlinuz,
/// or kernel=vmlinux and the apt hook), or "provision: DEV was written and
/// patched, but boot check found problems (above)" when the check has findings.
std::string ready_sentence(const TargetReport& t);

/// The summary line of the per-disk steps, each disk's time (wall clock):
/// "provision: steps after the write: 3 disks in parallel in 2.1 s (/dev/sdb
/// 1.9 s, /dev/sdc failed at 'mount' after 0.3 s, /dev/sdd 2.0 s)"; a disk whose
/// write failed ran no step and is not listed.
std::string steps_summary(const ProvisionReport& rep);

/// The line that says what an interrupt left ("" unless rep.interrupted): "provision: interrupted
/// (SIGINT or SIGTERM): /dev/sdb finished every step (it is ready as said above); /dev/sdc did
/// not (failed at 'seed')".
std::string interrupted_text(const ProvisionReport& rep);

/// provision's exit code: 130 (ErrorKind::Interrupted) when a disk's steps were
/// interrupted (SIGINT/SIGTERM), also when the signal came during or after the last step of
/// every disk (rep.interrupted), 5 (ErrorKind::Partial) when some disk failed, else
/// the boot check's code over every disk's findings (0, or 1 with findings).
/// When no disk got through, no_disk_provisioned() is the error instead.
int exit_code(const ProvisionReport& rep);

/// The patch step's line: the layout boot patch found as written and its summary,
/// "layout ubuntu-direct (Ubuntu 24.04 LTS): nothing to do: Ubuntu 24.04 LTS boots
/// from USB as shipped", then the file actions when there are any.
std::string patch_summary(const boot::PatchReport& p);

/// The check step's line: "OK: kernel kernel8.img, initramfs initramfs8,
/// cmdline cmdline.txt" (the initramfs boot check reports, ResolvedBoot::initramfs:
/// `initramfs FILE` or auto_initramfs=1's file; the part left out when there is
/// none), "(fresh)" after a vmlinux kernel, ", apt hook installed" with
/// `hook_installed`; "N finding(s), listed below" when the check fails.
std::string check_step_text(const boot::CheckReport& c, bool hook_installed);

/// `text` with each path below `dir` (where provision mounted a partition,
/// deleted when it ends) named on the partition instead: "DIR/config.txt.piprov-orig"
/// -> "config.txt.piprov-orig on the boot partition (/dev/sdb1)" for `role`
/// "boot"; a "root" path keeps its leading "/" ("/usr/lib/piprov/x on the root
/// partition (/dev/sdb2)"). A path ends at white space or ':'. `dir` empty: `text` as it is.
std::string on_partition(std::string text, const std::string& dir, const std::string& role, const std::string& device);

/// boot check's findings (message, fix) and layout evidence with the temporary mount points named
/// as on_partition() names them: "extra.txt does not exist in the boot partition (/dev/sdb1)", not
/// a /tmp directory the run removes.
void name_check_on_partitions(boot::CheckReport& check, const std::string& boot_dir, const std::string& boot_device,
                              const std::string& root_dir, const std::string& root_device);

}  // namespace piprov::provision
