#pragma once
// Command registration: each cmd_*.cpp defines one static CommandRegistrar
// that adds its subcommand(s) to the CLI11 app. main.cpp needs no edit when a
// command is added. cli/ only wires and prints; the work is in the libraries.
#include <CLI/CLI.hpp>
#include <functional>

namespace piprov::cli {

/// Options every command can read after parsing.
struct Globals {
  int verbosity = 0;  ///< -v count: 0 warn, 1 info, 2 debug, 3 trace
  bool quiet = false;
};

/// Adds subcommands to `app`. A subcommand's callback returns by throwing
/// piprov::Error on failure, or sets `exit_code` (e.g. 1 for findings).
using RegisterFn = std::function<void(CLI::App& app, Globals& globals, int& exit_code)>;

/// `order` sorts commands in --help (devices 10, write 20, boot 30,
/// provision 40, eeprom 50, bench 60).
struct CommandRegistrar {
  CommandRegistrar(int order, RegisterFn fn);
};

/// Every registration in order (used by main.cpp).
void register_all(CLI::App& app, Globals& globals, int& exit_code);

}  // namespace piprov::cli
