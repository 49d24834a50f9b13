#pragma once
// The file systems inside an image, read through the random-access reader
// (image_reader.hpp) without writing anything and without a copy of the
// image (issue 27): the partition table, and the files of an ext2/3/4 file
// system through libext2fs (e2fsprogs) with an io_manager over the reader.
// Layouts: UEFI 2.10 5.3 (GPT), the MBR partition table, "ext4 Data
// Structures and Algorithms" (docs.kernel.org/filesystems/ext4).
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "image/image_reader.hpp"
#include "image/partition_table.hpp"

namespace piprov::image {

/// The partition table of the image behind `reader`: the one reader of an
/// image's table (write, verify, provision, boot check IMAGE) — its first
/// kPartitionTableBytes (read_head(): a sequential image is not decoded
/// further), parse_partition_table(). `bound`: the image's size, partitions
/// must end within it (else no partitions and a note); nullopt: the table as
/// written, unbounded (check_complete_image() compares it with the size).
/// Throws what read_at() throws.
PartitionTable read_partition_table(ImageReader& reader, std::optional<std::uint64_t> bound);

/// Where an ext2/3/4 file system keeps its superblock: at byte 1024, 1024 bytes.
inline constexpr std::uint64_t kExtSuperblockOffset = 1024;

/// Whether `sb`, the bytes at kExtSuperblockOffset of a file system (at
/// least the first 58), is an ext2/3/4 superblock: its s_magic, the
/// little-endian 16-bit field at byte 0x38, is 0xEF53 ("ext4 Data Structures
/// and Algorithms", docs.kernel.org/filesystems/ext4, "Super Block"). A
/// shorter span is not one. The one test of that magic in piprov.
bool is_ext_superblock(std::span<const std::byte> sb);

/// is_ext_superblock() of the file system at bytes [offset, offset + size)
/// of the image (false when `size` cannot hold a superblock). Throws what
/// read_at() throws.
bool has_ext_superblock(ImageReader& reader, std::uint64_t offset, std::uint64_t size);

/// The files of an ext2/3/4 file system at bytes [offset, offset + size) of
/// the image, read-only. Not thread-safe (one libext2fs handle).
class ExtFiles {
 public:
  /// Opens the file system. Throws Error{Usage} "partition at byte N is not
  /// ext2/3/4 (...)" when its superblock does not open, or what read_at() throws.
  ExtFiles(ImageReader& reader, std::uint64_t offset, std::uint64_t size);
  ~ExtFiles();
  ExtFiles(const ExtFiles&) = delete;
  ExtFiles& operator=(const ExtFiles&) = delete;

  /// The regular file at absolute `path` ("/etc/os-release"; symlinks
  /// followed inside this file system), at most `max_bytes` of it;
  /// std::nullopt when there is none (or it is not a regular file). Throws
  /// Error{Usage} when the file is larger than max_bytes or cannot be read
  /// (a damaged file system), or what read_at() throws.
  std::optional<std::string> read_file(const std::string& path, std::size_t max_bytes);
  /// True when `path` names a directory.
  bool is_directory(const std::string& path);
  /// Copies `path` (a file, a symlink as a symlink, or a directory with
  /// everything under it; other kinds skipped) to `dest` on this machine's
  /// file system, at most `max_bytes` of file data in all. Returns the bytes
  /// copied; 0 and nothing made when `path` does not exist. Throws
  /// Error{Usage} past max_bytes or on a damaged file system, Error{Io} when
  /// `dest` cannot be written.
  std::uint64_t extract(const std::string& path, const std::filesystem::path& dest, std::uint64_t max_bytes);
  /// The volume label ("writable"), "" when none.
  std::string label() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

/// The partitions of the image behind `reader` that may hold file systems:
/// read_partition_table(reader, reader.size()) with an MBR's logical
/// partitions (5, 6, ...: with_logical_partitions(), the EBR chain read
/// through read_at()). What boot check IMAGE, provision --dry-run and the
/// image's cloud-init read; write, verify and backup keep the primary table.
/// Throws what read_at() throws.
PartitionTable read_image_partitions(ImageReader& reader);

/// The root file system of an image: the first partition (in table order,
/// logical ones after the primary ones) of kind Linux holding ext2/3/4,
/// opened; std::nullopt with *why set ("the image has no partition table",
/// "the image has no ext2/3/4 partition", with why an EBR chain was not read
/// to its end) when there is none. `table`: read_image_partitions()'s.
/// `named`: the number of the partition the cmdline's root= names (Linux admin-guide
/// kernel-parameters: root=, the partition the kernel mounts), when it is one of `table`: that one
/// is the root fs, or none ("partition N, which root= names, does not hold ext2/3/4") when it is
/// not ext2/3/4; a number not in `table` is ignored (the rule above). `opened`, when not null, is set to
/// the number of the partition opened (left as it is when none is).
std::unique_ptr<ExtFiles> open_root_fs(ImageReader& reader, const PartitionTable& table, std::string* why,
                                       std::optional<unsigned> named = std::nullopt, unsigned* opened = nullptr);
/// open_root_fs() of read_image_partitions(reader).
std::unique_ptr<ExtFiles> open_root_fs(ImageReader& reader, std::string* why);

}  // namespace piprov::image
