// `piprov seed check [--user-data F] [--network-config F] [--meta-data F]
// [--image IMAGE]` (issue 29): provision's seed check without a disk
// (provision::check_seed_files()): the same findings, the same refusal
// (exit 2, refusal_text()) and the same "seed_check" JSON object.
#include <fmt/format.h>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "core/finding.hpp"
#include "provision/identity.hpp"
#include "provision/provision.hpp"

namespace piprov::cli {

void add_seed_command(CLI::App& app, Globals&, int&) {
  auto* seed = app.add_subcommand("seed", "Check cloud-init seed files (NoCloud) before they go onto a disk");
  seed->require_subcommand(1);
  auto* cmd = seed->add_subcommand(
      "check",
      "Check user-data, network-config and meta-data as provision does, without a disk (exit 2 when provision "
      "would refuse them)");
  struct Args {
    provision::IdentityOptions files;
    std::string image;
    bool json = false;
  };
  auto a = std::make_shared<Args>();
  cmd->add_option("--user-data", a->files.user_data_file, "#cloud-config user-data to check");
  cmd->add_option("--network-config", a->files.network_config_file, "network-config (version 1 or 2) to check");
  cmd->add_option("--meta-data", a->files.meta_data_file, "meta-data to check");
  cmd->add_option("--image", a->image,
                  "The image the seed goes onto (.img, .img.xz, ...): its own cloud-init schema and netplan version "
                  "judge the files (default: this machine's cloud-init)");
  cmd->add_flag("--force-seed", a->files.force_seed,
                "As provision --force-seed: errors it overrides become warnings (exit 0)");
  cmd->add_flag(
      "--json", a->json,
      "Print {schema piprov.seed.check/1, refused, seed_check} on stdout (seed_check as in provision --json)");
  cmd->callback([a] {
    const provision::SeedCheck c = provision::check_seed_files(a->files, a->image);
    if (a->json) {
      fmt::print("{}\n", dump_json({{"schema", "piprov.seed.check/1"},
                                    {"refused", c.refused()},
                                    {"seed_check", provision::seed_check_json(c)}}));
      std::fflush(stdout);
      if (c.refused()) throw Error(ErrorKind::Usage, provision::refusal_text(c));
      return;
    }
    if (c.refused()) throw Error(ErrorKind::Usage, provision::refusal_text(c), c.findings);
    fmt::print("{}", findings_text(c.findings));
    fmt::print("seed check: {} (checked with {})\n",
               c.findings.empty() ? "OK" : findings_summary_text(c.findings, FailOn::Error), c.validator);
  });
}

}  // namespace piprov::cli
