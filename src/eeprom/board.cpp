#include "eeprom/board.hpp"

namespace piprov::eeprom {

std::uint32_t default_boot_order(Board b) {
  switch (b) {
    case Board::Cm4: return 0xf641;
    case Board::Pi5:
    case Board::Pi500:
    case Board::Cm5: return 0xf461;
    default: return 0xf41;
  }
}

bool board_has_mode(Board b, int nibble) {
  if (nibble == 5) return !is_bcm2712(b);
  if (nibble == 6) return b == Board::Cm4 || is_bcm2712(b);
  return true;
}

int gpio_count(Board b) { return is_bcm2712(b) ? 28 : 58; }

}  // namespace piprov::eeprom
