// `piprov devices [--json] [--all]`: whole disks a user could write to.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/registry.hpp"
#include "core/blockdev.hpp"
#include "core/units.hpp"

namespace piprov::cli {
namespace {

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

nlohmann::json to_json(const Disk& d) {
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
                     {"mountpoints", p.mountpoints},
                     {"holders", p.holders}});
  return {{"name", d.name},
          {"path", d.path},
          {"model", d.model},
          {"vendor", d.vendor},
          {"serial", d.serial},
          {"transport", d.transport},
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

const CommandRegistrar reg(10, [](CLI::App& app, Globals&, int&) {
  auto* cmd =
      app.add_subcommand("devices", "List whole disks: model, size, transport, removable, mounted, system disk");
  auto json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "Print JSON (array of disks) instead of a table");
  cmd->callback([json] {
    auto disks = list_disks();
    if (*json) {
      nlohmann::json out = nlohmann::json::array();
      for (const auto& d : disks) out.push_back(to_json(d));
      fmt::print("{}\n", out.dump(2));
      return;
    }
    fmt::print("{:<14} {:>10} {:<9} {:<24} {:<4} {:<3} {}\n", "DEVICE", "SIZE", "TRANSPORT", "MODEL", "RM", "RO",
               "STATE");
    for (const auto& d : disks) {
      std::string state = d.system_disk         ? "SYSTEM DISK (" + join(d.system_reasons, "; ") + ")"
                          : d.mounted().empty() ? (d.backing_file.empty() ? "" : "backed by " + d.backing_file)
                                                : "mounted: " + join(d.mounted(), ", ");
      std::string model = d.model.empty() ? d.vendor : d.model;
      fmt::print("{:<14} {:>10} {:<9} {:<24} {:<4} {:<3} {}\n", d.path, format_bytes(d.size_bytes), d.transport,
                 model.substr(0, 24), d.removable ? "yes" : "no", d.read_only ? "yes" : "no", state);
    }
  });
});

}  // namespace
}  // namespace piprov::cli
