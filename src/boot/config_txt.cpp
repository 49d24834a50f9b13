#include "boot/config_txt.hpp"

#include "core/board.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include "core/error.hpp"
#include "core/strings.hpp"

namespace piprov::boot {
namespace {

bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

bool iequals(std::string_view a, std::string_view b) { return to_lower(a) == to_lower(b); }

// Keys that accumulate instead of last-wins (config_txt docs: dtoverlay/dtparam).
bool accumulates(std::string_view key) {
  return key == "dtoverlay" || key == "dtparam" || key == "include" || key == "initramfs";
}

bool is_directive_word(std::string_view w) { return w == "include" || w == "initramfs"; }

// The filter's type: filters of the same type replace each other.
std::string filter_type(const std::string& f) {
  if (is_model_filter(f)) return "model";
  if (f.rfind("0x", 0) == 0) return "serial";
  auto cut = f.find_first_of("=:");
  return cut == std::string::npos ? f : f.substr(0, cut);
}

/// A filter type whose truth depends on the board at boot time, not its model: [gpioN=v], [0xSERIAL],
/// [EDID=...], [tryboot] (Board::conditions_hold).
bool is_condition_type(const std::string& type) {
  return type == "serial" || type == "edid" || type == "tryboot" ||
         (type.size() > 4 && type.rfind("gpio", 0) == 0 &&
          std::all_of(type.begin() + 4, type.end(), [](unsigned char ch) { return std::isdigit(ch) != 0; }));
}

}  // namespace

ConfigLine classify_line(std::string text, std::string eol) {
  ConfigLine l;
  l.text = std::move(text);
  l.eol = std::move(eol);
  std::string_view t = l.text;
  std::size_t i = 0;
  while (i < t.size() && is_ws(t[i])) ++i;
  if (i == t.size()) return l;  // Blank
  if (t[i] == '#') {
    l.kind = LineKind::Comment;
    return l;
  }
  if (t[i] == '[') {
    l.kind = LineKind::Section;
    auto close = t.find(']', i);
    l.unterminated = close == std::string_view::npos;
    l.key = trim(t.substr(i + 1, (l.unterminated ? t.size() : close) - i - 1));
    return l;
  }
  auto eq = t.find('=', i);
  // A directive word followed by whitespace wins over a later '=' in its arguments.
  auto ws = t.find_first_of(" \t", i);
  std::string first_word(t.substr(i, (ws == std::string_view::npos ? t.size() : ws) - i));
  if (is_directive_word(first_word) && (eq == std::string_view::npos || ws < eq)) {
    l.kind = LineKind::Directive;
    l.key = first_word;
    l.value = ws == std::string_view::npos ? "" : trim(t.substr(ws));
    return l;
  }
  l.kind = LineKind::Setting;
  if (eq == std::string_view::npos) {
    l.key = trim(t.substr(i));
    return l;
  }
  l.has_equals = true;
  l.key = trim(t.substr(i, eq - i));
  l.value = trim(t.substr(eq + 1));
  l.spaced_equals = (eq > 0 && is_ws(t[eq - 1])) || (eq + 1 < t.size() && is_ws(t[eq + 1]) && t[eq + 1] != '\r');
  return l;
}

void require_text_config(std::string_view bytes, const std::string& file) {
  auto nul = bytes.find('\0');
  if (nul == std::string_view::npos) return;
  throw Error(ErrorKind::Usage,
              file + " is not a text file (a NUL byte at offset " + std::to_string(nul) +
                  "): restore it from the image, or from config.txt.piprov-orig; nothing was changed");
}

ConfigTxt ConfigTxt::parse(std::string_view bytes) {
  ConfigTxt c;
  std::size_t pos = 0;
  while (pos < bytes.size()) {
    auto nl = bytes.find('\n', pos);
    if (nl == std::string_view::npos) {
      c.lines_.push_back(classify_line(std::string(bytes.substr(pos)), ""));
      break;
    }
    std::string text(bytes.substr(pos, nl - pos));
    std::string eol = "\n";
    if (!text.empty() && text.back() == '\r') {
      text.pop_back();
      eol = "\r\n";
    }
    c.lines_.push_back(classify_line(std::move(text), std::move(eol)));
    pos = nl + 1;
  }
  return c;
}

std::string ConfigTxt::to_string() const {
  std::string out;
  for (const auto& l : lines_) out += l.text + l.eol;
  return out;
}

std::string ConfigTxt::dominant_eol() const {
  std::size_t crlf = 0, lf = 0;
  for (const auto& l : lines_) {
    if (l.eol == "\r\n")
      ++crlf;
    else if (l.eol == "\n")
      ++lf;
  }
  return crlf > lf ? "\r\n" : "\n";
}

std::vector<ConfigTxt::Block> ConfigTxt::blocks() const {
  std::vector<Block> out;
  Block cur;
  for (std::size_t i = 0; i < lines_.size(); ++i) {
    if (lines_[i].kind == LineKind::Section) {
      cur.end = i;
      out.push_back(cur);
      cur = Block{static_cast<std::ptrdiff_t>(i), i + 1, i + 1};
    }
  }
  cur.end = lines_.size();
  out.push_back(cur);
  return out;
}

std::optional<ConfigTxt::Block> ConfigTxt::last_block(std::string_view section) const {
  std::optional<Block> found;
  for (const auto& b : blocks()) {
    bool match = b.header < 0 ? section.empty() : iequals(lines_[static_cast<std::size_t>(b.header)].key, section);
    if (match) found = b;
  }
  return found;
}

void ConfigTxt::insert_line(std::size_t at, std::string text) {
  std::string eol = dominant_eol();
  if (at == lines_.size() && !lines_.empty() && lines_.back().eol.empty()) {
    // Keep "no final newline": the old last line gets a line ending, the new one none.
    lines_.back().eol = eol;
    eol = "";
  }
  lines_.insert(lines_.begin() + static_cast<std::ptrdiff_t>(at), classify_line(std::move(text), std::move(eol)));
}

void ConfigTxt::replace_text(std::size_t index, std::string text) {
  lines_[index] = classify_line(std::move(text), lines_[index].eol);
}

// Shared by set() and set_directive(): edit the last `key` line of any block
// headed [section] in place, else add `text` after the last setting of the last
// such block, else create the section.
bool ConfigTxt::upsert(std::string_view section, std::string_view key, const std::string& text, bool any_kind) {
  constexpr std::size_t none = static_cast<std::size_t>(-1);
  std::size_t last_key = none, last_setting = none;
  std::optional<Block> last;
  for (const auto& b : blocks()) {
    bool match = b.header < 0 ? section.empty() : iequals(lines_[static_cast<std::size_t>(b.header)].key, section);
    if (!match) continue;
    last = b;
    last_setting = none;
    for (std::size_t i = b.begin; i < b.end; ++i) {
      const auto& l = lines_[i];
      bool is_setting = l.kind == LineKind::Setting || l.kind == LineKind::Directive;
      if (is_setting) last_setting = i;
      if (is_setting && l.key == key && (any_kind || l.kind == LineKind::Setting)) last_key = i;
    }
  }
  if (!last) return append_section_with(section, text);
  if (last_key != none) {
    if (lines_[last_key].text == text) return false;
    replace_text(last_key, text);
    return true;
  }
  insert_line(last_setting != none ? last_setting + 1 : (last->header < 0 ? 0 : last->begin), text);
  return true;
}

bool ConfigTxt::set(std::string_view section, std::string_view key, std::string_view value) {
  return upsert(section, key, std::string(key) + "=" + std::string(value), false);
}

bool ConfigTxt::set_directive(std::string_view section, std::string_view name, std::string_view args) {
  return upsert(section, name, std::string(name) + " " + std::string(args), true);
}

bool ConfigTxt::ensure_line(std::string_view section, std::string_view key, std::string_view value) {
  std::string text = std::string(key) + "=" + std::string(value);
  auto b = last_block(section);
  if (!b) return append_section_with(section, text);
  std::optional<std::size_t> last_setting;
  for (std::size_t i = b->begin; i < b->end; ++i) {
    const auto& l = lines_[i];
    if (l.kind == LineKind::Setting && l.key == key && l.value == value) return false;
    if (l.kind == LineKind::Setting || l.kind == LineKind::Directive) last_setting = i;
  }
  insert_line(last_setting ? *last_setting + 1 : (b->header < 0 ? 0 : b->begin), text);
  return true;
}

bool ConfigTxt::append_section_with(std::string_view section, std::string_view line_text) {
  bool no_final_newline = !lines_.empty() && lines_.back().eol.empty();
  std::string eol = dominant_eol();
  if (no_final_newline) lines_.back().eol = eol;
  if (!lines_.empty() && lines_.back().kind != LineKind::Blank) lines_.push_back(classify_line("", eol));
  if (!section.empty()) lines_.push_back(classify_line("[" + std::string(section) + "]", eol));
  lines_.push_back(classify_line(std::string(line_text), no_final_newline ? "" : eol));
  return true;
}

std::size_t ConfigTxt::remove(std::string_view section, std::string_view key) {
  std::size_t removed = 0;
  auto bs = blocks();
  std::vector<bool> drop(lines_.size(), false);
  for (const auto& b : bs) {
    bool match = b.header < 0 ? section.empty() : iequals(lines_[static_cast<std::size_t>(b.header)].key, section);
    if (!match) continue;
    for (std::size_t i = b.begin; i < b.end; ++i)
      if ((lines_[i].kind == LineKind::Setting || lines_[i].kind == LineKind::Directive) && lines_[i].key == key) {
        drop[i] = true;
        ++removed;
      }
  }
  if (removed == 0) return 0;
  bool last_had_no_eol = lines_.back().eol.empty();
  std::vector<ConfigLine> kept;
  for (std::size_t i = 0; i < lines_.size(); ++i)
    if (!drop[i]) kept.push_back(std::move(lines_[i]));
  lines_ = std::move(kept);
  if (last_had_no_eol && !lines_.empty()) lines_.back().eol = "";
  return removed;
}

void ConfigTxt::walk(const Board& board, const IncludeLoader& loader, const std::string& self_name, int depth,
                     std::map<std::string, std::string>& filters,
                     const std::function<void(const ConfigLine&, const std::string&, std::size_t, const std::string&,
                                              const std::string&)>& fn) const {
  // filters[""] carries the text of the current section header (not a filter); "\x02TYPE" the
  // filter of TYPE as written (for EffectiveValue::conditions).
  auto active = [&] {
    for (const auto& [type, f] : filters) {
      if (type.empty() || type[0] == '\x01' || type[0] == '\x02') continue;  // bookkeeping entries, not filters
      if (type == "model") {
        if (!model_filter_matches(f, board.model)) return false;
      } else if (!(board.conditions_hold && is_condition_type(type))) {
        return false;  // gpio, serial, EDID, HDMI, tryboot...: unknown offline, taken as false
      }
    }
    return true;
  };
  auto conditions = [&] {
    std::string out;
    for (const auto& entry : filters) {
      const std::string& type = entry.first;
      if (type.empty() || type[0] == '\x01' || type[0] == '\x02' || !is_condition_type(type)) continue;
      if (auto w = filters.find("\x02" + type); w != filters.end()) out += "[" + w->second + "]";
    }
    return out;
  };
  for (std::size_t i = 0; i < lines_.size(); ++i) {
    const auto& l = lines_[i];
    if (l.kind == LineKind::Section) {
      std::string f = to_lower(l.key);
      if (f == "all") {
        auto includes = filters["\x01includes"];
        filters.clear();
        filters["\x01includes"] = includes;
      } else {
        filters[filter_type(f)] = f;
        filters["\x02" + filter_type(f)] = trim(l.key);
      }
      filters[""] = "[" + l.key + "]";
      continue;
    }
    if (l.kind != LineKind::Setting && l.kind != LineKind::Directive) continue;
    if (!active()) continue;
    if (l.kind == LineKind::Directive && l.key == "include") {
      // Bounded: at most 8 levels and 32 included files per query (a file including itself).
      if (!loader || depth >= 8 || filters["\x01includes"].size() >= 32) continue;
      filters["\x01includes"].push_back('x');
      auto name = l.value;
      if (auto inc = loader(name)) inc->walk(board, loader, name, depth + 1, filters, fn);
      continue;
    }
    fn(l, self_name, i + 1, filters[""], board.conditions_hold ? conditions() : std::string());
  }
}

std::optional<EffectiveValue> ConfigTxt::effective(std::string_view key, const Board& board,
                                                   const IncludeLoader& loader, const std::string& self_name) const {
  auto all = effective_all(key, board, loader, self_name);
  if (all.empty()) return std::nullopt;
  return all.back();
}

std::vector<EffectiveValue> ConfigTxt::effective_all(std::string_view key, const Board& board,
                                                     const IncludeLoader& loader, const std::string& self_name) const {
  std::vector<EffectiveValue> out;
  std::map<std::string, std::string> filters;
  walk(board, loader, self_name, 0, filters,
       [&](const ConfigLine& l, const std::string& file, std::size_t line, const std::string& section,
           const std::string& conditions) {
         if (l.key != key) return;
         // "initramfs=..." is not the directive (the firmware ignores it): not an effective value.
         if (key == "initramfs" && l.kind != LineKind::Directive) return;
         if (l.kind == LineKind::Setting && !l.has_equals) return;  // a bare key has no value
         out.push_back({l.value, file, line, section, conditions});
       });
  return out;
}

namespace {
constexpr const char* kConfigTxtDoc = "Raspberry Pi documentation, config_txt: what is config.txt";

Finding lint_finding(std::size_t n, std::string rule, std::string key, std::string message, std::string fix) {
  return {std::move(rule),    Severity::Warning, static_cast<int>(n), std::move(key),
          std::move(message), std::move(fix),    kConfigTxtDoc};
}

// bare-key, initramfs-equals, spaces-around-equals, inline-comment of one
// setting or directive. False when the line sets no value (bare-key, initramfs-equals).
bool lint_setting(const ConfigLine& l, std::size_t n, Findings& out) {
  const std::string at = "line " + std::to_string(n);
  if (l.kind == LineKind::Setting && !l.has_equals) {
    std::string fix = l.key == "boot_delay" ? "boot_delay=1" : l.key + "=VALUE";
    out.push_back(lint_finding(n, "bare-key", l.key, at + ": '" + l.key + "' has no value, the firmware ignores it",
                               "write " + fix));
    return false;
  }
  if (l.kind == LineKind::Setting && l.key == "initramfs") {
    out.push_back(
        lint_finding(n, "initramfs-equals", l.key, at + ": 'initramfs=' is not understood; the directive takes a space",
                     "write initramfs " + l.value + (l.value.find(' ') == std::string::npos ? " followkernel" : "")));
    return false;
  }
  if (l.spaced_equals)
    out.push_back(lint_finding(n, "spaces-around-equals", l.key,
                               at + ": spaces around '=' in '" + std::string(trim(l.text)) + "'",
                               "write " + l.key + "=" + l.value));
  if (auto hash = l.value.find('#'); hash != std::string::npos) {
    std::string value(trim(std::string_view(l.value).substr(0, hash)));
    out.push_back(lint_finding(
        n, "inline-comment", l.key,
        at + ": '#' after a value is not a comment, it becomes part of " + l.key + "'s value",
        "move the comment to its own line: " + l.key + (l.kind == LineKind::Directive ? " " : "=") + value));
  }
  return true;
}
}  // namespace

Findings ConfigTxt::lint() const {
  Findings out;
  std::map<std::pair<std::string, std::string>, std::size_t> seen;  // (section, key) -> first line
  std::string section = "all";
  for (std::size_t i = 0; i < lines_.size(); ++i) {
    const auto& l = lines_[i];
    const std::size_t n = i + 1;
    const std::string at = "line " + std::to_string(n);
    // A cut comment is still a comment: only settings and filters count.
    if (l.text.size() > kConfigLineLimit && l.kind != LineKind::Comment)
      out.push_back(lint_finding(
          n, "line-too-long", "",
          at + " is " + std::to_string(l.text.size()) + " characters; the firmware reads only the first 98",
          "shorten it to 98 characters or fewer"));
    if (l.kind == LineKind::Section) {
      section = to_lower(l.key);
      if (l.unterminated)
        out.push_back(
            lint_finding(n, "unterminated-section", "", at + " opens a section without ']'", "write [" + l.key + "]"));
      continue;
    }
    if (l.kind != LineKind::Setting && l.kind != LineKind::Directive) continue;
    if (!lint_setting(l, n, out) || accumulates(l.key)) continue;
    auto [it, inserted] = seen.emplace(std::make_pair(section == "" ? "all" : section, l.key), n);
    if (!inserted)
      out.push_back(lint_finding(n, "duplicate", l.key,
                                 at + ": " + l.key + " is set again in [" + section + "] (first at line " +
                                     std::to_string(it->second) + "); the later value wins",
                                 "keep one " + l.key + " line in [" + section + "]"));
  }
  return out;
}

}  // namespace piprov::boot
