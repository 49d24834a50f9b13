#include "core/write_guard.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/statfs.h>

#include <filesystem>
#include <regex>

#include "core/enum_names.hpp"
#include "core/error.hpp"
#include "core/file.hpp"
#include "core/mounts.hpp"
#include "core/strings.hpp"
#include "core/units.hpp"

namespace fs = std::filesystem;

namespace piprov {
namespace {

constexpr RuleCell R{Verdict::Refuse, WriteFlag::None};
constexpr RuleCell A{Verdict::Allow, WriteFlag::None};
constexpr RuleCell Unmount{Verdict::NeedsFlag, WriteFlag::Unmount};
constexpr RuleCell Overwrite{Verdict::NeedsFlag, WriteFlag::Overwrite};
constexpr RuleCell Destructive{Verdict::NeedsFlag, WriteFlag::Destructive};

// Rows in WriteRule order; columns in WriteIntent order: WholeDiskImage, ImageFile, DestructiveBench,
// BenchTestFile, ProvisionDisk, OutputFile, ReadDisk, VerifyTarget. An "A" where the subject cannot be of
// that kind leaves it to a later row: provision and ReadDisk take only whole disks (a file, directory or
// device node is NotBlockDevice's, a missing path NewPath's), an output file is never a device
// (BlockDevice's). Reading refuses only what cannot be read as asked.
constexpr RuleCell kTable[][8] = {
    /* MissingDevPath   */ {R, R, R, R, R, R, R, R},
    /* MissingDirectory */ {R, R, R, R, A, R, A, A},  // provision and readers create no file: NewPath's
    /* Directory        */ {R, R, R, A, A, R, A, R},  // bench puts its test file in a directory
    /* NotDiskOrFile    */ {R, R, R, R, A, R, A, R},
    /* Partition        */ {R, R, A, R, R, A, R, R},  // an image needs the whole disk; a partition can be benchmarked
    /* NoMedium         */ {R, A, R, R, R, A, A, R},  // nothing to write, measure or compare; listing it is fine
    /* SystemDisk       */ {R, R, R, R, R, A, A, A},
    /* ReadOnly         */ {R, R, R, R, R, A, A, A},
    /* PseudoFs         */ {R, R, R, R, A, R, A, A},
    /* RamFs            */ {A, A, R, R, A, A, A, A},  // an image file may live in RAM; a benchmark of RAM is not of
                                                      // storage
    /* LoopBackingFile  */ {R, R, R, R, A, R, A, A},
    /* ProtectedDir     */ {R, R, R, R, A, R, A, A},
    /* Mounted          */ {Unmount, R, R, R, Unmount, A, A, A},  // write/provision may unmount first; bench never does
    /* ExistingData     */ {A, Overwrite, Destructive, R, A, A, A, A},  // a disk: asks for confirmation; output:
                                                                        // replaced
    /* BlockDevice      */ {A, A, A, A, A, R, A, A},                    // an output file is never a device
    /* NotBlockDevice   */ {R, A, A, A, R, A, R, A},  // a disk is wanted (image files go to ImageFile, VerifyTarget)
    /* NewPath          */ {R, A, R, R, R, A, R, R},  // bench never makes a test file where no directory is mounted
};
static_assert(std::size(kTable) == std::size(kWriteRules));

// The "what to do instead" of each intent.
std::string_view alternative(WriteIntent i) {
  switch (i) {
    case WriteIntent::WholeDiskImage: return "run 'piprov devices' to list disks";
    case WriteIntent::ImageFile: return "give a disk (see 'piprov devices') or a new file name";
    case WriteIntent::DestructiveBench: return "give a directory for a test file of its own";
    case WriteIntent::BenchTestFile: return "give a directory on the disk to measure";
    case WriteIntent::ProvisionDisk: return "run 'piprov devices' to list disks";
    case WriteIntent::OutputFile: return "give a new file name in a directory of yours";
    case WriteIntent::ReadDisk: return "run 'piprov devices' to list disks";
    case WriteIntent::VerifyTarget: return "give the disk or image file the image was written to";
  }
  return "";
}

std::string_view action(WriteIntent i) {
  switch (i) {
    case WriteIntent::WholeDiskImage:
    case WriteIntent::ImageFile:
    case WriteIntent::ProvisionDisk: return "writing the image";
    case WriteIntent::DestructiveBench: return "the write tests";
    case WriteIntent::BenchTestFile: return "the test file";
    case WriteIntent::OutputFile: return "writing the output";
    case WriteIntent::ReadDisk:
    case WriteIntent::VerifyTarget: return "reading";
  }
  return "";
}

bool is_block(TargetKind k) { return k == TargetKind::WholeDisk || k == TargetKind::Partition; }

// A kernel disk name given without /dev/ ("sdb", "nvme0n1", "mmcblk0"): the
// names lsblk and `piprov devices` print. Such a path, when no file of that
// name exists, was meant as the disk, not as a new file in this directory.
bool bare_disk_name(const std::string& path) {
  static const std::regex disk(R"((sd[a-z]+|vd[a-z]+|xvd[a-z]+|hd[a-z]+|nvme\d+n\d+|mmcblk\d+|loop\d+)(p?\d+)?)");
  return path.find('/') == std::string::npos && std::regex_match(path, disk);
}

// Whether the subject has the fact the rule is about.
bool applies(WriteRule r, const WriteSubject& s) {
  switch (r) {
    case WriteRule::MissingDevPath: {  // a device name typo, not a new file in /dev/shm
      if (s.kind == TargetKind::Missing && bare_disk_name(s.path)) return true;
      const std::string parent = fs::path(s.path).parent_path().string();
      return s.kind == TargetKind::Missing && s.path.rfind("/dev/", 0) == 0 &&
             (parent == "/dev" || parent.rfind("/dev/disk/", 0) == 0 || parent.rfind("/dev/mapper", 0) == 0 ||
              !s.missing_dir.empty());
    }
    case WriteRule::MissingDirectory: return s.kind == TargetKind::Missing && !s.missing_dir.empty();
    case WriteRule::NoMedium: return s.kind == TargetKind::WholeDisk && s.disk.size_bytes == 0;
    case WriteRule::BlockDevice: return is_block(s.kind);
    case WriteRule::NotBlockDevice: return s.kind == TargetKind::RegularFile || s.kind == TargetKind::Other;
    case WriteRule::Directory: return s.directory;
    case WriteRule::NotDiskOrFile: return s.kind == TargetKind::Other && !s.directory;
    case WriteRule::Partition: return s.kind == TargetKind::Partition;
    case WriteRule::SystemDisk: return is_block(s.kind) && s.disk.system_disk;
    case WriteRule::ReadOnly: return is_block(s.kind) && s.disk.read_only;
    case WriteRule::PseudoFs: return s.pseudo_fs;
    case WriteRule::RamFs: return !s.ram_dir.empty();
    case WriteRule::LoopBackingFile: return !s.loop_device.empty();
    case WriteRule::ProtectedDir: return !s.protected_dir.empty();
    case WriteRule::Mounted: return !s.mounted.empty();
    case WriteRule::ExistingData: return is_block(s.kind) || s.kind == TargetKind::RegularFile;
    case WriteRule::NewPath: return s.kind == TargetKind::Missing;
  }
  return false;
}

bool bench_intent(WriteIntent i) { return i == WriteIntent::DestructiveBench || i == WriteIntent::BenchTestFile; }

bool flag_given(WriteFlag f, const WriteFlags& flags) {
  switch (f) {
    case WriteFlag::Unmount: return flags.unmount;
    case WriteFlag::Overwrite: return flags.overwrite;
    case WriteFlag::Destructive: return flags.destructive;
    case WriteFlag::None: return false;
  }
  return false;
}

// The one message of each rule. `remedy` is "pass FLAG" for a NeedsFlag cell,
// else the intent's alternative.
std::string message(WriteRule r, const WriteSubject& s, WriteIntent i, const RuleCell& cell) {
  const std::string& p = s.path;
  const std::string alt(alternative(i));
  switch (r) {
    case WriteRule::MissingDevPath:
      if (bare_disk_name(p))
        return fmt::format(
            "{} is the name of a disk, not a path: give /dev/{} (or ./{} for a file of that name); run "
            "'piprov devices' to list disks",
            p, p, p);
      if (i == WriteIntent::OutputFile)  // never a device: a new file in /dev, which holds device nodes only
        return fmt::format(
            "{} would be a new file under /dev, which is for devices (devtmpfs, a kernel pseudo file system), not "
            "files: piprov never creates files there; put it on a real file system ({})",
            p, alt);
      return p + " does not exist; run 'piprov devices' to list disks";
    case WriteRule::MissingDirectory:
      if (!s.dangling_target.empty())
        return fmt::format(
            "cannot create {}: it is a symlink to {}, and directory {} does not exist (create it, or "
            "give another path)",
            p, s.dangling_target, s.missing_dir);
      return fmt::format("cannot create {}: directory {} does not exist", p, s.missing_dir);
    case WriteRule::NoMedium:
      if (fs::path(s.disk.path).filename().string().rfind("loop", 0) == 0 && s.disk.backing_file.empty())
        return fmt::format(
            "{} is a loop device with no file attached (size 0): attach an image with losetup, or give "
            "another disk; {}",
            p, alt);
      return fmt::format("{} has size 0 (no medium in the reader?): insert the card or disk; {}", p, alt);
    case WriteRule::BlockDevice:
      return fmt::format("{} is a block device: this output is a file; give a file name (nothing was written)", p);
    case WriteRule::NotBlockDevice:
      if (i == WriteIntent::ProvisionDisk)
        return p +
               " is not a whole disk: provision needs a block device (for an image file, attach it with "
               "losetup --partscan)";
      return fmt::format("{} is not a block device; {}", p, alt);
    case WriteRule::Directory: return fmt::format("{} is a directory; {}", p, alt);
    case WriteRule::NotDiskOrFile: return fmt::format("{} is neither a block device nor a regular file; {}", p, alt);
    case WriteRule::Partition:
      if (i == WriteIntent::ProvisionDisk)
        return fmt::format("{} is a partition; provision the whole disk {}", p, s.partition_of);
      return fmt::format("{} is a partition; give the whole disk ({}) instead", p, s.partition_of);
    case WriteRule::SystemDisk: {
      // Active swap is often a USB disk's own partition the system picked up (a swap line in fstab,
      // systemd's gpt-auto): turning it off is the remedy when the disk is not this machine's own.
      // Only when swap is the one reason: a disk with / mounted is this machine's.
      std::vector<std::string> swapoff;
      for (const auto& r : s.disk.system_reasons)
        if (auto at = r.find(" is active swap"); at != std::string::npos)
          swapoff.push_back("/dev/" + r.substr(r.rfind(' ', at - 1) + 1, at - r.rfind(' ', at - 1) - 1));
      if (swapoff.size() != s.disk.system_reasons.size()) swapoff.clear();
      return fmt::format("{} is {}a system disk ({}): piprov never writes it{}", p,
                         s.kind == TargetKind::Partition ? "on " + s.disk.path + ", " : "",
                         join(s.disk.system_reasons, "; "),
                         swapoff.empty() ? ""
                                         : "; if it is not this machine's own disk, turn its swap off (swapoff " +
                                               join(swapoff, " ") + ") and run again");
    }
    case WriteRule::ReadOnly:
      return p + " is read-only: check the write-protect switch (SD adapters) or the device's ro flag";
    case WriteRule::PseudoFs:
      return fmt::format("{} is on a kernel pseudo file system (/proc, /sys, /dev, ...): piprov never writes there; {}",
                         p, alt);
    case WriteRule::RamFs: return fmt::format("{} is on {} (a memory file system, not storage): {}", p, s.ram_dir, alt);
    case WriteRule::LoopBackingFile:
      return fmt::format(
          "{} is the backing file of {}: writing it would corrupt that disk under its users; detach it "
          "first (losetup -d {})",
          p, s.loop_device, s.loop_device);
    case WriteRule::ProtectedDir:
      if (s.kind == TargetKind::RegularFile)
        return fmt::format("{} is an existing system file: piprov never overwrites files under {}; {}", p,
                           s.protected_dir, alt);
      return fmt::format("{} is under {}, a system directory: piprov never creates files there; {}", p, s.protected_dir,
                         alt);
    case WriteRule::Mounted:
      return fmt::format("{} has mounted file systems ({}): unmount them or {}", p, join(s.mounted, ", "),
                         cell.verdict == Verdict::NeedsFlag ? "pass " + std::string(flag_name(cell.flag)) : alt);
    case WriteRule::ExistingData:
      return fmt::format("{} is an existing {}: {} would overwrite its data; {}", p,
                         is_block(s.kind) ? std::string("block device") : "file (" + format_bytes(s.size) + ")",
                         action(i),
                         cell.verdict == Verdict::NeedsFlag
                             ? "pass " + std::string(flag_name(cell.flag)) + " if you mean it, or " + alt
                             : alt);
    case WriteRule::NewPath:
      // Bench: a typo, or a disk not mounted yet (its mount point's parent is on the system disk).
      if (bench_intent(i))
        return p +
               " does not exist: give a directory on the mounted disk (piprov makes its own test file there), an "
               "existing file or a block device; is the disk mounted?";
      return fmt::format("{} does not exist; {}", p, alt);
  }
  return p;
}

bool pseudo_fs_magic(const fs::path& dir) {
  struct statfs sf {};
  if (::statfs(dir.c_str(), &sf) != 0) return false;
  switch (static_cast<unsigned long>(sf.f_type)) {
    case 0x9fa0:      // PROC_SUPER_MAGIC
    case 0x62656572:  // SYSFS_MAGIC
    case 0x64626720:  // DEBUGFS_MAGIC
    case 0x74726163:  // TRACEFS_MAGIC
    case 0x73636673:  // SECURITYFS_MAGIC
    case 0x63677270:  // CGROUP2_SUPER_MAGIC
    case 0x27e0eb:    // CGROUP_SUPER_MAGIC
    case 0xcafe4a11:  // BPF_FS_MAGIC
    case 0x62656570:  // CONFIGFS_MAGIC
    case 0xde5e81e4:  // EFIVARFS_MAGIC
    case 0x1cd1:      // DEVPTS_SUPER_MAGIC
      return true;
    default: return false;
  }
}

bool under(const std::string& real_dir, const char* top) {
  return (real_dir + "/").rfind(std::string(top) + "/", 0) == 0;
}

/// The loop device whose backing file is `real` (canonical path), or "".
std::string loop_backed_by(const std::string& real, const SysRoot& root) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(root("/sys/block"), ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("loop", 0) == 0 && read_attr(e.path() / "loop/backing_file") == real) return "/dev/" + name;
  }
  return "";
}

/// Where writing `path` really lands: symlinks followed even when dangling
/// (weakly_canonical stops at a dangling one), then made canonical.
fs::path real_path(const std::string& path) {
  std::error_code ec;
  fs::path p = fs::absolute(path, ec);
  for (int hops = 0; hops < 40 && fs::is_symlink(p, ec); ++hops) {
    fs::path t = fs::read_symlink(p, ec);
    if (ec) break;
    p = t.is_absolute() ? t : p.parent_path() / t;
  }
  return fs::weakly_canonical(p, ec);
}

// Facts about a file (existing or new) or a directory.
void file_facts(WriteSubject& s, const SysRoot& root) {
  std::error_code ec;
  const fs::path real = real_path(s.path);
  fs::path dir = s.directory ? real : real.parent_path();
  if (dir.empty()) dir = ".";
  if (s.kind == TargetKind::Missing && !fs::is_directory(dir, ec)) {
    fs::path given = fs::path(s.path).parent_path();
    s.missing_dir = given.empty() ? "." : given.string();
    if (fs::is_symlink(s.path, ec)) {  // the link's directory exists; the one it points into does not
      s.dangling_target = fs::read_symlink(s.path, ec).string();
      s.missing_dir = dir.string();
    }
  }
  s.pseudo_fs = under(dir.string(), "/proc") || under(dir.string(), "/sys") || under(dir.string(), "/dev") ||
                pseudo_fs_magic(dir);
  if (under(dir.string(), "/run")) s.ram_dir = "/run";
  // New files and directories too: piprov never creates files under a system directory.
  // (/run is the RamFs rule's for new files: an image file may be written there.)
  s.protected_dir = protected_dir_of(s.directory ? real.string() + "/" : real.string());
  if (s.kind != TargetKind::RegularFile && s.protected_dir == "/run") s.protected_dir.clear();
  if (s.kind != TargetKind::RegularFile) return;
  s.size = fs::file_size(real, ec);
  s.loop_device = loop_backed_by(real.string(), root);
}

}  // namespace

namespace {
constexpr EnumName<WriteRule> kWriteRuleNames[] = {
    {WriteRule::MissingDevPath, "missing-dev-path"},
    {WriteRule::MissingDirectory, "missing-directory"},
    {WriteRule::BlockDevice, "block-device"},
    {WriteRule::NotBlockDevice, "not-block-device"},
    {WriteRule::Directory, "directory"},
    {WriteRule::NotDiskOrFile, "not-disk-or-file"},
    {WriteRule::Partition, "partition"},
    {WriteRule::NoMedium, "no-medium"},
    {WriteRule::SystemDisk, "system-disk"},
    {WriteRule::ReadOnly, "read-only"},
    {WriteRule::PseudoFs, "pseudo-fs"},
    {WriteRule::RamFs, "ram-fs"},
    {WriteRule::LoopBackingFile, "loop-backing-file"},
    {WriteRule::ProtectedDir, "protected-dir"},
    {WriteRule::Mounted, "mounted"},
    {WriteRule::ExistingData, "existing-data"},
    {WriteRule::NewPath, "new-path"},
};
constexpr EnumName<WriteIntent> kWriteIntentNames[] = {
    {WriteIntent::WholeDiskImage, "whole-disk-image"},
    {WriteIntent::ImageFile, "image-file"},
    {WriteIntent::DestructiveBench, "destructive-bench"},
    {WriteIntent::BenchTestFile, "bench-test-file"},
    {WriteIntent::ProvisionDisk, "provision-disk"},
    {WriteIntent::OutputFile, "output-file"},
    {WriteIntent::ReadDisk, "read-disk"},
    {WriteIntent::VerifyTarget, "verify-target"},
};
constexpr EnumName<WriteFlag> kWriteFlagNames[] = {
    {WriteFlag::None, ""},
    {WriteFlag::Unmount, "--unmount"},
    {WriteFlag::Overwrite, "--overwrite"},
    {WriteFlag::Destructive, "--destructive"},
};
}  // namespace

std::string_view rule_name(WriteRule r) { return enum_name(kWriteRuleNames, r); }
std::string_view intent_name(WriteIntent i) { return enum_name(kWriteIntentNames, i); }
std::string_view flag_name(WriteFlag f) { return enum_name(kWriteFlagNames, f); }

RuleCell rule_cell(WriteRule rule, WriteIntent intent) {
  return kTable[static_cast<int>(rule)][static_cast<int>(intent)];
}

std::string protected_dir_of(const std::string& real) {
  for (const char* dir : {"/etc", "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/boot", "/var/lib",
                          "/root", "/proc", "/sys", "/dev", "/run"}) {
    std::string d(dir);
    if (real.rfind(d + "/", 0) == 0) return d;
  }
  return "";
}

WriteSubject inspect_write_subject(const std::string& path, const SysRoot& root) {
  WriteSubject s;
  s.path = path;
  s.kind = classify_path(path, &s.partition_of);
  std::error_code ec;
  s.directory = s.kind == TargetKind::Other && fs::is_directory(path, ec);
  if (s.kind == TargetKind::WholeDisk) {
    s.disk = read_whole_disk(path);
    s.mounted = s.disk.mounted();
  } else if (s.kind == TargetKind::Partition) {
    s.disk = read_whole_disk(s.partition_of);
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0)
      for (const auto& m : mountpoints_of(st.st_rdev)) s.mounted.push_back(path + " on " + m);
  } else if (s.kind != TargetKind::Other || s.directory) {
    file_facts(s, root);
  }
  return s;
}

std::optional<Refusal> evaluate_write(const WriteSubject& s, WriteIntent intent, const WriteFlags& flags) {
  for (WriteRule r : kWriteRules) {
    if (!applies(r, s)) continue;
    RuleCell cell = rule_cell(r, intent);
    if (cell.verdict == Verdict::Allow) continue;
    if (cell.verdict == Verdict::NeedsFlag && flag_given(cell.flag, flags)) continue;
    return Refusal{r, message(r, s, intent, cell)};
  }
  return std::nullopt;
}

void enforce_write(const WriteSubject& s, WriteIntent intent, const WriteFlags& flags) {
  if (auto no = evaluate_write(s, intent, flags)) throw Error(ErrorKind::Usage, no->message);
}

WriteSubject check_write(const std::string& path, WriteIntent intent, const WriteFlags& flags, const SysRoot& root) {
  WriteSubject s = inspect_write_subject(path, root);
  enforce_write(s, intent, flags);
  return s;
}

Disk probe_disk(const std::string& path_or_name) {
  const std::string path = path_or_name.find('/') == std::string::npos ? "/dev/" + path_or_name : path_or_name;
  return check_write(path, WriteIntent::ReadDisk).disk;
}

WriteSubject check_output_file(const std::string& path, std::string_view option, const SysRoot& root) {
  WriteSubject s = inspect_write_subject(path, root);
  if (auto r = evaluate_write(s, WriteIntent::OutputFile, {}))
    throw Error(ErrorKind::Usage, fmt::format("{} {}", option, r->message));
  return s;
}

std::filesystem::path inside_root(const std::filesystem::path& root, std::string_view rel) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path path = root / fs::path(rel).relative_path();
  fs::path real_root = fs::weakly_canonical(root, ec);
  fs::path real = fs::weakly_canonical(path.parent_path(), ec);
  if (ec) throw Error(ErrorKind::Usage, path.string() + ": cannot resolve its directory (" + ec.message() + ")");
  auto rel_to_root = real.lexically_relative(real_root);
  if (rel_to_root.empty() || *rel_to_root.begin() == "..")
    throw Error(ErrorKind::Usage, fmt::format("{} resolves to {}, outside {} (a symlink leads out of the root file "
                                              "system): nothing was changed; pass the mounted root partition itself",
                                              path.string(), (real / path.filename()).string(), root.string()));
  return path;
}

}  // namespace piprov
