// eeprom check: the rules about the config's sections (check_sections.hpp).
#include "eeprom/check_sections.hpp"

#include <fmt/format.h>
#include <map>

namespace piprov::eeprom::detail {
namespace {
constexpr const char* kSectionsPropertiesDoc =
    "Raspberry Pi documentation, eeprom-bootloader: configuration properties";
}  // namespace

std::string gpio_pin(const Section& s) { return s.text.substr(4, s.text.find('=') - 4); }

// section-never-applies: one info per header under a model filter that cannot match the board.
void rule_section_never_applies(const Config& cfg, Board board, Findings& f) {
  std::map<int, int> counts;  // header line -> settings under it
  std::map<int, const Section*> headers;
  for (const auto& l : cfg.lines) {
    const Section* s = cfg.section_of(l);
    if (l.kind != LineKind::Setting || !s || s->never_on_board.empty()) continue;
    ++counts[s->line];
    headers[s->line] = s;
  }
  for (const auto& [line, n] : counts) {
    const Section& s = *headers[line];
    f.push_back({"section-never-applies", Severity::Info, line, "",
                 fmt::format("[{}] never applies on a {}{}: its {} setting(s) are not used on this board", s.text,
                             board_title(board),
                             s.text == s.never_on_board ? "" : fmt::format(" (under [{}])", s.never_on_board), n),
                 "nothing to do if the config is shared with other boards; pass --board for the board it is for",
                 "Raspberry Pi documentation, config_txt: conditional filters (model filters)"});
  }
}

// gpio-filter-no-such-gpio: one warning per [gpioN=v] header whose N the board does not have
// (gpio_count): the GPIO cannot read v, so the settings under it are not what the user meant.
// Headers under a model filter that never matches the board are section-never-applies'.
void rule_gpio_filter_range(const Config& cfg, Board board, Findings& f) {
  for (const auto& s : cfg.sections) {
    if (s.kind != SectionKind::Gpio || !s.never_on_board.empty() || std::stoi(gpio_pin(s)) < gpio_count(board))
      continue;
    f.push_back({"gpio-filter-no-such-gpio", Severity::Warning, s.line, "",
                 fmt::format("[{}] names GPIO {}, which a {} does not have (its GPIOs are 0-{}{}): no pin decides "
                             "whether the settings under it apply",
                             s.text, gpio_pin(s), board_title(board), gpio_count(board) - 1,
                             is_bcm2712(board) ? ", the 40-pin header" : ""),
                 fmt::format("use the number of the GPIO wired to your switch (0-{}), or pass --board for the board "
                             "the config is for",
                             gpio_count(board) - 1),
                 fmt::format("Raspberry Pi documentation, config_txt: conditional filters (the GPIO filter); {}",
                             is_bcm2712(board) ? "RP1 Peripherals: GPIO bank 0" : "BCM2711 ARM Peripherals: GPIO")});
  }
}

// section-none-ignored: one finding per [none] header with settings under it.
void rule_section_none_ignored(const Config& cfg, Findings& f) {
  std::map<int, int> counts;  // [none] header line -> settings under it
  for (const auto& l : cfg.lines) {
    const Section* s = cfg.section_of(l);
    if (l.kind == LineKind::Setting && s && s->kind == SectionKind::None) ++counts[s->line];
  }
  for (const auto& [line, n] : counts)
    f.push_back({"section-none-ignored", Severity::Info, line, "",
                 fmt::format("{} setting(s) under [none] are never applied (release images park FREEZE_VERSION=0 "
                             "there)",
                             n),
                 "move a setting under [all] if you want it to take effect", kSectionsPropertiesDoc});
}

}  // namespace piprov::eeprom::detail
