// `piprov provision IMAGE DEVICE`: write + find partitions + mount + boot patch
// --root + boot check + sync + unmount, printing each step (src/provision/provision.hpp).
#include <fmt/format.h>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/patch_options.hpp"
#include "cli/registry.hpp"
#include "cli/write_options.hpp"
#include "core/finding.hpp"
#include "provision/provision.hpp"

namespace piprov::cli {
namespace {

struct ProvisionArgs {
  provision::ProvisionOptions opts;
  bool json = false;
};

const CommandRegistrar reg(40, [](CLI::App& app, Globals&, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "provision", "Write an Ubuntu Pi image to a USB disk, then make it boot a Pi 4 from USB (patch + check)");
  auto a = std::make_shared<ProvisionArgs>();
  add_write_options(cmd, a->opts.write);
  add_patch_options(cmd, a->opts.patch);
  cmd->add_option("--usb-id", a->opts.usb_ids, "USB VID:PID of the SSD's bridge, for the UAS quirk check");
  cmd->add_flag("--json", a->json,
                "Print the result as JSON on stdout (schema piprov.provision/2, docs/boot.md; no step lines)");
  cmd->callback([a, &exit_code] {
    auto& o = a->opts;
    int n = 0;
    if (!a->json)
      o.on_step = [&n](const std::string& step, const std::string& text) {
        fmt::print("[{}/7] {:<10} {}\n", ++n, step, text);
        std::fflush(stdout);
      };
    auto rep = provision::provision(o);
    Findings problems;  // the text output lists what fails; --json has every finding
    for (const auto& f : rep.check.findings)
      if (f.severity != Severity::Info) problems.push_back(f);
    if (!a->json) fmt::print("{}", findings_text(problems));
    if (a->json) {
      nlohmann::json steps = nlohmann::json::array();
      for (const auto& [s, t] : rep.steps) steps.push_back({{"step", s}, {"result", t}});
      fmt::print("{}\n",
                 dump_json(nlohmann::json{{"schema", "piprov.provision/2"},
                                          {"write", write_result_json(rep.write)},
                                          {"boot_partition", rep.boot_partition},
                                          {"root_partition", rep.root_partition},
                                          {"patch_actions", rep.patch.actions},
                                          {"config_diff", rep.patch.config_diff},
                                          {"check_ok", rep.check.ok()},
                                          {"findings", findings_json(rep.check.findings)},
                                          {"summary", findings_summary_json(rep.check.findings, boot::kCheckFailOn)},
                                          {"steps", steps}}));
    } else if (rep.check.ok()) {
      fmt::print(
          "provision: {} is ready: a Pi 4 boots it from USB ([pi4] kernel=vmlinux), and the apt hook keeps "
          "vmlinux fresh after kernel updates\n",
          o.write.target);
    } else {
      fmt::print("provision: {} was written and patched, but boot check found problems (above)\n", o.write.target);
    }
    exit_code = findings_exit_code(rep.check.findings, boot::kCheckFailOn);
  });
});

}  // namespace
}  // namespace piprov::cli
