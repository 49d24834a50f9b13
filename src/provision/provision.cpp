#include "provision/provision.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <thread>
#include <tuple>

#include "boot/cmdline_txt.hpp"
#include "boot/fat_tools.hpp"
#include "core/blockdev.hpp"
#include "core/error.hpp"
#include "core/fd.hpp"
#include "core/finding.hpp"
#include "core/mounts.hpp"
#include "core/strings.hpp"
#include "core/units.hpp"

namespace fs = std::filesystem;

namespace piprov::provision {
namespace {

// The image's two partitions: by label first (Ubuntu's `system-boot` and `writable`), else
// the first FAT and the first ext4. Retries for a few seconds while udev/blkid catch up.
std::pair<Partition, Partition> find_partitions(const std::string& device) {
  for (int attempt = 0;; ++attempt) {
    Disk d = probe_disk(device);
    const Partition *boot = nullptr, *root = nullptr;
    for (const auto& p : d.partitions) {
      if (!boot && to_lower(p.label) == "system-boot") boot = &p;
      if (!root && to_lower(p.label) == "writable") root = &p;
    }
    for (const auto& p : d.partitions) {
      if (!boot && p.fstype == "vfat") boot = &p;
      if (!root && (p.fstype == "ext4" || p.fstype == "ext3" || p.fstype == "ext2")) root = &p;
    }
    if (boot && root) return {*boot, *root};
    if (attempt >= 50) {
      std::string seen;
      for (const auto& p : d.partitions)
        seen += (seen.empty() ? "" : ", ") + p.path + " (" + (p.fstype.empty() ? "?" : p.fstype) +
                (p.label.empty() ? "" : " LABEL=" + p.label) + ")";
      throw Error(ErrorKind::Usage, "cannot find the " + std::string(boot ? "" : "system-boot (FAT) ") +
                                        (root ? "" : "writable (ext4) ") + "partition on " + device +
                                        " (found: " + (seen.empty() ? "no partitions" : seen) +
                                        "); is IMAGE an Ubuntu Raspberry Pi image?");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

std::string describe(const Partition& p) {
  return p.path + " (" + p.fstype + (p.label.empty() ? "" : ", LABEL=" + p.label) + ", " + format_bytes(p.size_bytes) +
         ")";
}

void sync_fs(const fs::path& dir) {
  UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd) throw io_error("cannot open " + dir.string(), errno);
  int rc = ::syncfs(fd.get());
  int err = errno;
  if (rc != 0) throw io_error("syncfs " + dir.string(), err);
}

// Mounts we made, unmounted in reverse order on every exit path.
struct MountGuard {
  std::vector<std::string> mounted;
  fs::path dir;
  std::vector<std::string> problems;
  void unmount_all() {
    while (!mounted.empty()) {
      try {
        unmount_filesystem(mounted.back());
        std::error_code ec;
        fs::remove(mounted.back(), ec);
      } catch (const Error& e) {
        problems.push_back(std::string(e.what()) + " (still mounted at " + mounted.back() + ")");
      }
      mounted.pop_back();
    }
    if (dir.empty() || !problems.empty()) return;
    // remove_all only when no child is still a mount point (different st_dev): never delete into a mounted fs.
    struct stat top {};
    if (::stat(dir.c_str(), &top) != 0) return;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
      struct stat sb {};
      if (::lstat(e.path().c_str(), &sb) != 0 || sb.st_dev != top.st_dev) return;
    }
    fs::remove_all(dir, ec);
  }
  ~MountGuard() {
    try {
      unmount_all();
    } catch (...) {
    }
  }
};

/// One provision run: the outline of named passes provision() calls, and the
/// state a failure message needs (which step, what the disk holds).
class Run {
 public:
  explicit Run(const ProvisionOptions& o) : o_(o), steps_(o.progress, kSteps) {}

  void check_arguments();
  void write();
  void identity();
  void find();
  void mount();
  void patch();
  void seed();
  void check();
  void sync();
  void unmount();
  /// The error of a failed step after the write, naming the step, the disk's
  /// state and how to finish by hand. Unmounts first.
  Error failure(const Error& e);

  ProvisionReport rep;
  std::string current = "partitions";  ///< the step running

 private:
  void step(const std::string& name, const std::string& text) {
    rep.steps.push_back({name, text, steps_.step(name, text)});
  }
  const ProvisionOptions& o_;
  ProgressSteps steps_;
  std::string state_;
  MountGuard guard_;
  Partition boot_, root_;
  fs::path boot_dir_, root_dir_;
  bool via_mtools_ = false;
  std::map<std::string, std::string> fat_before_;
  std::vector<SeedPlan> seeds_;  ///< planned before the write, one per target
};

void Run::check_arguments() {
  std::string parent;
  auto kind = classify_path(o_.write.target, &parent);
  if (kind != TargetKind::WholeDisk)
    throw Error(ErrorKind::Usage, o_.write.target + (kind == TargetKind::Partition
                                                         ? " is a partition; provision the whole disk " + parent
                                                         : " is not a whole disk: provision needs a block device "
                                                           "(for an image file, attach it with losetup --partscan)"));
  // Bad VID:PIDs are usage errors before anything is written.
  for (const auto& q : o_.patch.uas_quirks) boot::normalize_vid_pid(q);
  for (const auto& q : o_.usb_ids) boot::normalize_vid_pid(q);
  seeds_ = plan_seeds(o_.identity, {o_.write.target});  // every identity option checked before the write
}

void Run::write() {  // errors propagate as write_image() reports them
  image::WriteOptions wo = o_.write;
  if (!wo.progress) wo.progress = o_.progress;
  rep.write = image::write_image(wo);
  step("write", "wrote " + format_bytes(rep.write.bytes_written) + " (" + rep.write.format + ") to " +
                    rep.write.target + " in " + format_duration(rep.write.write_seconds) +
                    (rep.write.verified ? "; verified in " + format_duration(rep.write.verify_seconds)
                                        : "; not verified (--no-verify)"));
  state_ = o_.write.target + " holds the image as written" + (rep.write.verified ? " and verified" : "") +
           "; its boot partition is NOT patched yet";
}

void Run::identity() {
  current = "identity";
  rep.disk_identity = image::renew_disk_identity(o_.write.target);
  const auto& id = rep.disk_identity;
  state_ += "; it has a new disk identifier (" + id.new_id + "), its cmdline.txt/fstab PARTUUIDs not rewritten yet";
  step("identity", (id.label == "dos" ? "MBR disk identifier " : "GPT disk GUID ") + id.old_id + " -> " + id.new_id +
                       " (" + std::to_string(id.partuuids.size()) + " PARTUUIDs new)");
}

void Run::find() {
  current = "partitions";
  std::tie(boot_, root_) = find_partitions(o_.write.target);
  rep.boot_partition = boot_.path;
  rep.root_partition = root_.path;
  step("partitions", "boot " + describe(boot_) + ", root " + describe(root_));
}

void Run::mount() {
  current = "mount";
  std::string tmpl = (fs::temp_directory_path() / "piprov-provision-XXXXXX").string();
  if (!::mkdtemp(tmpl.data())) throw io_error("cannot create a temporary directory", errno);
  guard_.dir = tmpl;
  rep.mount_dir = tmpl;
  boot_dir_ = guard_.dir / "system-boot";
  root_dir_ = guard_.dir / "writable";
  fs::create_directory(root_dir_);
  fs::create_directory(boot_dir_);
  mount_filesystem(root_.path, root_dir_.string(), root_.fstype);
  guard_.mounted.push_back(root_dir_.string());
  try {
    mount_filesystem(boot_.path, boot_dir_.string(), boot_.fstype);
    guard_.mounted.push_back(boot_dir_.string());
  } catch (const Error& e) {
    // A kernel without vfat (some containers/CI hosts): work on a copy through mtools.
    if (std::string(e.what()).find("unknown filesystem type") == std::string::npos || !boot::mtools_available()) throw;
    boot::fat_copy_out(boot_.path, boot_dir_);
    fat_before_ = boot::tree_hashes(boot_dir_);
    via_mtools_ = true;
  }
  step("mount", via_mtools_
                    ? root_.path + " on " + root_dir_.string() + "; this kernel cannot mount vfat, so " + boot_.path +
                          " is copied to " + boot_dir_.string() + " with mtools, patched there and written back"
                    : boot_.path + " on " + boot_dir_.string() + ", " + root_.path + " on " + root_dir_.string());
}

void Run::patch() {
  current = "patch";
  boot::PatchOptions po = o_.patch;
  po.boot_dir = boot_dir_;
  po.root_dir = root_dir_;
  po.dry_run = false;
  rep.patch = boot::patch_boot(po);
  state_ = o_.write.target +
           " holds the image with a new disk identifier, and its boot partition is patched; "
           "its PARTUUID= references are not rewritten yet";
  step("patch", rep.patch.actions.empty() ? "nothing to change" : join(rep.patch.actions, "; "));
}

void Run::seed() {
  current = "seed";
  rep.seed = rewrite_partuuid_references(boot_dir_, root_dir_, rep.disk_identity);
  state_ = o_.write.target + " holds the image with a new disk identifier (" + rep.disk_identity.new_id +
           ") that its cmdline and fstab PARTUUID= references match, and its boot partition is patched";
  std::string text = rep.seed.rewritten.empty() ? "no PARTUUID= to rewrite"
                                                : "PARTUUID= rewritten in " + join(rep.seed.rewritten, ", ");
  if (seeds_.empty()) return step("seed", text + "; no identity options: no cloud-init seed");
  rep.seed.seed_files = write_checked_seed(boot_dir_, root_dir_, seeds_.front());
  rep.seed_plan = seeds_.front();
  state_ += "; it holds the cloud-init seed";
  step("seed", text + "; cloud-init seed (" + join(rep.seed.seed_files, ", ") + ") for " +
                   (rep.seed_plan.hostname.empty() ? "" : rep.seed_plan.hostname + ", ") + "instance-id " +
                   rep.seed_plan.instance_id);
}

void Run::check() {
  current = "check";
  boot::CheckOptions co;
  co.boot_dir = boot_dir_;
  co.root_dir = root_dir_;
  co.usb_ids = o_.usb_ids;
  co.scan_usb = false;  // the host's USB devices say nothing about the Pi's
  rep.check = boot::check_boot(co);
  auto counts = count_findings(rep.check.findings);
  step("check", rep.check.ok() ? "OK: [pi4] kernel=" + rep.check.kernel_file + " (vmlinux " +
                                     to_string(rep.check.kernel.state) + "), initramfs " + rep.check.initramfs +
                                     ", cmdline " + rep.check.cmdline_file + ", apt hook installed"
                               : std::to_string(counts.errors + counts.warnings) + " finding(s), listed below");
}

void Run::sync() {
  current = "sync";
  if (!via_mtools_) {
    sync_fs(boot_dir_);
    sync_fs(root_dir_);
    step("sync", "flushed both filesystems (syncfs)");
    return;
  }
  auto wb = boot::fat_write_back(boot_.path, boot_dir_, fat_before_);
  sync_fs(root_dir_);
  step("sync", std::to_string(wb.size() - 1) + " file(s) written back to " + boot_.path + " with mtools, " + wb.back() +
                   "; root fs flushed (syncfs)");
  std::error_code ec;
  fs::remove_all(boot_dir_, ec);
}

void Run::unmount() {
  current = "unmount";
  guard_.unmount_all();
  if (!guard_.problems.empty()) throw Error(ErrorKind::Io, guard_.problems.front());
  step("unmount", "unmounted " + (via_mtools_ ? root_.path : boot_.path + " and " + root_.path) + "; removed " +
                      guard_.dir.string());
}

Error Run::failure(const Error& e) {
  guard_.unmount_all();
  std::string mounts =
      guard_.problems.empty() ? "nothing of it is mounted any more" : "WARNING: " + guard_.problems.front();
  std::string redo = current == "patch" || current == "check" || current == "sync"
                         ? " To finish by hand: mount " +
                               (rep.boot_partition.empty() ? "the boot partition" : rep.boot_partition) + " and " +
                               (rep.root_partition.empty() ? "the root partition" : rep.root_partition) +
                               ", then run piprov boot patch BOOT_DIR --root ROOT_DIR."
                         : "";
  return Error(e.kind(), "provision failed at step '" + current + "': " + e.what() + ". Disk state: " + state_ +
                             " (files on it are replaced atomically, each is old or new); " + mounts + "." + redo);
}

nlohmann::json identity_json(const ProvisionReport& r) {
  const auto& id = r.disk_identity;
  return {{"disk_label", id.label},
          {"old_disk_id", id.old_id},
          {"new_disk_id", id.new_id},
          {"partuuids", id.partuuids},
          {"rewritten", r.seed.rewritten},
          {"hostname", r.seed_plan.hostname},
          {"instance_id", r.seed_plan.instance_id},
          {"seed_files", r.seed.seed_files}};
}

}  // namespace

ProvisionReport provision(const ProvisionOptions& o) {
  Run run(o);
  run.check_arguments();
  run.write();
  try {
    run.identity();
    run.find();
    run.mount();
    run.patch();
    run.seed();
    run.check();
    run.sync();
    run.unmount();
  } catch (const Error& e) {
    throw run.failure(e);
  }
  return std::move(run.rep);
}

nlohmann::json provision_json(const ProvisionReport& r) {
  nlohmann::json steps = nlohmann::json::array();
  for (const auto& s : r.steps) steps.push_back({{"step", s.step}, {"result", s.result}, {"seconds", s.seconds}});
  return {{"schema", "piprov.provision/2"},
          {"write", image::write_result_json(r.write)},
          {"boot_partition", r.boot_partition},
          {"root_partition", r.root_partition},
          {"identity", identity_json(r)},
          {"patch_actions", r.patch.actions},
          {"config_diff", r.patch.config_diff},
          {"check_ok", r.check.ok()},
          {"findings", findings_json(r.check.findings)},
          {"summary", findings_summary_json(r.check.findings, boot::kCheckFailOn)},
          {"steps", steps}};
}

}  // namespace piprov::provision
