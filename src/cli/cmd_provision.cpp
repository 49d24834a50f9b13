// `piprov provision IMAGE DEVICE`: write + find partitions + mount + boot patch
// --root + boot check + sync + unmount, printing each step (src/provision/provision.hpp).
#include <fmt/format.h>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/progress_render.hpp"
#include "cli/write_options.hpp"
#include "provision/provision.hpp"

namespace piprov::cli {
namespace {

struct ProvisionArgs {
  provision::ProvisionOptions opts;
  ProgressMode progress = ProgressMode::Auto;
  bool json = false, seed = false;
  int gpu_mem = -1, max_fb = -1, boot_delay = -1;
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
  cmd->add_flag(
      "--seed-settings", a->seed,
      "Also the usual Pi 4 USB-boot [pi4] settings: gpu_mem=16 max_framebuffers=2 dtoverlay=vc4-fkms-v3d boot_delay=1");
  cmd->add_option("--gpu-mem", a->gpu_mem, "Also set [pi4] gpu_mem=N (MiB)")->check(CLI::Range(16, 1024));
  cmd->add_option("--max-framebuffers", a->max_fb, "Also set [pi4] max_framebuffers=N")->check(CLI::Range(0, 4));
  cmd->add_option("--boot-delay", a->boot_delay, "Also set [pi4] boot_delay=N (seconds)")->check(CLI::Range(0, 60));
  cmd->add_flag("--fkms", a->opts.patch.fkms, "Also add [pi4] dtoverlay=vc4-fkms-v3d");
  cmd->add_option("--uas-quirk", a->opts.patch.uas_quirks, "Add usb-storage.quirks=VID:PID:u to cmdline.txt");
  cmd->add_option("--usb-id", a->opts.usb_ids, "USB VID:PID of the SSD's bridge, for the UAS quirk check");
  cmd->add_flag("--json", a->json, "Print the result as JSON on stdout (no step lines)");
  cmd->callback([a, &exit_code] {
    auto& o = a->opts;
    if (a->gpu_mem >= 0) o.patch.gpu_mem = a->gpu_mem;
    if (a->max_fb >= 0) o.patch.max_framebuffers = a->max_fb;
    if (a->boot_delay >= 0) o.patch.boot_delay = a->boot_delay;
    if (a->seed) {
      if (!o.patch.gpu_mem) o.patch.gpu_mem = 16;
      if (!o.patch.max_framebuffers) o.patch.max_framebuffers = 2;
      if (!o.patch.boot_delay) o.patch.boot_delay = 1;
      o.patch.fkms = true;
    }
    ProgressRenderer progress(resolve_on_stderr(a->progress));
    o.progress = provision_sink(progress, a->json);
    auto rep = provision::provision(o);
    nlohmann::json findings = nlohmann::json::array();
    for (const auto& f : rep.check.findings) {
      findings.push_back(
          {{"severity", boot::to_string(f.severity)}, {"code", f.code}, {"message", f.message}, {"fix", f.fix}});
      if (!a->json && f.severity != boot::Severity::Info)
        fmt::print("  {}: {} -- fix: {}\n", boot::to_string(f.severity), f.message, f.fix);
    }
    if (a->json) {
      nlohmann::json steps = nlohmann::json::array();
      for (const auto& s : rep.steps) steps.push_back({{"step", s.step}, {"result", s.result}, {"seconds", s.seconds}});
      fmt::print("{}\n", nlohmann::json{{"write", image::write_result_json(rep.write)},
                                        {"boot_partition", rep.boot_partition},
                                        {"root_partition", rep.root_partition},
                                        {"patch_actions", rep.patch.actions},
                                        {"config_diff", rep.patch.config_diff},
                                        {"check_ok", rep.check.ok()},
                                        {"findings", findings},
                                        {"steps", steps}}
                             .dump(2));
    } else if (rep.check.ok()) {
      fmt::print(
          "provision: {} is ready: a Pi 4 boots it from USB ([pi4] kernel=vmlinux), and the apt hook keeps "
          "vmlinux fresh after kernel updates\n",
          o.write.target);
    } else {
      fmt::print("provision: {} was written and patched, but boot check found problems (above)\n", o.write.target);
    }
    if (!rep.check.ok()) exit_code = 1;
  });
}

}  // namespace piprov::cli
