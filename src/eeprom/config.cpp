#include "eeprom/config.hpp"

#include "core/strings.hpp"

#include <charconv>

#include <fmt/format.h>
#include <algorithm>
#include <cctype>

namespace piprov::eeprom {
namespace {
constexpr const char* kSyntaxSource =
    "Raspberry Pi documentation, eeprom-bootloader; config_txt syntax (one KEY=value per "
    "line, no spaces around '=', comments only at the start of a line)";
constexpr std::size_t kPaddingLine = 16;  ///< a whitespace-only line this long is 2019 padding

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

// Offset of an inline comment: a '#' at the start of the value or after whitespace; npos when none.
std::size_t inline_hash(std::string_view value) {
  for (std::size_t i = 0; i < value.size(); ++i)
    if (value[i] == '#' && (i == 0 || is_space(value[i - 1]))) return i;
  return std::string_view::npos;
}

bool is_include(std::string_view body) {
  return body.size() >= 7 && lower_eq(body.substr(0, 7), "include") && (body.size() == 7 || is_space(body[7]));
}

// The line without surrounding whitespace.
std::string_view body_of(const ConfigLine& l) { return lstrip(rstrip(l.raw)); }

// Fills key/value of a `KEY=value` body as the bootloader reads it: Invalid when the key is not
// one, SpacedKey when spaces come before '=' (the key read is "KEY ", no setting); otherwise the
// value is everything after '=' (body is already without trailing whitespace).
void parse_setting(ConfigLine& line, std::string_view body, std::size_t eq) {
  std::string_view key = body.substr(0, eq), value = body.substr(eq + 1);
  std::string_view tkey = rstrip(key), tvalue = lstrip(value);
  if (!is_key(tkey)) {
    line.kind = LineKind::Invalid;
    return;
  }
  line.kind = tkey.size() != key.size() ? LineKind::SpacedKey : LineKind::Setting;
  line.key = std::string(tkey);
  line.spaced_equals = tkey.size() != key.size() || tvalue.size() != value.size();
  line.value = std::string(value);
  if (auto hash = inline_hash(tvalue); hash != std::string_view::npos) {
    line.inline_comment = true;
    tvalue = rstrip(tvalue.substr(0, hash));
  }
  line.value_before_hash = std::string(tvalue);
  line.multiple_keys = second_key(tvalue) != std::string_view::npos;
}

// Classifies one line (raw: without its terminator); a section header is added to cfg.sections.
void parse_line(Config& cfg, ConfigLine& line) {
  std::string_view body = body_of(line);
  if (body.empty()) {
    line.kind = LineKind::Blank;
    if (line.raw.size() >= kPaddingLine) cfg.space_padded = true;
  } else if (body.front() == '#') {
    line.kind = LineKind::Comment;
  } else if (body.front() == '[') {
    if (body.back() != ']' || body.size() < 2) {
      line.kind = LineKind::Invalid;
      return;
    }
    line.kind = LineKind::Section;
    Section s;
    s.line = line.number;
    s.text = std::string(body.substr(1, body.size() - 2));
    s.kind = classify_section(s.text);
    s.applies = s.kind == SectionKind::All ? Applies::Always
                : (s.kind == SectionKind::Gpio || s.kind == SectionKind::Serial || s.kind == SectionKind::Partition ||
                   s.kind == SectionKind::Model)
                    ? Applies::Sometimes
                    : Applies::Never;
    if (s.kind == SectionKind::ConfigTxt && cfg.config_txt_from == 0) cfg.config_txt_from = line.number;
    cfg.sections.push_back(std::move(s));
    line.section = static_cast<int>(cfg.sections.size()) - 1;
  } else if (cfg.config_txt_from > 0) {
    line.kind = LineKind::ConfigTxt;  // config.txt syntax: `initramfs X followkernel`, `hdmi_mode:1=4`, include
  } else if (is_include(body)) {
    line.kind = LineKind::Include;
  } else if (auto eq = body.find('='); eq == std::string_view::npos) {
    line.kind = LineKind::Invalid;
  } else {
    parse_setting(line, body, eq);
  }
}

// --- syntax rules: one function per rule id (or group of ids on one construct) ---

Finding syntax(std::string rule, Severity s, const ConfigLine& l, std::string key, std::string msg, std::string fix) {
  return {std::move(rule), s, l.number, std::move(key), std::move(msg), std::move(fix), kSyntaxSource};
}

// crlf-line-endings: once, at the first CRLF line.
void rule_crlf_line_endings(const Config& cfg, Findings& f) {
  for (const auto& l : cfg.lines)
    if (l.crlf) {
      f.push_back(syntax("crlf-line-endings", Severity::Info, l, "",
                         "the config has Windows (CRLF) line endings; they were ignored for this check",
                         "convert to LF before writing it to an EEPROM image (e.g. dos2unix)"));
      return;
    }
}

// space-padded-format: once, at the first long whitespace-only line.
void rule_space_padded_format(const Config& cfg, Findings& f) {
  for (const auto& l : cfg.lines)
    if (l.kind == LineKind::Blank && l.raw.size() >= kPaddingLine) {
      f.push_back(syntax("space-padded-format", Severity::Info, l, "",
                         "space-padded lines (the 2019 bootloader config format reserved room this way); the "
                         "bootloader ignores them",
                         "nothing to do; they can be dropped when the config is edited"));
      return;
    }
}

// trailing-whitespace and leading-whitespace (a comment may be indented).
void rule_whitespace(const ConfigLine& l, Findings& f) {
  if (l.kind == LineKind::ConfigTxt) return;
  std::string_view raw = l.raw, t = rstrip(raw), body = lstrip(t);
  if (body.empty()) return;
  if (t.size() != raw.size())
    f.push_back(syntax("trailing-whitespace", Severity::Info, l, "",
                       "trailing whitespace after the line; ignored for this check",
                       "strip trailing spaces before writing the config to an EEPROM image"));
  if (body.size() != t.size() && body.front() != '#')
    f.push_back(syntax("leading-whitespace", Severity::Warning, l, "",
                       "the line starts with whitespace; the bootloader expects KEY=value or [section] at the start "
                       "of the line",
                       "remove the leading whitespace"));
}

// invalid-line: an incomplete header, no '=', or a key with other characters.
void rule_invalid_line(const ConfigLine& l, Findings& f) {
  if (l.kind != LineKind::Invalid) return;
  std::string_view body = body_of(l);
  if (body.starts_with(kUtf8Bom))
    f.push_back(syntax(
        "invalid-line", Severity::Error, l, "",
        fmt::format("the config {}: the bootloader reads those bytes as part of the line, so it "
                    "does not read it as \"{}\"",
                    utf8_bom_words(printable(body.substr(kUtf8Bom.size()))), printable(body.substr(kUtf8Bom.size()))),
        utf8_bom_fix("")));
  else if (body.front() == '[')
    f.push_back(syntax("invalid-line", Severity::Error, l, "",
                       fmt::format("\"{}\" is not a complete [section] header", printable(body)),
                       "write the filter alone on the line, e.g. [all]"));
  else if (auto eq = body.find('='); eq == std::string_view::npos)
    f.push_back(syntax("invalid-line", Severity::Error, l, "",
                       fmt::format("\"{}\" is neither KEY=value, a [section] nor a # comment", printable(body)),
                       "write KEY=value, or start the line with # to make it a comment"));
  else
    f.push_back(syntax(
        "invalid-line", Severity::Error, l, "",
        fmt::format("\"{}\" is not a valid key (letters, digits and _ only)", printable(rstrip(body.substr(0, eq)))),
        "write KEY=value with the key alone before '='"));
}

// edid-filter-not-supported, unknown-section, config-txt-section.
void rule_section_filter(const Config& cfg, const ConfigLine& l, Findings& f) {
  if (l.kind != LineKind::Section) return;
  const Section& s = *cfg.section_of(l);
  // After [config.txt] the headers are config.txt's too ([pi4], [EDID=...], [tryboot] are valid there).
  bool in_config_txt = cfg.config_txt_from > 0 && l.number > cfg.config_txt_from;
  if (in_config_txt && s.kind != SectionKind::All && !s.conditional() && s.kind != SectionKind::None) return;
  if (s.kind == SectionKind::Edid)
    f.push_back(
        syntax("edid-filter-not-supported", Severity::Error, l, "",
               fmt::format("[{}] is a config.txt EDID filter; the bootloader config does not support EDID filters",
                           printable(s.text)),
               "remove the section (and its settings) or use [all]"));
  else if (s.kind == SectionKind::Tryboot) {
    f.push_back(syntax("tryboot-section-ignored", Severity::Warning, l, "",
                       "[tryboot] is a config.txt filter; the bootloader config does not honour it, so settings "
                       "under it are never applied",
                       "move the settings under [all], or select them with [gpioN=0|1] or [partition=N]"));
    f.back().source = "rpi-eeprom issue 454";
  } else if (s.kind == SectionKind::Unknown)
    f.push_back(syntax(
        "unknown-section", Severity::Warning, l, "",
        fmt::format("[{}] is not a bootloader config filter; settings under it are not applied", printable(s.text)),
        "use [all], [none], a model filter ([pi4], [pi5], [cm4], ...), [gpioN=0|1], [partition=N] or [0xSERIAL]"));
  else if (s.kind == SectionKind::ConfigTxt)
    f.push_back(syntax("config-txt-section", Severity::Info, l, "",
                       "[config.txt] holds config.txt properties, not bootloader settings; its keys are not checked "
                       "here",
                       "nothing to do"));
}

// include-not-supported.
void rule_include_not_supported(const ConfigLine& l, Findings& f) {
  if (l.kind == LineKind::Include)
    f.push_back(syntax("include-not-supported", Severity::Error, l, "",
                       "include is config.txt syntax; the bootloader config cannot include other files",
                       "paste the settings themselves into the config"));
}

// space-around-equals, inline-comment, multiple-keys-on-line. Each says what the bootloader makes
// of the line, which is what the other rules were given (parse_setting).
void rule_setting_syntax(const ConfigLine& l, Findings& f) {
  if (l.kind != LineKind::Setting && l.kind != LineKind::SpacedKey) return;
  std::string body(printable(body_of(l)));
  const std::string meant = fmt::format("write {}={}", l.key, printable(l.value_before_hash));
  if (l.kind == LineKind::SpacedKey)
    f.push_back(syntax("space-around-equals", Severity::Error, l, l.key,
                       fmt::format("spaces before '=' in \"{}\": the bootloader does not ignore them and reads the "
                                   "key \"{} \", which is no setting, so this line sets nothing",
                                   body, l.key),
                       meant));
  else if (l.spaced_equals)
    f.push_back(syntax("space-around-equals", Severity::Error, l, l.key,
                       fmt::format("spaces after '=' in \"{}\": the bootloader does not ignore them and takes "
                                   "\"{}\" as the value",
                                   body, printable(l.value)),
                       meant));
  if (l.inline_comment)
    f.push_back(syntax("inline-comment", Severity::Error, l, l.key,
                       fmt::format("inline comment after {}=: the bootloader takes the rest of the line, \"{}\", as "
                                   "the value",
                                   l.key, printable(l.value)),
                       fmt::format("{}, and move the comment to a line of its own starting with #", meant)));
  if (l.multiple_keys)
    f.push_back(
        syntax("multiple-keys-on-line", Severity::Error, l, l.key,
               fmt::format("several settings on one line (\"{}\"); the bootloader reads one KEY=value per line and "
                           "takes \"{}\" as the value of {}",
                           body, printable(l.value), l.key),
               "put each KEY=value on a line of its own"));
}
}  // namespace

SectionKind classify_section(std::string_view inner) {
  if (lower_eq(inner, "all")) return SectionKind::All;
  if (lower_eq(inner, "none")) return SectionKind::None;
  if (lower_eq(inner, "config.txt")) return SectionKind::ConfigTxt;
  if (lower_eq(inner, "tryboot")) return SectionKind::Tryboot;
  if (is_model_filter(inner) && !lower_eq(inner, "none")) return SectionKind::Model;
  if (inner.size() > 13 && lower_eq(inner.substr(0, 13), "board-type=0x") && all_hex(inner.substr(13)))
    return SectionKind::Model;
  if (inner.size() > 10 && lower_eq(inner.substr(0, 10), "partition=") && inner.size() <= 13) {
    bool digits = true;
    for (char c : inner.substr(10)) digits = digits && std::isdigit(static_cast<unsigned char>(c));
    if (digits) return SectionKind::Partition;
  }
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

namespace {
/// Whether the model filter `text` ("pi4", "board-type=0x17") names `board`.
bool model_section_matches(std::string_view text, PiBoard board) {
  if (text.size() > 13 && lower_eq(text.substr(0, 13), "board-type=0x")) {
    unsigned code = 0;
    const auto hex = text.substr(13);
    auto [end, ec] = std::from_chars(hex.data(), hex.data() + hex.size(), code, 16);
    return ec == std::errc() && end == hex.data() + hex.size() && code == board_type_code(board);
  }
  return model_filter_matches(text, board_name(board));
}
}  // namespace

void apply_board(Config& cfg, PiBoard board) {
  std::string model;                                        // the active model filter's text, "" when none
  bool model_match = true;                                  // whether it matches `board`
  std::vector<std::pair<SectionKind, std::string>> active;  // every active filter, in order of appearance
  for (auto& s : cfg.sections) {
    switch (s.kind) {
      case SectionKind::All:
        model.clear();
        model_match = true;
        active.clear();
        break;
      case SectionKind::Model:
        model = s.text;
        model_match = model_section_matches(s.text, board);
        break;
      case SectionKind::Gpio:
      case SectionKind::Serial:
      case SectionKind::Partition: break;
      default: continue;  // [none], [tryboot], [config.txt], EDID, unknown: Never, as parsed
    }
    if (s.kind != SectionKind::All) {  // a filter replaces the one of its type
      std::erase_if(active, [&](const auto& a) { return a.first == s.kind; });
      active.emplace_back(s.kind, s.text);
    }
    const bool cond =
        std::any_of(active.begin(), active.end(), [](const auto& a) { return a.first != SectionKind::Model; });
    s.filters.clear();
    for (const auto& a : active) s.filters.push_back(a.second);
    s.never_on_board = model_match ? "" : model;
    s.applies = !model_match ? Applies::Never : !cond ? Applies::Always : Applies::Sometimes;
  }
}

Config parse_config(std::string_view text) {
  Config cfg;
  cfg.text = std::string(text);
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
      line.crlf = true;
    }
    line.raw = std::string(raw);
    parse_line(cfg, line);
    cfg.lines.push_back(std::move(line));
  }
  return cfg;
}

Findings check_syntax(const Config& cfg) {
  Findings f;
  rule_crlf_line_endings(cfg, f);
  rule_space_padded_format(cfg, f);
  for (const auto& l : cfg.lines) {
    rule_whitespace(l, f);
    rule_invalid_line(l, f);
    rule_section_filter(cfg, l, f);
    rule_include_not_supported(l, f);
    rule_setting_syntax(l, f);
  }
  std::stable_sort(f.begin(), f.end(), [](const Finding& a, const Finding& b) { return a.line < b.line; });
  return f;
}

}  // namespace piprov::eeprom
