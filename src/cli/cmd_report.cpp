// `piprov report FILE...`: several piprov JSON results (one or more per node)
// side by side. Wiring and printing only; the work is in src/fleet/.
#include <fmt/format.h>
#include <cstdio>

#include "cli/commands.hpp"
#include "fleet/fleet.hpp"
#include "fleet/input.hpp"
#include "fleet/render.hpp"

namespace piprov::cli {
namespace {

struct ReportArgs {
  std::vector<std::string> files, names;
  std::string format = "text";
  bool json = false;
};

}  // namespace

void add_report_command(CLI::App& app, Globals&, int& exit_code) {
  auto* c = app.add_subcommand(
      "report",
      "Side by side: boot check, eeprom check and bench --json results of several nodes (layout, findings by "
      "severity, first error, bench figures); exit 1 when a node failed");
  auto a = std::make_shared<ReportArgs>();
  c->add_option("FILE", a->files,
                "piprov --json results: HOST=FILE, or FILE (host = the file name up to its first dot)")
      ->required();
  c->add_option("--name", a->names, "Host of each FILE, in order (one --name per FILE)")->allow_extra_args(false);
  c->add_option("--format", a->format, fleet::format_choices())->capture_default_str();
  c->add_flag("--json", a->json, "Same as --format json");
  c->callback([a, &exit_code] {
    auto format = fleet::parse_format(a->json ? "json" : a->format);
    auto model = fleet::load_fleet(fleet::input_files(a->files, a->names));
    fmt::print("{}", fleet::render(model, format));
    std::fflush(stdout);
    exit_code = fleet::fleet_exit_code(model);
  });
}

}  // namespace piprov::cli
