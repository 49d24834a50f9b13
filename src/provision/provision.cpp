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

#include "boot/cmdline_txt.hpp"
#include "boot/fat_tools.hpp"
#include "core/blockdev.hpp"
#include "core/error.hpp"
#include "core/fd.hpp"
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

}  // namespace

ProvisionReport provision(const ProvisionOptions& o) {
  ProvisionReport rep;
  ProgressSteps steps(o.progress, kSteps);
  auto step = [&](const std::string& name, const std::string& text) {
    rep.steps.push_back({name, text, steps.step(name, text)});
  };
  std::string parent;
  auto kind = classify_path(o.write.target, &parent);
  if (kind != TargetKind::WholeDisk)
    throw Error(ErrorKind::Usage, o.write.target + (kind == TargetKind::Partition
                                                        ? " is a partition; provision the whole disk " + parent
                                                        : " is not a whole disk: provision needs a block device "
                                                          "(for an image file, attach it with losetup --partscan)"));

  // Bad VID:PIDs are usage errors before anything is written.
  for (const auto& q : o.patch.uas_quirks) boot::normalize_vid_pid(q);
  for (const auto& q : o.usb_ids) boot::normalize_vid_pid(q);

  // 1. write (errors propagate as write reports them).
  image::WriteOptions wo = o.write;
  if (!wo.progress) wo.progress = o.progress;
  rep.write = image::write_image(wo);
  step("write", "wrote " + format_bytes(rep.write.bytes_written) + " (" + rep.write.format + ") to " +
                    rep.write.target + " in " + format_duration(rep.write.write_seconds) +
                    (rep.write.verified ? "; verified in " + format_duration(rep.write.verify_seconds)
                                        : "; not verified (--no-verify)"));

  std::string state = o.write.target + " holds the image as written" + (rep.write.verified ? " and verified" : "") +
                      "; its boot partition is NOT patched yet";
  MountGuard guard;
  std::string current = "partitions";
  try {
    auto [boot, root] = find_partitions(o.write.target);
    rep.boot_partition = boot.path;
    rep.root_partition = root.path;
    step("partitions", "boot " + describe(boot) + ", root " + describe(root));

    current = "mount";
    std::string tmpl = (fs::temp_directory_path() / "piprov-provision-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) throw io_error("cannot create a temporary directory", errno);
    guard.dir = tmpl;
    rep.mount_dir = tmpl;
    fs::path boot_dir = guard.dir / "system-boot", root_dir = guard.dir / "writable";
    fs::create_directory(root_dir);
    fs::create_directory(boot_dir);
    mount_filesystem(root.path, root_dir.string(), root.fstype);
    guard.mounted.push_back(root_dir.string());
    bool via_mtools = false;
    std::map<std::string, std::string> fat_before;
    try {
      mount_filesystem(boot.path, boot_dir.string(), boot.fstype);
      guard.mounted.push_back(boot_dir.string());
    } catch (const Error& e) {
      // A kernel without vfat (some containers/CI hosts): work on a copy through mtools.
      if (std::string(e.what()).find("unknown filesystem type") == std::string::npos || !boot::mtools_available())
        throw;
      boot::fat_copy_out(boot.path, boot_dir);
      fat_before = boot::tree_hashes(boot_dir);
      via_mtools = true;
    }
    step("mount", via_mtools
                      ? root.path + " on " + root_dir.string() + "; this kernel cannot mount vfat, so " + boot.path +
                            " is copied to " + boot_dir.string() + " with mtools, patched there and written back"
                      : boot.path + " on " + boot_dir.string() + ", " + root.path + " on " + root_dir.string());

    current = "patch";
    boot::PatchOptions po = o.patch;
    po.boot_dir = boot_dir;
    po.root_dir = root_dir;
    po.dry_run = false;
    rep.patch = boot::patch_boot(po);
    state = o.write.target + " holds the image, and its boot partition is patched";
    std::string acts;
    for (const auto& a : rep.patch.actions) acts += (acts.empty() ? "" : "; ") + a;
    step("patch", acts.empty() ? "nothing to change" : acts);

    current = "check";
    boot::CheckOptions co;
    co.boot_dir = boot_dir;
    co.root_dir = root_dir;
    co.usb_ids = o.usb_ids;
    co.scan_usb = false;  // the host's USB devices say nothing about the Pi's
    rep.check = boot::check_boot(co);
    auto counts = count_findings(rep.check.findings);
    int problems = counts.errors + counts.warnings;
    step("check", rep.check.ok() ? "OK: [pi4] kernel=" + rep.check.kernel_file + " (vmlinux " +
                                       to_string(rep.check.kernel.state) + "), initramfs " + rep.check.initramfs +
                                       ", cmdline " + rep.check.cmdline_file + ", apt hook installed"
                                 : std::to_string(problems) + " finding(s), listed below");

    current = "sync";
    if (via_mtools) {
      auto wb = boot::fat_write_back(boot.path, boot_dir, fat_before);
      sync_fs(root_dir);
      step("sync", std::to_string(wb.size() - 1) + " file(s) written back to " + boot.path + " with mtools, " +
                       wb.back() + "; root fs flushed (syncfs)");
      std::error_code ec;
      fs::remove_all(boot_dir, ec);
    } else {
      sync_fs(boot_dir);
      sync_fs(root_dir);
      step("sync", "flushed both filesystems (syncfs)");
    }

    current = "unmount";
    guard.unmount_all();
    if (!guard.problems.empty()) throw Error(ErrorKind::Io, guard.problems.front());
    step("unmount",
         "unmounted " + (via_mtools ? root.path : boot.path + " and " + root.path) + "; removed " + guard.dir.string());
  } catch (const Error& e) {
    guard.unmount_all();
    std::string mounts =
        guard.problems.empty() ? "nothing of it is mounted any more" : "WARNING: " + guard.problems.front();
    std::string redo = current == "patch" || current == "check" || current == "sync"
                           ? " To finish by hand: mount " +
                                 (rep.boot_partition.empty() ? "the boot partition" : rep.boot_partition) + " and " +
                                 (rep.root_partition.empty() ? "the root partition" : rep.root_partition) +
                                 ", then run piprov boot patch BOOT_DIR --root ROOT_DIR."
                           : "";
    throw Error(e.kind(), "provision failed at step '" + current + "': " + e.what() + ". Disk state: " + state +
                              " (files on it are replaced atomically, each is old or new); " + mounts + "." + redo);
  }
  return rep;
}

}  // namespace piprov::provision
