// `piprov write IMAGE DEVICE` and `piprov verify IMAGE DEVICE` (the verify
// step on its own, like rpi-imager's post-write verify; docs/write.md).
#include <fmt/format.h>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/registry.hpp"
#include "cli/write_options.hpp"
#include "core/units.hpp"
#include "image/verify.hpp"
#include "image/write.hpp"

namespace piprov::cli {
namespace {

const CommandRegistrar reg_write(20, [](CLI::App& app, Globals&, int&) {
  auto* cmd = app.add_subcommand("write", "Decompress, write and verify an OS image onto a whole disk or a file");
  auto opts = std::make_shared<image::WriteOptions>();
  auto json = std::make_shared<bool>(false);
  add_write_options(cmd, *opts);
  cmd->add_flag("--json", *json, "Print the result as JSON on stdout");
  cmd->callback([opts, json] {
    auto r = image::write_image(*opts);
    if (*json)
      fmt::print("{}\n", write_result_json(r).dump(2));
    else
      fmt::print("{}\n", write_summary(r));
  });
});

const CommandRegistrar reg_verify(21, [](CLI::App& app, Globals&, int&) {
  auto* cmd =
      app.add_subcommand("verify", "Compare a disk or file with an image, byte for byte (exit 4 on a mismatch)");
  struct Args {
    std::string image, target;
    unsigned threads = 0;
    ProgressMode progress = ProgressMode::Auto;
    bool json = false;
  };
  auto a = std::make_shared<Args>();
  cmd->add_option("IMAGE", a->image, "Image file (any format piprov write takes)")->required();
  cmd->add_option("DEVICE", a->target, "Whole disk or regular file to check")->required();
  cmd->add_option_function<std::string>(
         "--progress", [a](const std::string& s) { a->progress = parse_progress_mode(s); },
         "Progress on stderr: auto, tty, plain, json, none")
      ->type_name("MODE");
  cmd->add_option("--threads", a->threads, "xz decoder threads (default: all cores)")->check(CLI::Range(0u, 256u));
  cmd->add_flag("--json", a->json, "Print the result as JSON on stdout");
  cmd->callback([a] {
    auto r = image::verify_image(a->image, a->target, a->threads, a->progress);
    double rate = r.seconds > 0 ? static_cast<double>(r.bytes) / r.seconds : 0;
    if (a->json)
      fmt::print("{}\n", nlohmann::json{{"image", r.image},
                                        {"target", r.target},
                                        {"format", r.format},
                                        {"bytes", r.bytes},
                                        {"seconds", r.seconds},
                                        {"bytes_per_second", rate},
                                        {"xxh3_128", r.xxh3_128},
                                        {"match", true}}
                             .dump(2));
    else
      fmt::print("verified: {} matches {} ({}, {}) in {} ({}); XXH3-128 {}\n", r.target, r.image, format_bytes(r.bytes),
                 r.format, format_duration(r.seconds), format_mib_s(rate), r.xxh3_128);
  });
});

}  // namespace
}  // namespace piprov::cli
