#pragma once
// What `piprov backup` and `piprov clone` check about the disk they read
// (issue 28): the write guard's facts about it (a read intent: a whole disk
// or an image file, never a partition), and its file systems' state.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/write_guard.hpp"
#include "image/skip_filter.hpp"

namespace piprov::keep {

/// The write guard's facts about `disk` (check_write() with
/// WriteIntent::ReadDisk: partitions, missing paths and other kinds are
/// refused with its Error{Usage}); nullopt for a regular (image) file. An
/// image file backing a loop device (loop(4)) with a mounted file system is
/// refused with Error{Usage} "<file> is in use: ... unmount them", as that
/// loop device is (its journal is dirty because it is mounted: e2fsck(8)
/// must not be run then).
std::optional<WriteSubject> inspect_source_disk(const std::string& disk);

/// Throws Error{Usage} for the first partition whose ext2/3/4 is marked with
/// errors or needs journal recovery (image::kExtHasErrors,
/// kExtNeedsRecovery in its full_reason), naming it and saying to run e2fsck
/// first or give --force to `verb` it as it is ("back it up", "copy it");
/// nothing when `force`.
void refuse_damaged_source(const std::vector<image::PartitionSkip>& parts, const std::string& disk, bool force,
                           std::string_view verb);

/// The source's partitions as backup's and clone's `--json` give them:
/// [{"number", "type", "fs", "label", "size", "skipped_bytes", "full_reason"}]
/// (sizes in bytes; "full_reason" "" when the used blocks were found).
nlohmann::json source_partitions_json(const std::vector<image::PartitionSkip>& parts);

}  // namespace piprov::keep
