#include "core/blockdev_json.hpp"

#include <nlohmann/json.hpp>

namespace piprov {

nlohmann::json disk_json(const Disk& d) {
  nlohmann::json parts = nlohmann::json::array();
  for (const auto& p : d.partitions)
    parts.push_back({{"name", p.name},
                     {"path", p.path},
                     {"number", p.number},
                     {"start_bytes", p.start_bytes},
                     {"size_bytes", p.size_bytes},
                     {"label", p.label},
                     {"fstype", p.fstype},
                     {"uuid", p.uuid},
                     {"partuuid", p.partuuid},
                     {"mountpoints", p.mountpoints},
                     {"holders", p.holders}});
  return {{"name", d.name},
          {"path", d.path},
          {"model", d.model},
          {"vendor", d.vendor},
          {"serial", d.serial},
          {"transport", transport_name(d.transport)},
          {"size_bytes", d.size_bytes},
          {"removable", d.removable},
          {"read_only", d.read_only},
          {"rotational", d.rotational},
          {"logical_block_size", d.logical_block_size},
          {"physical_block_size", d.physical_block_size},
          {"max_sectors_kb", d.max_sectors_kb},
          {"backing_file", d.backing_file},
          {"mountpoints", d.mounted()},
          {"holders", d.holders},
          {"system_disk", d.system_disk},
          {"system_reasons", d.system_reasons},
          {"partitions", parts}};
}

nlohmann::json disks_json(const std::vector<Disk>& disks) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& d : disks) out.push_back(disk_json(d));
  return out;
}

}  // namespace piprov
