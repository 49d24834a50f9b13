// `piprov backup DISK OUT` (docs/keep.md "Backups").
#include <fmt/format.h>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/print_result.hpp"
#include "cli/progress_render.hpp"
#include "cli/write_options.hpp"
#include "core/finding.hpp"
#include "keep/backup.hpp"

namespace piprov::cli {

void add_backup_command(CLI::App& app, Globals&, int&) {
  auto* cmd = app.add_subcommand(
      "backup",
      "Back a disk up into an image file that piprov write takes: only used blocks are read, compressed on all "
      "cores (.img, .img.xz, .img.zst, .img.gz), with a sha256sum line beside it");
  struct Args {
    keep::BackupOptions opts;
    ProgressMode progress = ProgressMode::Auto;
    bool json = false;
  };
  auto a = std::make_shared<Args>();
  cmd->add_option("DISK", a->opts.disk, "Whole disk (not mounted) or raw image file to back up")->required();
  cmd->add_option("OUT", a->opts.out,
                  "Image file to write: its name picks the format (.img, .img.xz, .img.zst, .img.gz)")
      ->required();
  add_progress_option(cmd, a->progress);
  cmd->add_option("--threads", a->opts.threads, "Reader and compressor threads (default: all cores)")
      ->check(CLI::Range(0u, 256u));
  cmd->add_flag("--yes,-y", a->opts.replace, "Replace OUT when it exists");
  cmd->add_flag("--force", a->opts.force,
                "Back up a file system marked with errors or needing journal recovery (read in full) instead of "
                "refusing");
  cmd->add_flag("--shrink", a->opts.shrink,
                "Shrink the last ext2/3/4 partition to its minimum plus 3% in the image (never on DISK); the summary "
                "says whether it grows back on first boot");
  cmd->add_flag("--json", a->json, "Print the result as JSON on stdout");
  cmd->callback([a] {
    ProgressRenderer progress(resolve_on_stderr(a->progress));
    keep::BackupOptions opts = a->opts;
    opts.progress = progress.sink();
    run_and_print(
        a->json, [&] { return keep::run_backup(opts); },
        [&](const Error& e) { return keep::backup_failure_json(opts, e); }, keep::backup_result_json,
        keep::backup_summary);
  });
}

}  // namespace piprov::cli
