// `piprov provision IMAGE DEVICE...`: runs provision::provision_all() (its
// steps: src/provision/steps.hpp) and prints each step as it ends, then each
// disk's findings and ready sentence (src/provision/provision.hpp).
#include <fmt/format.h>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/board_option.hpp"
#include "cli/commands.hpp"
#include "cli/identity_options.hpp"
#include "cli/patch_options.hpp"
#include "cli/progress_render.hpp"
#include "cli/write_options.hpp"
#include "core/error.hpp"
#include "core/finding.hpp"
#include "core/strings.hpp"
#include "image/result_text.hpp"
#include "provision/dry_run.hpp"
#include "provision/provision.hpp"

namespace piprov::cli {
namespace {

struct ProvisionArgs {
  provision::ProvisionOptions opts;
  ProgressMode progress = ProgressMode::Auto;
  bool json = false;
  bool dry_run = false;
};

/// Step events as "[n/9] ..." lines on stdout (unless --json); the write's
/// phases to the progress renderer on stderr.
ProgressSink provision_sink(ProgressRenderer& progress, bool json) {
  return [&progress, json](const ProgressEvent& e) {
    if (e.kind != ProgressEvent::Kind::Step) return progress(e);
    if (json) return;
    fmt::print("{}\n", step_text(e));
    std::fflush(stdout);
  };
}

/// The text result of one disk: the boot check's problems and a last line.
void print_target(const provision::TargetReport& t, bool several) {
  if (!t.ok) return;  // its error goes to stderr
  Findings problems;  // the text output lists what fails; --json has every finding
  for (const auto& f : t.check.findings)
    if (f.severity != Severity::Info) problems.push_back(f);
  if (several && !problems.empty()) fmt::print("{}:\n", t.target);
  fmt::print("{}", findings_text(problems));
  const auto& id = t.disk_identity;
  fmt::print("provision: {}: disk identifier {} -> {}{}\n", t.target, id.old_id, id.new_id,
             t.seed_plan.instance_id.empty()
                 ? ""
                 : fmt::format("; first boot: {}instance-id {} ({})",
                               t.seed_plan.hostname.empty() ? "" : "hostname " + t.seed_plan.hostname + ", ",
                               t.seed_plan.instance_id, join(t.seed.seed_files, ", ")));
  fmt::print("{}\n", provision::ready_sentence(t));
}

}  // namespace

void add_provision_command(CLI::App& app, Globals&, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "provision",
      "Write an Ubuntu Pi image to USB disks (several from one decode), then make each boot a Pi 4 from USB "
      "(patch + check)");
  auto a = std::make_shared<ProvisionArgs>();
  add_write_options(cmd, a->opts.write, a->progress);
  add_patch_options(cmd, a->opts.patch);
  add_method_option(cmd, a->opts.patch);
  add_board_option(cmd, a->opts.patch.board,
                   "the Pi the disks are for: the final boot check resolves what its firmware loads (default: the "
                   "Pi this runs on, else pi4), and a layout that needs the Pi 4 fix is refused for a Pi 5 family "
                   "board");
  cmd->add_option("--usb-id", a->opts.usb_ids, "USB VID:PID of the SSD's bridge, for the UAS quirk check");
  add_identity_options(cmd, a->opts.identity);
  cmd->add_flag("--json", a->json,
                "Print the result as JSON on stdout (schema piprov.provision/3, docs/provision.md; no step lines)");
  cmd->add_flag("--dry-run", a->dry_run,
                "Print each disk's whole plan (disk id, patch actions, the seed files and their text, boot check) from "
                "the image alone; touch no disk; exit as the real run would");
  cmd->callback([a, &exit_code] {
    auto& o = a->opts;
    if (a->dry_run) {
      const auto plan = provision::provision_dry_run(o);
      if (a->json)
        fmt::print("{}\n", dump_json(provision::dry_run_json(o, plan)));
      else
        fmt::print("{}", provision::dry_run_text(plan));
      exit_code = provision::dry_run_exit_code(plan);
      return;
    }
    ProgressRenderer progress(resolve_on_stderr(a->progress));
    o.progress = provision_sink(progress, a->json);
    auto rep = provision::provision_all(o);
    // The seed check's warnings (its errors refused before the write).
    if (!rep.seed_check.findings.empty() && !a->json) {
      std::fprintf(stderr, "provision: seed check (%s):\n%s", rep.seed_check.validator.c_str(),
                   findings_text(rep.seed_check.findings).c_str());
      std::fflush(stderr);
    }
    if (a->json) {
      fmt::print("{}\n", dump_json(provision::provision_json(rep)));
    } else {
      for (const auto& t : rep.targets) print_target(t, rep.targets.size() > 1);
      if (rep.targets.size() > 1)
        fmt::print("{}\n{}\n", image::write_summary(rep.write), provision::steps_summary(rep));
    }
    std::fflush(stdout);
    if (auto none = provision::no_disk_provisioned(rep)) throw *none;  // main prints it, one line per disk
    for (const auto& t : rep.targets)
      if (!t.ok) std::fprintf(stderr, "piprov: error: %s\n", t.error.c_str());
    if (rep.interrupted) std::fprintf(stderr, "%s\n", provision::interrupted_text(rep).c_str());
    exit_code = provision::exit_code(rep);
  });
}

}  // namespace piprov::cli
