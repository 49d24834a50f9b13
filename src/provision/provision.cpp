#include "provision/provision.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <optional>
#include <thread>

#include "boot/apt_hook.hpp"
#include "boot/cmdline_txt.hpp"
#include "boot/fat_tools.hpp"
#include "core/blockdev.hpp"
#include "core/cancel.hpp"
#include "core/error.hpp"
#include "core/fd.hpp"
#include "core/file.hpp"
#include "core/finding.hpp"
#include "core/mounts.hpp"
#include "core/strings.hpp"
#include "core/units.hpp"
#include "core/write_guard.hpp"
#include "image/disk_identity.hpp"
#include "provision/disk_mounts.hpp"
#include "provision/dry_run.hpp"
#include "provision/image_check.hpp"
#include "provision/seed_notes.hpp"

namespace fs = std::filesystem;

namespace piprov::provision {
namespace {

/// The per-disk passes for one written disk: the outline provision_target()
/// calls, and the state a failure message needs (which step, what the disk holds).
class TargetRun {
 public:
  TargetRun(const ProvisionOptions& o, std::size_t index, TargetReport& rep, const SeedPlan* seed)
      : o_(o), index_(index), rep_(rep), seed_(seed), target_(rep.target) {}

  void written();
  void identity();
  void find();
  void mount();
  void patch();
  void seed();
  void check();
  void sync();
  void unmount();
  /// Fails the disk (Error{Usage}) when the seed was refused: only now, so the
  /// patch and the PARTUUID= rewrite are on the disk and it is unmounted.
  void finish();
  /// The error of a failed step after the write, naming the step, the disk's
  /// state and how to finish by hand. Unmounts first.
  Error failure(const Error& e);
  /// The patch report's texts with the paths in the temp mounts (deleted at the
  /// end) named on their partitions instead (on_partition()).
  void name_on_partitions(boot::PatchReport& p) const;
  /// Place of this disk in o.write.targets (for per-disk settings).
  std::size_t index() const { return index_; }

 private:
  /// One running step of this disk (RAII): from construction it is the step a
  /// failure names and its clock runs; done() sends its Step event and records
  /// its StepResult. A step that throws reports nothing: failure() names it.
  /// Every step but write (already done) and unmount (a failure unmounts too)
  /// begins at a safe point: after SIGINT/SIGTERM it throws Error{Interrupted}
  /// instead of starting, so the disk fails at that step.
  class StepScope {
   public:
    StepScope(TargetRun& run, Step step)
        : run_(run),
          step_(step),
          progress_(run.o_.progress, std::string(step_name(step)), step_number(step), kSteps,
                    run.o_.write.targets.size() > 1 ? run.target_ : std::string()) {
      run_.current_ = step;
      if (step != Step::Write && step != Step::Unmount)
        throw_if_cancelled("(SIGINT or SIGTERM) before this step began");
    }
    void done(const std::string& text, std::optional<double> measured = std::nullopt) {
      run_.rep_.steps.push_back({step_, text, progress_.finish(text, measured)});
    }

   private:
    TargetRun& run_;
    Step step_;
    ProgressStep progress_;
  };
  const ProvisionOptions& o_;
  std::size_t index_;
  TargetReport& rep_;
  const SeedPlan* seed_;  ///< nullptr: no identity options
  std::string refused_;   ///< why the seed was not written ("" when it was or none was asked for)
  std::string target_;
  Step current_ = Step::Write;  ///< the step running (a failure names it)
  std::string state_;
  MountGuard guard_;
  Disk disk_;  ///< the target as probed once, after its new disk identifier (find())
  Partition boot_, root_;
  fs::path boot_dir_, root_dir_;
  std::optional<boot::FatDir> boot_fat_;  ///< the boot partition: mounted on boot_dir_, or its mtools copy there
  bool via_mtools_ = false;
  /// Unmounts the boot partition (or removes its copy), then the rest (guard_); problems go to guard_.problems.
  void unmount_all();
};

void TargetRun::written() {
  const auto& w = rep_.write;
  StepScope(*this, Step::Write)
      .done("wrote " + format_bytes(w.bytes_written) + " to " + target_ + " in " + format_duration(w.write_seconds) +
                (w.verified ? "; verified in " + format_duration(w.verify_seconds) : "; not verified (--no-verify)"),
            w.write_seconds + w.verify_seconds);  // timed by the write, before this disk's steps began
  state_ = target_ + " holds the image as written" + (w.verified ? " and verified" : "") +
           "; its boot partition is NOT patched yet";
}

void TargetRun::identity() {
  StepScope step(*this, Step::Identity);
  rep_.disk_identity = image::renew_disk_identity(target_);
  const auto& id = rep_.disk_identity;
  state_ += "; it has a new disk identifier (" + id.new_id + ") that its PARTUUID= references do not name yet";
  step.done((id.label == image::TableScheme::Dos ? "MBR disk identifier " : "GPT disk GUID ") + id.old_id + " -> " +
            id.new_id + " (" + std::to_string(id.partuuids.size()) + " new PARTUUIDs)");
}

void TargetRun::find() {
  StepScope step(*this, Step::Partitions);
  DiskPartitions found = find_partitions(target_);
  disk_ = std::move(found.disk);
  boot_ = found.boot;
  root_ = found.root;
  rep_.autoboot = follow_autoboot(disk_, boot_);  // a first FAT partition of only autoboot.txt: its boot_partition
  if (rep_.autoboot) boot_ = rep_.autoboot->boot;
  rep_.boot_partition_reason = boot_partition_reason(boot_, rep_.autoboot);
  rep_.boot_partition = boot_.path;
  rep_.root_partition = root_.path;
  step.done("boot " + describe_partition(boot_) + (rep_.autoboot ? autoboot_partitions_text(*rep_.autoboot) : "") +
            ", root " + describe_partition(root_));
}

void TargetRun::mount() {
  StepScope step(*this, Step::Mount);
  guard_.dir = make_temp_dir("provision");
  rep_.mount_dir = guard_.dir.string();
  boot_dir_ = guard_.dir / "system-boot";
  root_dir_ = guard_.dir / "writable";
  fs::create_directory(root_dir_);
  fs::create_directory(boot_dir_);
  mount_filesystem(root_.path, root_dir_.string(), root_.fstype);
  guard_.mounted.push_back(root_dir_.string());
  // A kernel without vfat (some containers/CI hosts): FatDir works on a copy through mtools.
  boot::FatDirOptions fat;
  fat.writable = true;
  fat.dir = boot_dir_;
  boot_fat_.emplace(boot_.path, fat);
  via_mtools_ = boot_fat_->copied();
  step.done(via_mtools_
                ? root_.path + " on " + root_dir_.string() + "; this kernel cannot mount vfat, so " + boot_.path +
                      " is copied to " + boot_dir_.string() + " with mtools, patched there and written back"
                : boot_.path + " on " + boot_dir_.string() + ", " + root_.path + " on " + root_dir_.string());
}

void TargetRun::patch() {
  StepScope step(*this, Step::Patch);
  boot::PatchOptions po = o_.patch;
  po.boot_dir = boot_dir_;
  po.root_dir = root_dir_;
  po.dry_run = false;
  rep_.patch = boot::patch_boot(po);
  name_on_partitions(rep_.patch);
  state_ = target_ + " holds the image with a new disk identifier, and its boot partition is " +
           (rep_.patch.changed() ? "patched" : "as in the image (nothing to patch)") +
           "; its PARTUUID= references are not rewritten yet";
  step.done(patch_summary(rep_.patch));
}

void TargetRun::seed() {
  StepScope step(*this, Step::Seed);
  rep_.seed = rewrite_partuuid_references(boot_dir_, root_dir_, rep_.disk_identity);
  // A trial boot must find its root too; no seed there (docs/provision.md).
  if (rep_.autoboot && rep_.autoboot->tryboot)
    rep_.autoboot->tryboot_rewritten = rewrite_partition_partuuids(*rep_.autoboot->tryboot, rep_.disk_identity);
  state_ = target_ + " holds the image with a new disk identifier (" + rep_.disk_identity.new_id +
           ") that its cmdline and fstab PARTUUID= references match, and its boot partition is " +
           (rep_.patch.changed() ? "patched" : "as the layout ships it (nothing to patch)");
  std::string text = rep_.seed.rewritten.empty() ? "no PARTUUID= to rewrite"
                                                 : "PARTUUID= rewritten in " + join(rep_.seed.rewritten, ", ");
  if (rep_.autoboot) text += autoboot_seed_text(*rep_.autoboot);
  if (!seed_) return step.done(text + "; no identity options: no cloud-init seed");
  if (!seed_->writes_files()) {  // --wifi-country alone: the cmdline only, the image's seed stays
    rep_.seed.regdom_set = set_wifi_regdom(boot_dir_, seed_->wifi_country);
    rep_.seed_plan = *seed_;
    return step.done(text + "; " + regdom_text(seed_->wifi_country, rep_.seed.regdom_set) +
                     "; no cloud-init seed (--wifi-country alone changes only the cmdline)");
  }
  if (std::string why = cloud_init_missing(root_dir_); !why.empty()) {
    refused_ = why +
               "; no seed was written: use an image with cloud-init (Ubuntu's raspi images, Raspberry Pi OS "
               "trixie) or provision without identity options";
    state_ += "; no cloud-init seed was written";
    return step.done(text + "; REFUSED: " + why);
  }
  const SeedReplacement replacement = seed_replacement(boot_dir_, *seed_);
  rep_.seed.replaced = replacement.replaced;
  rep_.seed.login_warning = replacement.login_warning;
  rep_.seed.seed_files = write_seed(*seed_, boot_dir_);
  if (!seed_->wifi_country.empty()) rep_.seed.regdom_set = set_wifi_regdom(boot_dir_, seed_->wifi_country);
  rep_.seed_plan = *seed_;
  state_ += "; it holds its cloud-init seed";
  if (!seed_->wifi_country.empty())
    text += "; " + regdom_text(seed_->wifi_country, rep_.seed.regdom_set);
  else if (!seed_->wifi_ssid.empty())
    text += "; Wi-Fi country: " + wifi_without_country_note();
  if (!seed_->regdom_note.empty()) text += "; " + seed_->regdom_note;
  text += "; cloud-init seed (" + join(rep_.seed.seed_files, ", ") + ") for " +
          (seed_->hostname.empty() ? "" : seed_->hostname + ", ") + "instance-id " + seed_->instance_id;
  if (const std::string r = seed_replacement_text(replacement); !r.empty()) text += "; " + r;
  step.done(text);
}

void TargetRun::check() {
  StepScope step(*this, Step::Check);
  boot::CheckOptions co;
  co.boot_dir = boot_dir_;
  co.root_dir = root_dir_;
  co.usb_ids = o_.usb_ids;
  co.board = o_.patch.board;  // --board: what the firmware of that Pi loads (kernel_2712.img on a Pi 5)
  co.scan_usb = false;        // the host's USB devices say nothing about the Pi's
  co.disk = disk_;            // root= must name a partition of it: probed after its new disk identifier
  co.disk_partuuids = co.disk_labels = true;
  rep_.check = boot::check_boot(co);
  name_check_on_partitions(rep_.check, boot_dir_.string(), boot_.path, root_dir_.string(), root_.path);
  step.done(check_step_text(rep_.check, boot::inspect_hooks(root_dir_, boot_dir_).conf_installed));
}

void TargetRun::name_on_partitions(boot::PatchReport& p) const {
  auto name = [this](std::string text) {
    return on_partition(on_partition(std::move(text), boot_dir_.string(), "boot", boot_.path), root_dir_.string(),
                        "root", root_.path);
  };
  for (auto& a : p.actions) a = name(a);
  for (auto& n : p.notes) n = name(n);
  p.summary = name(p.summary);
  p.config_diff = name(p.config_diff);
  p.cmdline_diff = name(p.cmdline_diff);
}

void TargetRun::sync() {
  StepScope step(*this, Step::Sync);
  if (!via_mtools_) {
    sync_fs(boot_dir_);
    sync_fs(root_dir_);
    step.done("flushed both filesystems (syncfs)");
    return;
  }
  auto wb = boot_fat_->write_back();
  sync_fs(root_dir_);
  step.done(std::to_string(wb.size() - 1) + " file(s) written back to " + boot_.path + " with mtools, " + wb.back() +
            "; root fs flushed (syncfs)");
  boot_fat_->close();  // the copy, written back
}

void TargetRun::unmount_all() {
  if (boot_fat_)
    if (std::string problem = boot_fat_->close(); !problem.empty()) guard_.problems.push_back(problem);
  guard_.unmount_all();
}

void TargetRun::unmount() {
  StepScope step(*this, Step::Unmount);
  unmount_all();
  if (!guard_.problems.empty()) throw Error(ErrorKind::Io, guard_.problems.front());
  step.done("unmounted " + (via_mtools_ ? root_.path : boot_.path + " and " + root_.path) + "; removed " +
            guard_.dir.string());
}

void TargetRun::finish() {
  if (refused_.empty()) return;
  current_ = Step::Seed;  // the refusal is the seed step's, reported once the disk is unmounted
  throw Error(ErrorKind::Usage, refused_);
}

Error TargetRun::failure(const Error& e) {
  rep_.failed_step = current_;
  unmount_all();
  std::string mounts =
      guard_.problems.empty() ? "nothing of it is mounted any more" : "WARNING: " + guard_.problems.front();
  // boot patch refusing the partition (exit 2: a layout it does not take, no root=, a Pi 5) would
  // refuse it again by hand: its own message says what to do.
  const bool refused = current_ == Step::Patch && e.kind() == ErrorKind::Usage;
  std::string redo = !refused && (current_ == Step::Patch || current_ == Step::Check || current_ == Step::Sync)
                         ? " To finish by hand: mount " +
                               (rep_.boot_partition.empty() ? "the boot partition" : rep_.boot_partition) + " and " +
                               (rep_.root_partition.empty() ? "the root partition" : rep_.root_partition) +
                               ", then run piprov boot patch BOOT_DIR --root ROOT_DIR."
                         : "";
  // The step's error names the disk's partitions, not the temp dirs removed above; a boot patch
  // refusal's "nothing was changed" is the patch's: the disk was written (Disk state says how).
  std::string what = e.what();
  if (!boot_dir_.empty())
    what = on_partition(on_partition(std::move(what), boot_dir_.string(), "boot", boot_.path), root_dir_.string(),
                        "root", root_.path);
  if (refused && what.ends_with("; nothing was changed"))
    what.replace(what.size() - std::string_view("nothing was changed").size(), std::string::npos,
                 "the boot partition was not patched");
  return Error(e.kind(), "provision failed at step '" + std::string(step_name(current_)) + "': " + what +
                             ". Disk state: " + state_ +
                             " (files on it are replaced atomically, each is old or new); " + mounts + "." + redo);
}

/// The per-disk passes for one disk. A disk whose write failed gets only its
/// error; a failed pass is recorded (error names the step) and the others go
/// on. Throws no std::exception (it runs on its own thread): one that is not
/// an Error (std::filesystem, std::bad_alloc) fails the disk as Error{Io}.
void provision_target(const ProvisionOptions& o, std::size_t index, TargetReport& rep, const SeedPlan* seed) {
  rep.target = rep.write.target;
  if (!rep.write.ok) {
    rep.error_kind = rep.write.error_kind;
    rep.error = rep.write.error;
    return;
  }
  const auto start = std::chrono::steady_clock::now();
  TargetRun run(o, index, rep, seed);
  run.written();
  auto fail = [&](const Error& e) {
    // The interrupt is what the user did: a child tool cut short (mcopy's exit 130) is named after it.
    Error f =
        run.failure(cancel_requested() && e.kind() != ErrorKind::Interrupted
                        ? Error(ErrorKind::Interrupted,
                                std::string("interrupted (SIGINT or SIGTERM) during this step (") + e.what() + ")")
                        : e);
    // After SIGINT/SIGTERM a step that failed (a system call cut short: EINTR) is the interrupt's.
    rep.error_kind = cancel_requested() ? ErrorKind::Interrupted : f.kind();
    rep.error = f.what();
  };
  try {
    run.identity();
    run.find();
    run.mount();
    run.patch();
    run.seed();
    run.check();
    run.sync();
    run.unmount();
    run.finish();
    rep.ok = true;
  } catch (const Error& e) {
    fail(e);
  } catch (const std::exception& e) {  // std::filesystem, std::bad_alloc, a library's own exception
    fail(Error(ErrorKind::Io, e.what()));
  }
  rep.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// provision_target() for every disk at once, one thread each: each disk has
/// its own mounts in its own temp dir, and `o.progress` must take events from
/// several threads (provision_all() serialises it). Returns the wall-clock
/// seconds until the last disk's steps ended. Rethrows, after every thread
/// ended, what escaped one (nothing does but a foreign exception).
double provision_in_parallel(const ProvisionOptions& o, std::vector<TargetReport>& targets,
                             const std::vector<SeedPlan>& seeds) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::exception_ptr> escaped(targets.size());
  std::vector<std::thread> threads;
  threads.reserve(targets.size());
  for (std::size_t i = 0; i < targets.size(); ++i)
    threads.emplace_back([&o, &targets, &seeds, &escaped, i] {
      try {
        provision_target(o, i, targets[i], seeds.empty() ? nullptr : &seeds[i]);
      } catch (...) {
        escaped[i] = std::current_exception();
      }
    });
  for (auto& t : threads) t.join();
  for (const auto& e : escaped)
    if (e) std::rethrow_exception(e);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// The error when no disk got through: its own line, or one per disk.
Error none_provisioned(const ProvisionReport& rep) {
  std::vector<std::string> lines;
  lines.reserve(rep.targets.size());
  for (const auto& t : rep.targets) lines.push_back(t.error);
  return Error(rep.targets.front().error_kind, join(lines, "\n"));
}

}  // namespace

std::optional<Error> no_disk_provisioned(const ProvisionReport& rep) {
  if (rep.targets.empty() || rep.succeeded() > 0) return std::nullopt;
  return none_provisioned(rep);
}

ProvisionReport provision_all(const ProvisionOptions& o) {
  ProvisionReport rep;
  ProvisionOptions po = o;
  po.progress = serialised_sink(o.progress);  // every disk's steps report at once
  PreparedProvision prepared = prepare_provision(po);
  rep.seed_check = std::move(prepared.seed_check);
  const std::vector<SeedPlan> seeds = std::move(prepared.seeds);
  refuse_unpatchable_image(po, prepared);
  prepared.tree.reset();                                    // its temporary copy goes before the write
  rep.write = image::run_write(std::move(prepared.write));  // errors propagate as write_image() reports them
  rep.targets.resize(rep.write.targets.size());
  for (std::size_t i = 0; i < rep.targets.size(); ++i) rep.targets[i].write = rep.write.targets[i];
  rep.steps_seconds = provision_in_parallel(po, rep.targets, seeds);
  rep.interrupted = cancel_requested();  // also a signal after a disk's last step began: exit 130 all the same
  return rep;
}

}  // namespace piprov::provision
