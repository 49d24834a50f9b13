#pragma once
// May piprov write here? One policy for every command that writes a device
// or a file: `write`/`provision` (an image onto a disk or into a file) and
// `bench` (write tests on a device or file, or a test file of its own).
// Each rule has one name and one message; where commands deliberately
// differ (a partition is fine to benchmark but not to image; a mounted disk
// may be unmounted by `write --unmount` but never by bench), the difference
// is a cell of one table: rule x intent -> allow, refuse, or needs a flag.
// Sources: rpi-imager's wrong-disk issues (raspberrypi/rpi-imager) for the
// disk rules; statfs(2) for the pseudo file system magic numbers;
// loop(4) for backing files.
// Commands that only read a disk (boot check --device, provision's and
// verify's probe) ask the same guard with a read intent, so that "is a
// partition", "does not exist" and "is not a block device" have one message.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/blockdev.hpp"
#include "core/sysroot.hpp"

namespace piprov {

/// What the command means to do with the path.
enum class WriteIntent {
  WholeDiskImage,    ///< write/provision an image onto a block device
  ImageFile,         ///< write an image into a regular file (new or existing)
  DestructiveBench,  ///< bench write tests on a block device or an existing file
  BenchTestFile,     ///< bench creates, fills and removes its own test file (path: a directory or a new file)
  ProvisionDisk,     ///< provision: an image onto a whole disk, then its partitions mounted and patched
  OutputFile,        ///< a report or output file (bench --svg, eeprom set-boot-order --out): new or replaced
  ReadDisk,          ///< read only: a whole disk to inspect (boot check --device, provision's probe)
  VerifyTarget,      ///< read only: what an image was written to, to compare (a whole disk or an image file)
};
inline constexpr WriteIntent kWriteIntents[] = {
    WriteIntent::WholeDiskImage, WriteIntent::ImageFile,  WriteIntent::DestructiveBench, WriteIntent::BenchTestFile,
    WriteIntent::ProvisionDisk,  WriteIntent::OutputFile, WriteIntent::ReadDisk,         WriteIntent::VerifyTarget};

/// Stable intent name for logs and tests ("whole-disk-image", "output-file", ...).
std::string_view intent_name(WriteIntent i);

/// The rules, in the order they are checked (the first that refuses wins).
enum class WriteRule {
  MissingDevPath,    ///< a /dev path that does not exist: a typo for a device (an output file: a new file in /dev)
  MissingDirectory,  ///< a new file whose directory does not exist
  Directory,         ///< the path is a directory
  NotDiskOrFile,     ///< a character device, socket, FIFO, ...
  Partition,         ///< a partition, not a whole disk
  NoMedium,          ///< a whole disk of size 0: no card in the reader, a loop device with no file attached
  SystemDisk,        ///< the disk holds /, /boot, /home, /var, /usr, swap or LVM/MD (blockdev.hpp)
  ReadOnly,          ///< the device is read-only
  PseudoFs,          ///< on /proc, /sys, /dev or another kernel pseudo file system
  RamFs,             ///< on /run (a memory file system): bench numbers would be nonsense
  LoopBackingFile,   ///< the backing file of a loop device: that disk would be corrupted
  ProtectedDir,      ///< an existing file under a system directory (protected_dir_of)
  Mounted,           ///< the device or a partition of it is mounted
  ExistingData,      ///< an existing device or file whose data would be overwritten
  BlockDevice,       ///< a block device (disk or partition) where a file is wanted
  NotBlockDevice,    ///< an existing path that is not a block device where a disk is wanted
  NewPath,           ///< a path that does not exist (yet): a new file, or a typo, or a disk not mounted
};
inline constexpr WriteRule kWriteRules[] = {
    WriteRule::MissingDevPath, WriteRule::MissingDirectory, WriteRule::Directory,
    WriteRule::NotDiskOrFile,  WriteRule::Partition,        WriteRule::NoMedium,
    WriteRule::SystemDisk,     WriteRule::ReadOnly,         WriteRule::PseudoFs,
    WriteRule::RamFs,          WriteRule::LoopBackingFile,  WriteRule::ProtectedDir,
    WriteRule::Mounted,        WriteRule::ExistingData,     WriteRule::BlockDevice,
    WriteRule::NotBlockDevice, WriteRule::NewPath};

/// Stable rule name for logs and tests ("system-disk", "loop-backing-file", ...).
std::string_view rule_name(WriteRule r);

/// The command-line flags that lift a NeedsFlag cell.
enum class WriteFlag { None, Unmount, Overwrite, Destructive };
/// "--unmount", "--overwrite", "--destructive" ("" for None).
std::string_view flag_name(WriteFlag f);

struct WriteFlags {
  bool unmount = false;      ///< write --unmount
  bool overwrite = false;    ///< write --overwrite
  bool destructive = false;  ///< bench --destructive
};

enum class Verdict { Allow, Refuse, NeedsFlag };
struct RuleCell {
  Verdict verdict = Verdict::Refuse;
  WriteFlag flag = WriteFlag::None;  ///< for NeedsFlag
};

/// The table: what `rule` means for `intent`.
RuleCell rule_cell(WriteRule rule, WriteIntent intent);

/// The facts the rules look at, about one path. Strings are "" when not so.
struct WriteSubject {
  std::string path;  ///< as the user gave it
  TargetKind kind = TargetKind::Missing;
  bool directory = false;            ///< kind Other and a directory
  Disk disk;                         ///< block devices: the whole disk (a partition's parent)
  std::string partition_of;          ///< a partition: its whole disk ("/dev/sda")
  std::vector<std::string> mounted;  ///< "DEV on DIR" of the device (a disk: with its partitions)
  std::uint64_t size = 0;            ///< existing file: bytes
  std::string missing_dir;           ///< new file: its directory, when that does not exist (a dangling
                                     ///< symlink's: the directory of the file it points to)
  std::string dangling_target;       ///< the path is a dangling symlink: where it points ("" otherwise)
  bool pseudo_fs = false;            ///< file or directory on a kernel pseudo file system
  std::string ram_dir;               ///< file or directory under /run: "/run"
  std::string loop_device;           ///< existing file backing a loop device: "/dev/loop3"
  std::string protected_dir;         ///< existing file under a system directory: "/etc"
};

/// Gathers the facts about `path`; /sys is read under `root` (tests fake it).
/// Never throws (a disk's facts come from read_whole_disk()).
WriteSubject inspect_write_subject(const std::string& path, const SysRoot& root = SysRoot::host());

/// A refusal: the rule and the one message for it (names the path, says why
/// and what to do).
struct Refusal {
  WriteRule rule;
  std::string message;
};

/// Applies the table to the facts: the first rule that refuses (or needs a
/// flag not given), nullopt when writing is allowed. Pure: reads nothing.
std::optional<Refusal> evaluate_write(const WriteSubject& s, WriteIntent intent, const WriteFlags& flags);

/// evaluate_write(); throws Error{Usage} with the refusal's message.
void enforce_write(const WriteSubject& s, WriteIntent intent, const WriteFlags& flags);

/// inspect_write_subject() + enforce_write(); returns the facts.
WriteSubject check_write(const std::string& path, WriteIntent intent, const WriteFlags& flags = {},
                         const SysRoot& root = SysRoot::host());

/// The whole disk named by `path_or_name` ("/dev/sda", "sda", a symlink in
/// /dev/disk/by-id), for a command that reads it: check_write() with intent
/// ReadDisk. Throws Error{Usage} with the guard's message when it is a
/// partition (naming the parent disk), does not exist or is not a block device.
Disk probe_disk(const std::string& path_or_name);

/// May piprov write a report or an output file here (bench --svg, eeprom
/// set-boot-order --out)? check_write() with intent OutputFile, the message
/// prefixed with `option` ("--svg"): a block device or partition, a character
/// device, a directory, a file on a pseudo file system, under a system
/// directory or backing a loop device is refused with Error{Usage}; an
/// existing regular file of the user's is replaced (as fio's --output does).
/// Returns the facts.
WriteSubject check_output_file(const std::string& path, std::string_view option, const SysRoot& root = SysRoot::host());

/// ROOT/REL for writing into a mounted root file system (boot patch --root):
/// its directory, symlinks followed, must stay inside ROOT. Throws
/// Error{Usage} "<ROOT>/<REL> resolves to <real>, outside <ROOT>" (an
/// absolute symlink such as ROOT/etc -> /etc would write into this machine).
std::filesystem::path inside_root(const std::filesystem::path& root, std::string_view rel);

/// The protected directory ("/etc", "/usr", "/bin", "/sbin", "/lib*", "/boot",
/// "/var/lib", "/root", "/proc", "/sys", "/dev", "/run") that holds `real` (a
/// canonical absolute path), or "" when none does (directories: FHS 3.0).
/// Throws nothing.
std::string protected_dir_of(const std::string& real);

}  // namespace piprov
