#include "eeprom/board.hpp"

#include <string>

#include "core/strings.hpp"

namespace piprov::eeprom {

std::optional<Board> parse_board(std::string_view name) {
  const std::string n = to_lower(name);
  if (n == "pi4") return Board::Pi4;
  if (n == "pi400") return Board::Pi400;
  if (n == "cm4") return Board::Cm4;
  if (n == "pi5") return Board::Pi5;
  return std::nullopt;
}

std::string_view board_name(Board b) {
  switch (b) {
    case Board::Pi4: return "pi4";
    case Board::Pi400: return "pi400";
    case Board::Cm4: return "cm4";
    case Board::Pi5: return "pi5";
  }
  return "pi4";
}

std::string_view board_title(Board b) {
  switch (b) {
    case Board::Pi4: return "Raspberry Pi 4B";
    case Board::Pi400: return "Raspberry Pi 400";
    case Board::Cm4: return "Compute Module 4";
    case Board::Pi5: return "Raspberry Pi 5";
  }
  return "Raspberry Pi 4B";
}

bool is_bcm2712(Board b) { return b == Board::Pi5; }

std::uint32_t default_boot_order(Board b) {
  switch (b) {
    case Board::Cm4: return 0xf641;
    case Board::Pi5: return 0xf461;
    default: return 0xf41;
  }
}

bool board_has_mode(Board b, int nibble) {
  if (nibble == 5) return b != Board::Pi5;
  if (nibble == 6) return b == Board::Cm4 || b == Board::Pi5;
  return true;
}

}  // namespace piprov::eeprom

#include "eeprom/finding.hpp"

namespace piprov::eeprom {
std::string_view severity_name(Severity s) {
  switch (s) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Info: return "info";
  }
  return "info";
}
}  // namespace piprov::eeprom
