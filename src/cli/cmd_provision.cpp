// `piprov provision IMAGE DEVICE`: write + find partitions + mount + boot patch
// --root + boot check + sync + unmount, printing each step (src/provision/provision.hpp).
#include <fmt/format.h>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/identity_options.hpp"
#include "cli/patch_options.hpp"
#include "cli/progress_render.hpp"
#include "cli/write_options.hpp"
#include "core/finding.hpp"
#include "provision/provision.hpp"

namespace piprov::cli {
namespace {

struct ProvisionArgs {
  provision::ProvisionOptions opts;
  ProgressMode progress = ProgressMode::Auto;
  bool json = false;
};

/// Step events as "[n/7] ..." lines on stdout (unless --json); the write's
/// phases to the progress renderer on stderr.
ProgressSink provision_sink(ProgressRenderer& progress, bool json) {
  return [&progress, json](const ProgressEvent& e) {
    if (e.kind != ProgressEvent::Kind::Step) return progress(e);
    if (json) return;
    fmt::print("{}\n", step_text(e));
    std::fflush(stdout);
  };
}

}  // namespace

void add_provision_command(CLI::App& app, Globals&, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "provision", "Write an Ubuntu Pi image to a USB disk, then make it boot a Pi 4 from USB (patch + check)");
  auto a = std::make_shared<ProvisionArgs>();
  add_write_options(cmd, a->opts.write, a->progress);
  add_patch_options(cmd, a->opts.patch);
  cmd->add_option("--usb-id", a->opts.usb_ids, "USB VID:PID of the SSD's bridge, for the UAS quirk check");
  add_identity_options(cmd, a->opts.identity);
  cmd->add_flag("--json", a->json,
                "Print the result as JSON on stdout (schema piprov.provision/2, docs/boot.md; no step lines)");
  cmd->callback([a, &exit_code] {
    auto& o = a->opts;
    ProgressRenderer progress(resolve_on_stderr(a->progress));
    o.progress = provision_sink(progress, a->json);
    auto rep = provision::provision(o);
    Findings problems;  // the text output lists what fails; --json has every finding
    for (const auto& f : rep.check.findings)
      if (f.severity != Severity::Info) problems.push_back(f);
    if (!a->json) fmt::print("{}", findings_text(problems));
    if (a->json) {
      fmt::print("{}\n", dump_json(provision::provision_json(rep)));
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
}

}  // namespace piprov::cli
