#include "eeprom/config.hpp"

#include <fmt/format.h>
#include <cctype>

namespace piprov::eeprom {
namespace {
constexpr const char* kSyntaxSource =
    "Raspberry Pi documentation, eeprom-bootloader; config_txt syntax: one KEY=value per "
    "line, no spaces around '=', comments only at the start of a line)";

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

std::string_view rstrip(std::string_view s) {
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}
std::string_view lstrip(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  return s;
}
bool is_key_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool is_key(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!is_key_char(c)) return false;
  return true;
}
bool lower_eq(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != b[i]) return false;
  return true;
}
bool all_hex(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  return true;
}
std::string printable(std::string_view s) {
  std::string out;
  for (char c : s.substr(0, 80)) out += std::isprint(static_cast<unsigned char>(c)) ? c : '?';
  if (s.size() > 80) out += "...";
  return out;
}

// Finds a second "KEY=" token in `value` after whitespace: returns its offset or npos.
std::size_t second_key(std::string_view value) {
  for (std::size_t i = 0; i < value.size(); ++i) {
    if (!is_space(value[i])) continue;
    std::size_t j = i;
    while (j < value.size() && is_space(value[j])) ++j;
    std::size_t k = j;
    while (k < value.size() && is_key_char(value[k])) ++k;
    if (k > j && k < value.size() && value[k] == '=') return j;
    i = j;
  }
  return std::string_view::npos;
}
}  // namespace

SectionKind classify_section(std::string_view inner) {
  if (lower_eq(inner, "all")) return SectionKind::All;
  if (lower_eq(inner, "none")) return SectionKind::None;
  if (lower_eq(inner, "config.txt")) return SectionKind::ConfigTxt;
  if (inner.size() >= 5 && lower_eq(inner.substr(0, 5), "edid=")) return SectionKind::Edid;
  if (inner.size() > 2 && inner[0] == '0' && (inner[1] == 'x' || inner[1] == 'X') && inner.size() <= 18 &&
      all_hex(inner.substr(2)))
    return SectionKind::Serial;
  if (inner.size() >= 7 && lower_eq(inner.substr(0, 4), "gpio")) {
    auto eq = inner.find('=');
    if (eq != std::string_view::npos && eq > 4 && eq + 2 == inner.size() &&
        (inner[eq + 1] == '0' || inner[eq + 1] == '1')) {
      auto num = inner.substr(4, eq - 4);
      bool digits = num.size() <= 2;
      for (char c : num) digits = digits && std::isdigit(static_cast<unsigned char>(c));
      if (digits) return SectionKind::Gpio;
    }
  }
  return SectionKind::Unknown;
}

Config parse_config(std::string_view text) {
  Config cfg;
  cfg.text = std::string(text);
  bool crlf_reported = false, padding_reported = false;
  auto add = [&](std::string rule, Severity s, int line, std::string key, std::string msg, std::string fix) {
    cfg.findings.push_back({std::move(rule), s, line, std::move(key), std::move(msg), std::move(fix), kSyntaxSource});
  };

  std::size_t pos = 0;
  int number = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    std::string_view raw = nl == std::string_view::npos ? text.substr(pos) : text.substr(pos, nl - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    if (nl != std::string_view::npos) ++cfg.newline_count;
    ConfigLine line;
    line.number = ++number;
    line.section = static_cast<int>(cfg.sections.size()) - 1;
    if (!raw.empty() && raw.back() == '\r') {
      raw.remove_suffix(1);
      if (!crlf_reported) {
        add("crlf-line-endings", Severity::Info, number, "",
            "the config has Windows (CRLF) line endings; they were ignored for this check",
            "convert to LF before writing it to an EEPROM image (e.g. dos2unix)");
        crlf_reported = true;
      }
    }
    line.raw = std::string(raw);
    std::string_view t = rstrip(raw);
    std::string_view body = lstrip(t);
    if (body.empty()) {
      line.kind = LineKind::Blank;
      if (raw.size() >= 16 && !padding_reported) {
        cfg.space_padded = true;
        padding_reported = true;
        add("space-padded-format", Severity::Info, number, "",
            "space-padded lines (the 2019 bootloader config format reserved room this way); the bootloader ignores "
            "them",
            "nothing to do; they can be dropped when the config is edited");
      }
      cfg.lines.push_back(std::move(line));
      continue;
    }
    if (t.size() != raw.size())
      add("trailing-whitespace", Severity::Info, number, "",
          "trailing whitespace after the line; ignored for this check",
          "strip trailing spaces before writing the config to an EEPROM image");
    if (body.size() != t.size() && body.front() != '#')
      add("leading-whitespace", Severity::Warning, number, "",
          "the line starts with whitespace; the bootloader expects KEY=value or [section] at the start of the line",
          "remove the leading whitespace");

    if (body.front() == '#') {
      line.kind = LineKind::Comment;
    } else if (body.front() == '[') {
      if (body.back() != ']' || body.size() < 2) {
        line.kind = LineKind::Invalid;
        add("invalid-line", Severity::Error, number, "",
            fmt::format("\"{}\" is not a complete [section] header", printable(body)),
            "write the filter alone on the line, e.g. [all]");
      } else {
        line.kind = LineKind::Section;
        Section s{number, std::string(body.substr(1, body.size() - 2)), SectionKind::Unknown};
        s.kind = classify_section(s.text);
        if (s.kind == SectionKind::Edid)
          add("edid-filter-not-supported", Severity::Error, number, "",
              fmt::format("[{}] is a config.txt EDID filter; the bootloader config does not support EDID filters",
                          printable(s.text)),
              "remove the section (and its settings) or use [all]");
        else if (s.kind == SectionKind::Unknown)
          add("unknown-section", Severity::Warning, number, "",
              fmt::format("[{}] is not a bootloader config filter; settings under it are not applied",
                          printable(s.text)),
              "use [all], [none], [gpioN=0|1] or [0xSERIAL]");
        else if (s.kind == SectionKind::ConfigTxt)
          add("config-txt-section", Severity::Info, number, "",
              "[config.txt] holds config.txt properties, not bootloader settings; its keys are not checked here",
              "nothing to do");
        cfg.sections.push_back(std::move(s));
        line.section = static_cast<int>(cfg.sections.size()) - 1;
      }
    } else if (body.size() >= 7 && lower_eq(body.substr(0, 7), "include") && (body.size() == 7 || is_space(body[7]))) {
      line.kind = LineKind::Include;
      add("include-not-supported", Severity::Error, number, "",
          "include is config.txt syntax; the bootloader config cannot include other files",
          "paste the settings themselves into the config");
    } else if (auto eq = body.find('='); eq == std::string_view::npos) {
      line.kind = LineKind::Invalid;
      add("invalid-line", Severity::Error, number, "",
          fmt::format("\"{}\" is neither KEY=value, a [section] nor a # comment", printable(body)),
          "write KEY=value, or start the line with # to make it a comment");
    } else {
      std::string_view key = body.substr(0, eq), value = body.substr(eq + 1);
      std::string_view tkey = rstrip(key), tvalue = lstrip(value);
      if (!is_key(tkey)) {
        line.kind = LineKind::Invalid;
        add("invalid-line", Severity::Error, number, "",
            fmt::format("\"{}\" is not a valid key (letters, digits and _ only)", printable(tkey)),
            "write KEY=value with the key alone before '='");
        cfg.lines.push_back(std::move(line));
        continue;
      }
      line.kind = LineKind::Setting;
      line.key = std::string(tkey);
      const bool spaced = tkey.size() != key.size() || tvalue.size() != value.size();
      const std::string_view written = tvalue;
      std::size_t hash = std::string_view::npos;
      for (std::size_t i = 0; i < tvalue.size(); ++i)
        if (tvalue[i] == '#' && (i == 0 || is_space(tvalue[i - 1]))) {
          hash = i;
          break;
        }
      if (spaced)
        add("space-around-equals", Severity::Error, number, line.key,
            fmt::format("spaces around '=' in \"{}\": the bootloader does not ignore them", printable(body)),
            fmt::format("write {}={}", line.key,
                        printable(rstrip(hash == std::string_view::npos ? written : written.substr(0, hash)))));
      if (hash != std::string_view::npos) {
        add("inline-comment", Severity::Error, number, line.key,
            fmt::format("inline comment after {}=: the bootloader takes the rest of the line as the value", line.key),
            "move the comment to a line of its own starting with #");
        tvalue = rstrip(tvalue.substr(0, hash));
      }
      if (auto k2 = second_key(tvalue); k2 != std::string_view::npos) {
        add("multiple-keys-on-line", Severity::Error, number, line.key,
            fmt::format("several settings on one line (\"{}\"); the bootloader reads one KEY=value per line",
                        printable(body)),
            "put each KEY=value on a line of its own");
        tvalue = rstrip(tvalue.substr(0, k2));
      }
      line.value = std::string(tvalue);
    }
    cfg.lines.push_back(std::move(line));
  }
  return cfg;
}

}  // namespace piprov::eeprom
