#pragma once
// `--board NAME`: the one definition every command that takes a board uses
// (boot patch, boot check, provision, eeprom check/explain/set-boot-order): the same
// values (core/board.hpp), the same parse and the same message.
#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "core/board.hpp"

namespace piprov::cli {

/// The board named on the command line: parse_board(), or Error{Usage}
/// "--board NAME: not a board; use one of pi4|pi400|cm4|pi5|pi500|cm5".
PiBoard parse_board_option(std::string_view name);

/// Adds `--board BOARD` to `cmd`, bound to `board` (left nullopt when the option
/// is not given; `board` must outlive parsing: keep it in a shared_ptr). The
/// help is "pi4|pi400|cm4|pi5|pi500|cm5: " + `what`; a bad name is a usage
/// error (exit 2) while parsing, before the command runs.
CLI::Option* add_board_option(CLI::App* cmd, std::optional<PiBoard>& board, std::string_view what);

}  // namespace piprov::cli
