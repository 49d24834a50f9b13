// `piprov clone SOURCE TARGET...` (docs/keep.md "Moving a node to a USB SSD").
#include <fmt/format.h>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/board_option.hpp"
#include "cli/commands.hpp"
#include "cli/identity_options.hpp"
#include "cli/print_result.hpp"
#include "cli/progress_render.hpp"
#include "cli/write_options.hpp"
#include "core/finding.hpp"
#include "keep/clone.hpp"

namespace piprov::cli {

void add_clone_command(CLI::App& app, Globals&, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "clone",
      "Copy a disk onto other disks (a microSD card onto a USB SSD): only used blocks are read and written, the last "
      "ext4 grown to fill each target, a new disk identifier with PARTUUID= rewritten, then boot check");
  struct Args {
    keep::CloneOptions opts;
    ProgressMode progress = ProgressMode::Auto;
    bool json = false;
  };
  auto a = std::make_shared<Args>();
  cmd->add_option(
         "SOURCE", a->opts.source,
         "Whole disk or raw image file to copy; a mounted one (the running system) is copied file by file (rsync)")
      ->required();
  cmd->add_option("TARGET", a->opts.targets,
                  "Whole disk(s) (/dev/sdX, /dev/nvme0n1, /dev/loopN; see 'piprov devices'), written from one read")
      ->required();
  cmd->add_flag("-y,--yes", a->opts.assume_yes, "Do not ask for confirmation (needed without a terminal)");
  cmd->add_flag("--unmount", a->opts.unmount, "Unmount the targets' mounted partitions first (they are listed)");
  cmd->add_flag("--force", a->opts.force,
                "Copy a file system marked with errors or needing journal recovery (read in full) instead of "
                "refusing");
  cmd->add_flag_callback(
      "--no-verify", [a] { a->opts.verify = false; },
      "Skip reading the targets back and comparing (verify is on by default)");
  add_progress_option(cmd, a->progress);
  cmd->add_option("--threads", a->opts.threads, "Reader threads (default: all cores)")->check(CLI::Range(0u, 256u));
  cmd->add_flag("--new-identity", a->opts.new_identity,
                "Give each target its own identity (a fleet from a golden node): a cloud-init seed from the identity "
                "options below and a new machine-id; default: the same node on another disk");
  add_identity_options(cmd, a->opts.identity);
  add_board_option(cmd, a->opts.board,
                   "the Pi the TARGETs are for: boot check resolves what its firmware loads (default: the Pi this "
                   "runs on, else pi4; the check line names the board)");
  cmd->add_flag("--json", a->json, "Print the result as JSON on stdout");
  cmd->callback([a, &exit_code] {
    ProgressRenderer progress(resolve_on_stderr(a->progress));
    keep::CloneOptions opts = a->opts;
    opts.progress = progress.sink();
    opts.confirm = ask_on_terminal;
    const keep::CloneResult r = run_and_print(
        a->json, [&] { return keep::run_clone(opts); },
        [&](const Error& e) { return keep::clone_failure_json(opts, e); }, keep::clone_result_json,
        keep::clone_summary);
    std::fflush(stdout);
    for (const auto& t : r.targets)
      if (!t.ok) std::fprintf(stderr, "piprov: error: %s\n", t.error.c_str());
    exit_code = keep::clone_exit_code(r);
  });
}

}  // namespace piprov::cli
