// `piprov verify IMAGE DEVICE`: the verify step on its own, like rpi-imager's
// post-write verify (docs/write.md "Verify").
#include <fmt/format.h>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/print_result.hpp"
#include "cli/progress_render.hpp"
#include "cli/write_options.hpp"
#include "core/finding.hpp"
#include "image/result_text.hpp"
#include "image/verify.hpp"

namespace piprov::cli {

void add_verify_command(CLI::App& app, Globals&, int&) {
  auto* cmd = app.add_subcommand("verify",
                                 "Compare a disk or file with an image: the bytes piprov write writes, or every byte "
                                 "with --full (exit 4 on a mismatch)");
  struct Args {
    std::string image, target;
    unsigned threads = 0;
    ProgressMode progress = ProgressMode::Auto;
    bool json = false;
    bool full = false;
  };
  auto a = std::make_shared<Args>();
  cmd->add_option("IMAGE", a->image, "Image file (any format piprov write takes)")->required();
  cmd->add_option("DEVICE", a->target, "Whole disk or regular file to check")->required();
  add_progress_option(cmd, a->progress);
  cmd->add_option("--threads", a->threads, "xz decoder threads (default: all cores)")->check(CLI::Range(0u, 256u));
  cmd->add_flag("--full", a->full,
                "Compare every byte (default: not the free space of ext2/3/4 and FAT, which piprov write skips)");
  cmd->add_flag("--json", a->json, "Print the result as JSON on stdout");
  cmd->callback([a] {
    ProgressRenderer progress(resolve_on_stderr(a->progress));
    run_and_print(
        a->json, [&] { return image::verify_image(a->image, a->target, a->threads, progress.sink(), a->full); },
        [&](const Error& e) { return image::verify_failure_json(a->image, a->target, e); }, image::verify_result_json,
        image::verify_summary);
  });
}

}  // namespace piprov::cli
