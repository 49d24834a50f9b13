#pragma once
// Unique identity per written disk: disks written from one image carry the
// same MBR disk identifier (or GPT disk GUID and partition GUIDs), so the same
// PARTUUIDs, and a kernel that sees two of them may mount the wrong root
// (raspberrypi/linux issue 5956). renew_disk_identity() gives a disk new random
// ones through util-linux's libfdisk (which writes MBR and both GPT headers
// with their CRCs); replace_partuuids() rewrites `PARTUUID=` references
// (cmdline.txt root=, /etc/fstab) to match.
// PARTUUID forms: MBR "<disk id, 8 hex>-<partition number, 2 hex>" (Linux
// block/partitions/msdos.c), GPT the partition's unique GUID (UEFI 2.10, 5.3.3).
#include <map>
#include <string>
#include <string_view>

#include "image/partition_table.hpp"

namespace piprov::image {

struct DiskIdentity {
  TableScheme label = TableScheme::None;  ///< Dos or Gpt
  std::string old_id;                     ///< "0x4ec8ea53" (MBR) or the disk GUID, lowercase
  std::string new_id;
  /// Every partition's PARTUUID, old -> new, lowercase ("4ec8ea53-02" -> "9f1c0b7e-02").
  std::map<std::string, std::string> partuuids;
};

/// Gives the whole disk `disk` (block device or image file) a new random disk
/// identifier (MBR: 32 bits, never 0 nor the old one; GPT: new disk GUID and a
/// new unique GUID for every partition), writes the table with libfdisk,
/// fsyncs, and has the kernel re-read it (image::reread_partitions) when
/// `disk` is a block device. Nothing else on the disk changes (MBR boot code,
/// partition types, bounds and names are kept).
/// Throws Error{Usage} when `disk` has no MBR or GPT partition table, Error{Io}
/// when it cannot be opened or written (errno in the message).
DiskIdentity renew_disk_identity(const std::string& disk);

/// `text` with every `PARTUUID=<old>` (optionally quoted, hex compared
/// without case) whose <old> is a key of `partuuids` replaced by its new value;
/// other bytes unchanged. `*count` (when given) receives the replacements made.
std::string replace_partuuids(std::string_view text, const std::map<std::string, std::string>& partuuids,
                              int* count = nullptr);

}  // namespace piprov::image
