#pragma once
// The DEVICE of `piprov write`: what it is, and opening it for
// O_DIRECT|O_EXCL writes. Whether writing it is allowed is decided by
// core/write_guard.hpp (intents WholeDiskImage and ImageFile); this file has
// no safety rules of its own.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/blockdev.hpp"
#include "core/error.hpp"
#include "core/fd.hpp"
#include "core/write_guard.hpp"

namespace piprov::image {

/// An Error that happened at a known byte offset of the image stream (a
/// failed write, the first byte that read back differently).
class ErrorAt : public Error {
 public:
  ErrorAt(ErrorKind kind, const std::string& message, std::uint64_t offset) : Error(kind, message), offset_(offset) {}
  std::uint64_t offset() const noexcept { return offset_; }

 private:
  std::uint64_t offset_;
};

/// A checked target. Sizes in bytes.
struct TargetInfo {
  std::string path;
  bool is_file = false;            ///< regular file (existing or to be created)
  bool exists = false;             ///< the file exists (even empty): never removed on failure
  std::uint64_t size = 0;          ///< block device size, or existing file size
  std::uint64_t capacity = 0;      ///< most bytes that fit (device size; file: free space + current size)
  unsigned logical_block = 512;    ///< O_DIRECT alignment unit
  std::size_t io_bytes = 4 << 20;  ///< write size: <= 4 MiB, a multiple of max_sectors_kb and of logical_block
  Disk disk;                       ///< block devices only
};

/// Checks `path` with check_write() (`intent`, by default WholeDiskImage for
/// a block device, ImageFile otherwise; `flags` --unmount/--overwrite) and
/// describes it. Throws Error{Usage} with the write guard's message when refused.
TargetInfo inspect_target(const std::string& path, const WriteFlags& flags = {},
                          std::optional<WriteIntent> intent = std::nullopt);

/// Throws Error{Usage} when `image` is the target itself or is stored on it.
void check_image_not_on_target(const std::string& image, const TargetInfo& t);

/// Write size for a device: the largest multiple of max_sectors_kb (KiB) that is
/// <= 4 MiB (4 MiB when unknown), rounded down to `logical_block`.
std::size_t choose_io_bytes(unsigned max_sectors_kb, unsigned logical_block);

/// Multi-line text for the confirmation question: model, size, transport,
/// partitions (label, fs, mounts) that will be lost.
std::string describe_target(const TargetInfo& t);

/// Unmounts every mounted partition (and the disk itself); returns "DEV on DIR"
/// for each. Throws Error{Io} naming the mount point that could not be unmounted.
std::vector<std::string> unmount_target(const TargetInfo& t);

/// Opens for writing: block devices O_WRONLY|O_DIRECT|O_EXCL (EBUSY -> "in use");
/// files O_WRONLY|O_CREAT|O_TRUNC|O_DIRECT, without O_DIRECT where the file
/// system refuses it (`*direct` says which). Throws Error{Io}/{Usage}.
UniqueFd open_target_for_write(const TargetInfo& t, bool* direct);

/// Opens for reading back with O_DIRECT (buffered + cache dropped when refused).
UniqueFd open_target_for_read(const TargetInfo& t);

}  // namespace piprov::image
