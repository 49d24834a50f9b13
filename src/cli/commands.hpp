#pragma once
// The commands of piprov. Each cmd_*.cpp defines one function that adds its
// subcommand (options, help and callback) to the CLI11 app; main.cpp lists
// them all in one table, kCommands. cli/ only wires and prints.
#include <CLI/CLI.hpp>

namespace piprov::cli {

/// Options every command can read after parsing.
struct Globals {
  int verbosity = 0;  ///< -v count: 0 warn, 1 info, 2 debug, 3 trace
  bool quiet = false;
};

/// Adds one subcommand to `app`. Its callback reports failure by throwing
/// piprov::Error, or sets `exit_code` (e.g. 1 for findings).
using AddCommandFn = void (*)(CLI::App& app, Globals& globals, int& exit_code);

void add_devices_command(CLI::App& app, Globals& globals, int& exit_code);
void add_write_command(CLI::App& app, Globals& globals, int& exit_code);
void add_verify_command(CLI::App& app, Globals& globals, int& exit_code);
void add_backup_command(CLI::App& app, Globals& globals, int& exit_code);
void add_clone_command(CLI::App& app, Globals& globals, int& exit_code);
void add_boot_command(CLI::App& app, Globals& globals, int& exit_code);
void add_provision_command(CLI::App& app, Globals& globals, int& exit_code);
void add_seed_command(CLI::App& app, Globals& globals, int& exit_code);
void add_eeprom_command(CLI::App& app, Globals& globals, int& exit_code);
void add_bench_command(CLI::App& app, Globals& globals, int& exit_code);
void add_report_command(CLI::App& app, Globals& globals, int& exit_code);

}  // namespace piprov::cli
