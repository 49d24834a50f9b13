#pragma once
// Access to a FAT boot partition without a kernel vfat driver, through mtools
// (mcopy/mdel): `provision` falls back to it when mounting vfat fails with
// "unknown filesystem type" (kernels built without CONFIG_VFAT_FS, e.g. some
// containers and CI hosts). Copy out, patch the copy, write back what changed,
// read back and compare. FatDir is the one way piprov reaches a FAT partition
// as a directory (mounted, or an mtools copy), for boot check, provision and
// boot check IMAGE.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace piprov::boot {

/// True when `mcopy` can be run.
bool mtools_available();

/// Copies every file of the FAT filesystem on `device` into `dir` (mcopy -s -p -m).
/// Throws Error{Io} with mtools' message.
void fat_copy_out(const std::string& device, const std::filesystem::path& dir);

/// Copies the file `name` of the FAT filesystem on `device` into `dir` (mcopy -p -m -n); false when
/// mcopy fails (no such file). Throws Error{Io} when mcopy cannot be run.
bool fat_copy_file_out(const std::string& device, const std::string& name, const std::filesystem::path& dir);

/// SHA-256 of every regular file under `dir`, by relative path.
std::map<std::string, std::string> tree_hashes(const std::filesystem::path& dir);

/// Writes the files of `dir` that differ from `before` (new or changed, in
/// subdirectories too: missing directories are made with mmd) back to
/// `device`, config.txt and cmdline files last, deletes
/// the ones that were removed, then copies the partition out again and
/// compares every file. Returns the actions ("wrote vmlinux", "deleted ...").
/// Throws Error{Io} (mtools failure) or Error{Verify} (read-back differs).
std::vector<std::string> fat_write_back(const std::string& device, const std::filesystem::path& dir,
                                        const std::map<std::string, std::string>& before);

/// How FatDir reaches its partition.
struct FatDirOptions {
  /// Mounted read-write; an mtools copy's changes go back with write_back(). Read-only otherwise.
  bool writable = false;
  /// false: never mount, an mtools copy only (a partition held in a memory file: boot check IMAGE).
  bool mount = true;
  /// Where the partition is mounted already ("" = not): a read-only view uses it as it is.
  std::string mountpoint;
  /// An mtools copy holds only these files (a missing one is left out); empty: every file.
  std::vector<std::string> names;
  /// An existing empty directory to mount on or copy into ("" = a private
  /// /tmp/piprov-<temp_name>-XXXXXX, removed at the end). A given directory is the caller's: it is
  /// unmounted at the end, or emptied of the copy, never removed.
  std::filesystem::path dir;
  std::string temp_name = "fat";
};

/// The FAT filesystem on `device` as a directory (issue 31: one way for every
/// command): its mount point when mounted already (read-only), else mounted
/// (vfat) on a private directory, else copied there with mtools. The mtools
/// copy is taken when the mount fails and mtools can be run: for a read-only
/// view on any mount failure; for a writable one only when this kernel has
/// no vfat driver (ENODEV from mount(2): some containers and CI hosts), so a
/// partition the kernel refused for another reason is never written back
/// behind its back. Unmounts or removes the copy on destruction (close()).
class FatDir {
 public:
  /// Throws Error{Io}: mount(2)'s error (libmount's message, errno kept) when no
  /// copy is possible, mtools' message when the copy fails.
  FatDir(std::string device, const FatDirOptions& o);
  ~FatDir();
  FatDir(const FatDir&) = delete;
  FatDir& operator=(const FatDir&) = delete;

  /// The partition's files.
  const std::filesystem::path& dir() const { return dir_; }
  /// True when dir() is an mtools copy (not a mount).
  bool copied() const { return copied_; }
  /// A writable mtools copy: writes what changed in dir() back to the
  /// partition and reads it back (fat_write_back(); its actions, the last
  /// "read back N files from DEV: all match"). A mount (the kernel writes
  /// through) or a read-only view: nothing to do, {}. Throws as fat_write_back().
  std::vector<std::string> write_back();
  /// Unmounts the mount (or removes the copy) and removes the private
  /// directory; "" when done, else why not (a failed unmount: "... (still
  /// mounted at DIR)"). Later calls return "". Never throws.
  std::string close() noexcept;

 private:
  std::string device_;
  std::filesystem::path dir_;
  bool own_dir_ = false;  ///< dir_ is the private temp dir (removed by close())
  bool mounted_ = false;  ///< dir_ is our mount (unmounted by close())
  bool copied_ = false;
  bool writable_ = false;
  std::map<std::string, std::string> before_;  ///< a writable copy's hashes when taken
};

}  // namespace piprov::boot
