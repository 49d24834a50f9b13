#pragma once
// Internal to eeprom check (check.cpp): the rules about the config's sections as the board sees
// them (Raspberry Pi documentation, config_txt: conditional filters). Rule ids: docs/eeprom.md.
#include <string>

#include "core/finding.hpp"
#include "eeprom/board.hpp"
#include "eeprom/config.hpp"

namespace piprov::eeprom::detail {

/// "21" for a [gpio21=1] section (SectionKind::Gpio).
std::string gpio_pin(const Section& s);

/// section-never-applies: one info per header under a model filter that cannot match `board`
/// (apply_board() has run).
void rule_section_never_applies(const Config& cfg, Board board, Findings& f);

/// gpio-filter-no-such-gpio: one warning per [gpioN=v] header whose N `board` does not have
/// (gpio_count()); headers under a model filter that never matches the board are left to
/// section-never-applies.
void rule_gpio_filter_range(const Config& cfg, Board board, Findings& f);

/// section-none-ignored: one info per [none] header with settings under it.
void rule_section_none_ignored(const Config& cfg, Findings& f);

}  // namespace piprov::eeprom::detail
