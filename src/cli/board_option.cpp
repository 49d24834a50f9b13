#include "cli/board_option.hpp"

#include "core/error.hpp"

namespace piprov::cli {

PiBoard parse_board_option(std::string_view name) {
  if (auto b = parse_board(name)) return *b;
  throw Error(ErrorKind::Usage,
              "--board " + std::string(name) + ": not a board; use one of " + std::string(board_choices()));
}

CLI::Option* add_board_option(CLI::App* cmd, std::optional<PiBoard>& board, std::string_view what) {
  return cmd
      ->add_option_function<std::string>(
          "--board", [&board](const std::string& s) { board = parse_board_option(s); },
          std::string(board_choices()) + ": " + std::string(what))
      ->type_name("BOARD");
}

}  // namespace piprov::cli
