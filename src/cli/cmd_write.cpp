// `piprov write IMAGE DEVICE` (docs/write.md).
#include <fmt/format.h>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/print_result.hpp"
#include "cli/progress_render.hpp"
#include "cli/write_options.hpp"
#include "core/finding.hpp"
#include "image/result_text.hpp"
#include "image/write.hpp"

namespace piprov::cli {

void add_write_command(CLI::App& app, Globals&, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "write", "Decompress, write and verify an OS image onto whole disks or files (several from one decode)");
  struct Args {
    image::WriteOptions opts;
    ProgressMode progress = ProgressMode::Auto;
    bool json = false;
  };
  auto a = std::make_shared<Args>();
  add_write_options(cmd, a->opts, a->progress);
  cmd->add_flag("--json", a->json, "Print the result as JSON on stdout");
  cmd->callback([a, &exit_code] {
    ProgressRenderer progress(resolve_on_stderr(a->progress));
    image::WriteOptions opts = a->opts;
    opts.progress = progress.sink();
    opts.return_when_all_fail = a->json;  // the JSON is printed also when no target was written
    // Refused, bad input, interrupted: scripts still get an object.
    const image::WriteResult r = run_and_print(
        a->json, [&] { return image::write_image(opts); },
        [&](const Error& e) { return image::write_failure_json(opts, e); }, image::write_result_json,
        image::write_summary);
    if (r.succeeded() == 0) throw image::no_target_written(r);
    print_target_errors(r);
    exit_code = image::write_exit_code(r);
  });
}

}  // namespace piprov::cli
