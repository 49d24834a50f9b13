// `piprov devices [--json]`: whole disks a user could write to.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "core/blockdev.hpp"
#include "core/blockdev_json.hpp"
#include "core/finding.hpp"
#include "core/strings.hpp"
#include "core/units.hpp"

namespace piprov::cli {
namespace {

void print_table(const std::vector<Disk>& disks) {
  fmt::print("{:<14} {:>10} {:<9} {:<24} {:<4} {:<3} {}\n", "DEVICE", "SIZE", "TRANSPORT", "MODEL", "RM", "RO",
             "STATE");
  for (const auto& d : disks) {
    std::string state = d.system_disk         ? "SYSTEM DISK (" + join(d.system_reasons, "; ") + ")"
                        : d.mounted().empty() ? (d.backing_file.empty() ? "" : "backed by " + d.backing_file)
                                              : "mounted: " + join(d.mounted(), ", ");
    // A virtio disk has no model, and its "vendor" is a PCI vendor ID (0x1af4): not a name.
    std::string model = !d.model.empty() ? d.model : d.vendor.rfind("0x", 0) == 0 ? "-" : d.vendor;
    if (model.empty()) model = "-";
    fmt::print("{:<14} {:>10} {:<9} {:<24} {:<4} {:<3} {}\n", d.path, format_bytes(d.size_bytes),
               transport_name(d.transport), model.substr(0, 24), d.removable ? "yes" : "no", d.read_only ? "yes" : "no",
               state);
  }
}

}  // namespace

void add_devices_command(CLI::App& app, Globals&, int&) {
  auto* cmd =
      app.add_subcommand("devices", "List whole disks: model, size, transport, removable, mounted, system disk");
  auto json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "Print JSON (array of disks) instead of a table");
  cmd->callback([json] {
    auto disks = list_disks();
    if (*json)
      fmt::print("{}\n", dump_json(disks_json(disks)));
    else
      print_table(disks);
  });
}

}  // namespace piprov::cli
