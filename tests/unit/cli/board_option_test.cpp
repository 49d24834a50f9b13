// --board: one option helper for every command, one parse, one message.
#include <gtest/gtest.h>

#include <algorithm>

#include "cli/board_option.hpp"
#include "core/error.hpp"

namespace piprov::cli {
namespace {

std::optional<PiBoard> parse_args(std::vector<std::string> args) {
  CLI::App app;
  std::optional<PiBoard> board;
  add_board_option(&app, board, "the board");
  std::reverse(args.begin(), args.end());  // CLI11 takes them last first
  app.parse(args);
  return board;
}

TEST(BoardOption, ParsesEveryBoardAndLeavesItUnsetWhenAbsent) {
  EXPECT_EQ(parse_args({}), std::nullopt);
  EXPECT_EQ(parse_args({"--board", "pi4"}), PiBoard::Pi4);
  EXPECT_EQ(parse_args({"--board", "CM5"}), PiBoard::Cm5);
  EXPECT_EQ(parse_args({"--board=pi500"}), PiBoard::Pi500);
}

TEST(BoardOption, OneMessageForABadName) {
  try {
    parse_args({"--board", "pi3"});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Usage);
    EXPECT_STREQ(e.what(), "--board pi3: not a board; use one of pi4|pi400|cm4|pi5|pi500|cm5");
  }
}

TEST(BoardOption, HelpListsTheBoards) {
  CLI::App app;
  std::optional<PiBoard> board;
  add_board_option(&app, board, "the board the image is for");
  EXPECT_NE(app.help().find("pi4|pi400|cm4|pi5|pi500|cm5: the board the image is for"), std::string::npos)
      << app.help();
}

}  // namespace
}  // namespace piprov::cli
