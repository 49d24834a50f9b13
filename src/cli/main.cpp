// piprov entry point: global options, the table of commands, error -> exit code.
// Exit codes (core/error.hpp): 0 ok, 1 findings, 2 usage, 3 I/O, 4 verify,
// 130 interrupted (128 + SIGINT, as shells report it).
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <cstdio>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "cli/commands.hpp"
#include "core/cancel.hpp"
#include "core/error.hpp"
#include "core/finding.hpp"
#include "core/strings.hpp"

namespace piprov::cli {
namespace {

struct Command {
  std::string_view name;  ///< the subcommand the function adds
  AddCommandFn add;
};

/// Every command of piprov, in the order --help lists them.
constexpr Command kCommands[] = {
    {"devices", add_devices_command},      // list disks (cmd_devices.cpp)
    {"write", add_write_command},          // image -> disk or file (cmd_write.cpp)
    {"verify", add_verify_command},        // compare a disk with an image (cmd_verify.cpp)
    {"backup", add_backup_command},        // disk -> image file, used blocks only (cmd_backup.cpp)
    {"clone", add_clone_command},          // disk -> disks, used blocks only, grown, new disk id (cmd_clone.cpp)
    {"boot", add_boot_command},            // boot patch | check | sync-kernel (cmd_boot.cpp)
    {"provision", add_provision_command},  // write + patch + check (cmd_provision.cpp)
    {"seed", add_seed_command},            // seed check: provision's cloud-init seed check alone (cmd_seed.cpp)
    {"eeprom", add_eeprom_command},        // bootloader config check | explain | ... (cmd_eeprom.cpp)
    {"bench", add_bench_command},          // storage benchmark, fio import (cmd_bench.cpp)
    {"report", add_report_command},        // several nodes' JSON results side by side (cmd_report.cpp)
};

void add_commands(CLI::App& app, Globals& globals, int& exit_code) {
  for (const auto& c : kCommands) {
    c.add(app, globals, exit_code);
    (void)app.get_subcommand(std::string(c.name));  // throws CLI::OptionNotFound when the entry's name is wrong
  }
}

}  // namespace
namespace {

/// "unknown command 'bnech' (piprov has ...; did you mean bench?)" when a
/// word where a command must be (piprov, piprov boot, piprov eeprom) names
/// none; nullopt otherwise, and for commands that also take positionals
/// (bench TARGET..., bench import).
std::optional<std::string> unknown_command(const CLI::App& app, int argc, const char* const* argv) {
  for (int i = 1; i < argc; ++i) {
    std::string_view w = argv[i];
    if (w == "-h" || w == "--help" || w == "--help-all" || w == "--version") return std::nullopt;  // CLI11's
  }
  const CLI::App* cur = &app;
  std::string path = "piprov";
  auto names_of = [](const CLI::App* a) {
    std::vector<std::string> names;
    for (const auto* sub : a->get_subcommands([](const CLI::App*) { return true; })) names.push_back(sub->get_name());
    return join(names, ", ");
  };
  for (int i = 1; i < argc; ++i) {
    std::string_view word = argv[i];
    if (word.empty() || word[0] == '-') continue;  // -v, -q, --help: CLI11's
    if (cur->get_require_subcommand_min() == 0) return std::nullopt;
    const CLI::App* next = nullptr;
    std::string near;
    for (const auto* sub : cur->get_subcommands([](const CLI::App*) { return true; })) {
      if (sub->check_name(std::string(word))) next = sub;
      if (near.empty() && edit_distance(word, sub->get_name(), 2) <= 2) near = sub->get_name();
    }
    if (!next)
      return "unknown command '" + std::string(word) + "': " + path + " has " + names_of(cur) +
             (near.empty() ? std::string() : "; did you mean " + path + " " + near + "?");
    cur = next;
    path += " " + cur->get_name();
  }
  if (cur->get_require_subcommand_min() > 0) return path + " needs a command: " + names_of(cur);
  return std::nullopt;
}

/// The line for a CLI11 parse error: CLI11's text, but for an option of one value given more
/// than once ("--gateway: At Most 1 required but received 2"), which says what to do instead.
std::string parse_error_text(const CLI::ParseError& e) {
  static const std::regex at_most("^(-[^:]+): At Most 1 required but received ([0-9]+)$");
  std::cmatch m;
  std::string what = e.what();
  if (std::regex_match(what.c_str(), m, at_most))
    return m.str(1) + " is given " + m.str(2) + " times, but takes one value: give it once";
  return what;
}

}  // namespace
}  // namespace piprov::cli

namespace {
int run_main(int argc, char** argv) {
  using namespace piprov;
  auto logger = spdlog::stderr_color_mt("piprov");
  logger->set_pattern("%^%l%$: %v");
  spdlog::set_default_logger(logger);

  CLI::App app{"piprov: write OS images, patch Pi boot partitions, check bootloader EEPROM configs, benchmark storage"};
  app.set_version_flag("--version", std::string("piprov ") + PIPROV_VERSION);
  app.require_subcommand(1);
  app.footer(
      "Exit codes: 0 ok; 1 the check found problems; 2 usage error; 3 I/O or device error;\n"
      "4 verification failed; 5 some targets failed, the others were written; 130 interrupted.");
  cli::Globals globals;
  int exit_code = 0;
  app.add_flag("-v,--verbose", globals.verbosity, "More log output on stderr (-v info, -vv debug)");
  app.add_flag("-q,--quiet", globals.quiet, "Only errors on stderr");
  app.parse_complete_callback([&] {
    spdlog::set_level(globals.quiet            ? spdlog::level::err
                      : globals.verbosity >= 3 ? spdlog::level::trace
                      : globals.verbosity == 2 ? spdlog::level::debug
                      : globals.verbosity == 1 ? spdlog::level::info
                                               : spdlog::level::warn);
  });
  // -v/-q also after the command (`piprov write IMAGE DEV -v`), as the docs use them;
  // subcommands inherit this when they are made.
  app.fallthrough();
  cli::add_commands(app, globals, exit_code);
  install_cancel_handlers();

  if (auto unknown = cli::unknown_command(app, argc, argv)) {
    std::fprintf(stderr, "piprov: error: %s (see --help)\n", unknown->c_str());
    return static_cast<int>(ErrorKind::Usage);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "piprov: error: %s (see --help)\n", cli::parse_error_text(e).c_str());
    return static_cast<int>(ErrorKind::Usage);
  } catch (const Error& e) {
    std::fflush(stdout);
    // A refusal by a check: its findings in the layout of `boot check`, then the error line.
    std::fputs(findings_text(e.findings()).c_str(), stderr);
    // One line per problem: a message listing several targets has one line each.
    for (const auto& line : split(e.what(), '\n')) std::fprintf(stderr, "piprov: error: %s\n", line.c_str());
    return e.code();
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "piprov: error: internal: %s (please report this)\n", e.what());
    return static_cast<int>(ErrorKind::Io);
  }
  return exit_code;
}
}  // namespace

// Anything run_main does not map (e.g. a kCommands entry whose name is wrong, spdlog
// setup) still ends with one line and exit code 3, never std::terminate.
int main(int argc, char** argv) {
  try {
    return run_main(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "piprov: error: internal: %s (please report this)\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "piprov: error: internal: unknown exception (please report this)\n");
  }
  return static_cast<int>(piprov::ErrorKind::Io);
}
