// piprov entry point: global options, the table of commands, error -> exit code.
// Exit codes (core/error.hpp): 0 ok, 1 findings, 2 usage, 3 I/O, 4 verify,
// 130 interrupted (128 + SIGINT, as shells report it).
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <cstdio>
#include <string>
#include <string_view>

#include "cli/commands.hpp"
#include "core/cancel.hpp"
#include "core/error.hpp"
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
    {"boot", add_boot_command},            // boot patch | check | sync-kernel (cmd_boot.cpp)
    {"provision", add_provision_command},  // write + patch + check (cmd_provision.cpp)
    {"eeprom", add_eeprom_command},        // bootloader config check | explain | ... (cmd_eeprom.cpp)
    {"bench", add_bench_command},          // storage benchmark, fio import (cmd_bench.cpp)
};

void add_commands(CLI::App& app, Globals& globals, int& exit_code) {
  for (const auto& c : kCommands) {
    c.add(app, globals, exit_code);
    (void)app.get_subcommand(std::string(c.name));  // throws CLI::OptionNotFound when the entry's name is wrong
  }
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
  cli::add_commands(app, globals, exit_code);
  install_cancel_handlers();

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "piprov: error: %s (see --help)\n", e.what());
    return static_cast<int>(ErrorKind::Usage);
  } catch (const Error& e) {
    std::fflush(stdout);
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
