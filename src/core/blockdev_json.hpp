#pragma once
// `piprov devices --json`: disks and their partitions as JSON (docs/write.md
// "Choosing the device"). Sizes in bytes; keys are the field names of Disk
// and Partition (core/blockdev.hpp) plus "mountpoints" = Disk::mounted().
#include <nlohmann/json_fwd.hpp>
#include <vector>

#include "core/blockdev.hpp"

namespace piprov {

/// One disk: {"name", "path", "model", "vendor", "serial", "transport",
/// "size_bytes", "removable", "read_only", "rotational", "logical_block_size",
/// "physical_block_size", "max_sectors_kb", "backing_file", "mountpoints",
/// "holders", "system_disk", "system_reasons", "partitions": [{"name", "path",
/// "number", "start_bytes", "size_bytes", "label", "fstype", "uuid",
/// "mountpoints", "holders"}]}.
nlohmann::json disk_json(const Disk& d);

/// A JSON array of disk_json() objects, in the order given.
nlohmann::json disks_json(const std::vector<Disk>& disks);

}  // namespace piprov
