#include "eeprom/edit.hpp"

#include "eeprom/config.hpp"

namespace piprov::eeprom {

BootOrderEdit set_boot_order(std::string_view text, std::string_view value) {
  Config cfg = parse_config(text);
  BootOrderEdit e;
  const ConfigLine* target = nullptr;
  for (const auto& l : cfg.lines) {
    if (l.kind != LineKind::Setting || l.key != "BOOT_ORDER") continue;
    const Section* s = cfg.section_of(l);
    if (!s || s->kind == SectionKind::All) target = &l;
  }
  const std::string setting = "BOOT_ORDER=" + std::string(value);
  if (target) {
    // Byte range of the target line's content (before "\r\n" / "\n").
    std::size_t start = 0;
    for (int n = 1; n < target->number; ++n) start = text.find('\n', start) + 1;
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    if (end > start && text[end - 1] == '\r') --end;
    e.old_value = target->value;
    e.line = target->number;
    e.text = std::string(text.substr(0, start)) + setting + std::string(text.substr(end));
    return e;
  }
  const bool crlf = text.find("\r\n") != std::string_view::npos;
  const std::string eol = crlf ? "\r\n" : "\n";
  e.text = std::string(text);
  int lines = static_cast<int>(cfg.lines.size());
  if (!e.text.empty() && e.text.back() != '\n') e.text += eol;
  const Section* last = cfg.lines.empty() ? nullptr : cfg.section_of(cfg.lines.back());
  if (last && last->kind != SectionKind::All) {
    e.text += "[all]" + eol;
    ++lines;
  }
  e.text += setting + eol;
  e.line = lines + 1;
  return e;
}

}  // namespace piprov::eeprom
