// The YAML side of the seed check, shared by seed_check.cpp (user-data,
// meta-data) and seed_network.cpp (network-config) through
// seed_check_detail.hpp: loading a file as cloud-init's PyYAML would (UTF-8
// only, YAML 1.1 notes), findings naming file and line, template markers.
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <regex>

#include "core/strings.hpp"
#include "provision/seed/seed_check_detail.hpp"
#include "provision/seed/yaml_json.hpp"

namespace piprov::provision {
namespace {

constexpr const char* kSrcYaml11 =
    "YAML 1.1 timestamp type (PyYAML, cloud-init's reader): https://yaml.org/type/timestamp.html";
constexpr const char* kSrcUtf8 =
    "cloud-init decodes seed files as UTF-8 (cloudinit/util.py decode_binary) and its YAML reader PyYAML refuses "
    "other bytes (\"unacceptable character ... position N\"): https://pyyaml.org/wiki/PyYAMLDocumentation";

}  // namespace

Finding seed_finding(const std::string& rule, Severity sev, int line, const std::string& key, const std::string& file,
                     const std::string& message, const std::string& fix, const std::string& source) {
  return {rule, sev, line, key, file + ": " + message, fix, source};
}

int seed_line(const YamlDoc& doc, std::string path) {
  while (true) {
    if (auto it = doc.lines.find(path); it != doc.lines.end()) return it->second;
    if (path.empty()) return 0;
    auto dot = path.rfind('.');
    path = dot == std::string::npos ? "" : path.substr(0, dot);
  }
}

std::string template_marker(const std::string& s) {
  static const std::regex whole("^<[A-Za-z][A-Za-z0-9 _.-]*>$");
  static const std::regex inside(
      "\\$\\{[A-Za-z_][A-Za-z0-9_]*(:?[-=?+][^}]*)?\\}"
      "|\\{\\{-?\\s*[A-Za-z_][A-Za-z0-9_.]*\\s*-?\\}\\}"
      "|<[A-Z][A-Z0-9]*(_[A-Z0-9]+)+>"
      "|%\\{[^}]*\\}");
  std::smatch m;
  if (std::regex_match(s, whole)) return s;
  if (std::regex_search(s, m, inside)) return m.str();
  return "";
}

namespace {

bool sc_shell_subtree(const std::string& path) {
  static const std::regex skip(
      "^(runcmd|bootcmd|ansible|chef|puppet|salt_minion|phone_home|snap\\.commands|write_files\\.[0-9]+\\.content)"
      "(\\..*)?$");
  return std::regex_match(path, skip);
}

void sc_markers(const nlohmann::json& j, const std::string& path, const YamlDoc& doc, const std::string& file,
                Findings& out) {
  if (sc_shell_subtree(path)) return;
  auto report = [&](const std::string& at, const std::string& marker) {
    int line = seed_line(doc, at);
    out.push_back(seed_finding("seed-template-marker", Severity::Error, line, at, file,
                               "line " + std::to_string(line) + " still holds the template marker '" + marker +
                                   "' (an unfilled template value)",
                               "replace it with the real value or remove the entry", ""));
  };
  if (j.is_object()) {
    for (const auto& [k, v] : j.items()) {
      std::string child = join_path(path, k);
      if (sc_shell_subtree(child)) continue;
      if (auto m = template_marker(k); !m.empty()) report(child, m);
      sc_markers(v, child, doc, file, out);
    }
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i) sc_markers(j[i], join_path(path, std::to_string(i)), doc, file, out);
  } else if (j.is_string()) {
    if (auto m = template_marker(j.get<std::string>()); !m.empty()) report(path, m);
  }
}

}  // namespace

void seed_scan_markers(const YamlDoc& doc, const std::string& file, Findings& out) {
  sc_markers(doc.value, "", doc, file, out);
}

void seed_scan_raw_markers(std::string_view text, const std::string& file, Findings& out) {
  static const std::regex token("[\"']?(<[A-Za-z][A-Za-z0-9 _.-]*>)[\"']?");
  static const std::regex key_re("^\\s*-?\\s*[\"']?([^:#\"']+)[\"']?\\s*:");
  int number = 0;
  for (const auto& raw : split(std::string(text), '\n')) {
    ++number;
    std::string line(trim(raw));
    if (line.empty() || line[0] == '#') continue;
    std::string marker = template_marker(line);
    std::smatch m;
    if (marker.empty() && std::regex_search(line, m, token) &&
        (m.str(0).front() == '"' || m.str(0).front() == '\'' || line == m.str(0) ||
         line.find(": " + m.str(0)) != std::string::npos))
      marker = m.str(1);
    if (marker.empty()) continue;
    std::string key = std::regex_search(raw, m, key_re) ? std::string(trim(m.str(1))) : "";
    out.push_back(seed_finding("seed-template-marker", Severity::Error, number, key, file,
                               "line " + std::to_string(number) + " still holds the template marker '" + marker +
                                   "' (an unfilled template value)",
                               "replace it with the real value or remove the entry", ""));
  }
}

namespace {

/// A '{' or '[' of a flow collection and where it is (1-based line and column; byte `index`).
struct SeedFlowOpen {
  char bracket = 0;
  int line = 0, column = 0;
  std::size_t index = 0;
};

/// What of a text is never closed: a quoted scalar that runs to the end of the text (`quote`
/// true, open.bracket the quote character '"' or '\''), else the innermost flow collection and
/// what ends it instead: the closing bracket of the other kind (`closer`, at
/// closer_line/closer_column) or the end of the text (closer 0). `outer`: the outermost flow
/// collection open there (the one PyYAML's parser is inside).
struct SeedFlowUnclosed {
  SeedFlowOpen open, outer;
  bool quote = false;
  char closer = 0;
  int closer_line = 0, closer_column = 0;
};

/// True when a '{' or '[' after `prev` (the character just before it) and `last` (the last
/// non-blank character before it on its line, 0 at the line's start) begins a flow collection in
/// block context: only a node's first character
/// does ("key: [a]", "- {a: 1}"); inside a plain scalar ("key: foo[1]") it is text (YAML 1.1
/// section 9.1.3, plain scalars).
bool seed_block_flow_start(char prev, char last) {
  return (prev == ' ' || prev == '\t' || prev == '\n') && (last == 0 || last == ':' || last == '-' || last == '?');
}

/// The quoted scalar of `text` that is never closed, else the innermost flow collection that is
/// never closed, outside quotes and comments; std::nullopt when every one is closed. A quoted
/// scalar starts only where a node does (after ": ", "- ", "? ", a flow '[', '{' or ',', or at a
/// line's start) and may span lines (YAML 1.1 sections 9.1.1-9.1.2: "abc\n  def" is one scalar);
/// PyYAML's scanner reads one left open to the end of the stream ("while scanning a quoted scalar
/// ... found unexpected end of stream") before its parser misses any bracket. A closing bracket of
/// the other kind ends the innermost open collection there, as PyYAML's parser does ("while
/// parsing a flow sequence ... expected ',' or ']', but got '}'"); a closing bracket with none
/// open is left to the parser's own message.
std::optional<SeedFlowUnclosed> seed_unclosed_flow(std::string_view text) {
  std::vector<SeedFlowOpen> open;
  int line = 1, column = 0;
  char quote = 0;
  SeedFlowOpen quote_at;
  bool comment = false, escaped = false, single_closed = false;  // single_closed: a '...' ended at prev
  char prev = '\n', last = 0;
  std::string word;  // the non-blank run last read outside quotes and comments
  bool word_ended = true;
  long indent = 0, block_indent = -1;  // this line's indentation; a block scalar's parent's
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (prev == '\n' && !quote) {
      // A block scalar ("key: |", "- >-") holds every following line that is blank or indented
      // more than its parent's line (YAML 1.1 section 9.2): its quotes and brackets are text.
      const std::size_t eol = std::min(text.find('\n', i), text.size());
      const std::size_t first = text.find_first_not_of(' ', i);
      indent = static_cast<long>(std::min(first, eol) - i);
      const bool blank = text.substr(i, eol - i).find_first_not_of(" \t\r") == std::string_view::npos;
      if (block_indent >= 0 && (blank || indent > block_indent)) {
        i = eol, ++line;
        continue;
      }
      block_indent = -1;
    }
    ++column;
    if (c == '\n') {
      static const std::regex block_re("[|>][0-9+-]*");
      if (!quote && open.empty() && std::regex_match(word, block_re)) block_indent = indent;
      ++line, column = 0, comment = false, prev = c, last = 0, single_closed = false, word.clear();
      word_ended = true;
      escaped = false;  // "...\<newline>": an escaped line break, the scalar goes on
      continue;
    }
    if (comment) continue;
    if (c == ' ' || c == '\t' || c == '\r') {
      word_ended = true;
    } else if (!quote && !(c == '#' && (prev == ' ' || prev == '\t' || prev == '\n'))) {
      if (word_ended) word.clear();
      word += c, word_ended = false;
    }
    const bool reopen = single_closed && c == '\'';  // '' inside '...' is one quote (YAML 1.1 section 9.1.2)
    single_closed = false;
    if (quote) {
      if (escaped) {
        escaped = false;
      } else if (quote == '"' && c == '\\') {
        escaped = true;
      } else if (c == quote) {
        single_closed = quote == '\'';
        quote = 0;
      }
    } else if (reopen) {
      quote = c;
    } else if ((c == '"' || c == '\'') &&
               (prev == ' ' || prev == '\t' || prev == '\n' || prev == '{' || prev == '[' || prev == ',' ||
                prev == ':') &&
               (last == 0 || last == ':' || last == '-' || last == '?' || last == '[' || last == '{' ||
                (last == ',' && !open.empty()))) {
      quote = c, quote_at = {c, line, column, i};
    } else if (c == '#' && (prev == ' ' || prev == '\t' || prev == '\n')) {
      comment = true;
    } else if ((c == '{' || c == '[') && (!open.empty() || seed_block_flow_start(prev, last))) {
      open.push_back({c, line, column, i});
    } else if ((c == '}' || c == ']') && !open.empty()) {
      if ((c == '}') != (open.back().bracket == '{'))
        return SeedFlowUnclosed{open.back(), open.front(), false, c, line, column};
      open.pop_back();
    }
    if (c != ' ' && c != '\t') last = c;
    prev = c;
  }
  if (quote) return SeedFlowUnclosed{quote_at, quote_at, true, 0, 0, 0};
  if (open.empty()) return std::nullopt;
  return SeedFlowUnclosed{open.back(), open.front(), false, 0, 0, 0};
}

/// seed-yaml-invalid for the quoted scalar opened by `q` (its quote character in q.bracket) and
/// never closed. PyYAML's scanner reports it where it starts: "while scanning a quoted scalar /
/// in "f", line 4, column 19 / found unexpected end of stream"; yaml-cpp names a later symptom
/// (an unclosed bracket, "end of map flow not found", at the end of the file) or, at block level,
/// takes the rest of the file as the scalar: its words are left out.
Finding seed_unclosed_quote(const SeedFlowOpen& q, std::string_view text, const std::string& file) {
  static const std::regex quote_key_re("^\\s*-?\\s*[\"']?([^:#\"']+)[\"']?\\s*:");
  const auto lines = split(std::string(text), '\n');
  std::smatch qm;
  const std::string& l = lines[static_cast<std::size_t>(q.line - 1)];
  const std::string shown = q.bracket == '"' ? "'\"'" : "\"'\"";
  const std::string at = "line " + std::to_string(q.line) + ", column " + std::to_string(q.column);
  return seed_finding("seed-yaml-invalid", Severity::Error, q.line,
                      std::regex_search(l, qm, quote_key_re) ? std::string(trim(qm.str(1))) : "", file,
                      "is not valid YAML: the quoted scalar " + shown + " that starts at " + at +
                          " is never closed (PyYAML: while scanning a quoted scalar, found unexpected end of stream)",
                      "close the quote: end the value that starts at " + at + " with " + shown,
                      "YAML 1.1 sections 9.1.1-9.1.2, quoted scalars (cloud-init reads seeds with PyYAML): "
                      "https://yaml.org/spec/1.1/");
}

}  // namespace

Finding seed_yaml_invalid(const YAML::Exception& e, std::string_view text, const std::string& file) {
  int line = e.mark.line + 1;
  auto lines = split(std::string(text), '\n');
  static const std::regex key_re("^\\s*-?\\s*[\"']?([^:#\"']+)[\"']?\\s*:");
  // A tab in a line's indentation at or before the error: YAML indents with spaces only (YAML
  // 1.1 section 4.2.2); PyYAML, which cloud-init uses, names it: "found character '\t' that
  // cannot start any token". yaml-cpp reports a later symptom ("illegal map value"): name the tab.
  for (std::size_t i = 0; i < lines.size() && static_cast<int>(i) < line; ++i) {
    const std::string& l = lines[i];
    const std::size_t indent = l.find_first_not_of(" \t");
    const std::size_t tab = l.find('\t');
    if (tab == std::string::npos || (indent != std::string::npos && tab > indent)) continue;
    const std::string where = "line " + std::to_string(i + 1) + ", column " + std::to_string(tab + 1);
    std::smatch tm;
    const std::string tab_key = std::regex_search(l, tm, key_re) ? std::string(trim(tm.str(1))) : "";
    return seed_finding("seed-yaml-invalid", Severity::Error, static_cast<int>(i + 1), tab_key, file,
                        "is not valid YAML (" + where +
                            ": found character '\\t' that cannot start any token: a tab in the indentation)",
                        "indent line " + std::to_string(i + 1) + " with spaces, not a tab",
                        "YAML 1.1 section 4.2.2, indentation spaces (cloud-init reads seeds with PyYAML): "
                        "https://yaml.org/spec/1.1/");
  }
  // An unclosed flow collection ("end of map flow not found" at the end of the file, "illegal
  // flow end" at a bracket of the other kind): PyYAML names the collection where it began
  // ("while parsing a flow sequence ... line 2, column 44") and the token it got instead ("expected
  // ',' or ']', but got '<scalar>' ... line 3, column 5"), which is where to fix it. yaml-cpp's
  // own place (often past the file's last line) is left out.
  const auto un = seed_unclosed_flow(text);
  if (un && un->quote) return seed_unclosed_quote(un->open, text, file);
  const auto py = un ? pyyaml_flow_error(text, un->outer.index) : std::nullopt;
  if (un && (py || e.msg.find("flow") != std::string::npos)) {  // yaml-cpp: also "illegal block entry"
    SeedFlowOpen open = un->open;
    if (py && !py->node) open = {py->sequence ? '[' : '{', py->line, py->column, 0};
    const bool map = open.bracket == '{';
    const char close = map ? '}' : ']';
    const std::string what = map ? "flow mapping" : "flow sequence";
    const std::string at = "line " + std::to_string(open.line) + ", column " + std::to_string(open.column);
    std::string quoted;  // PyYAML's words, when the replay found them
    if (py) {
      const std::string where = py->got == "<stream end>"
                                    ? std::string("at the end of the file")
                                    : fmt::format("at line {}, column {}", py->got_line, py->got_column);
      quoted = py->node ? fmt::format(
                              " (PyYAML: while parsing a flow node, expected the node content, but found "
                              "'{}' {})",
                              py->got, where)
                        : fmt::format(" (PyYAML: while parsing a {}, expected ',' or '{}', but got '{}' {})", what,
                                      close, py->got, where);
    }
    const bool bracket = py && !py->node && (py->got == "]" || py->got == "}");
    std::smatch fm;
    const std::string& l = lines[static_cast<std::size_t>(open.line - 1)];
    return seed_finding(
        "seed-yaml-invalid", Severity::Error, open.line,
        std::regex_search(l, fm, key_re) ? std::string(trim(fm.str(1))) : "", file,
        "is not valid YAML: the " + what + " '" + open.bracket + "' that starts at " + at + " is never closed" + quoted,
        bracket
            ? fmt::format("close it with '{}' before the '{}' at line {}, column {} (or quote a value "
                          "holding {{, }}, [ or ])",
                          close, py->got, py->got_line, py->got_column)
            : fmt::format("close it with '{}' after its last entry (or quote a value holding {{, }}, [ or ])", close),
        "YAML 1.1 section 7.4, flow collections (cloud-init reads seeds with PyYAML): https://yaml.org/spec/1.1/");
  }
  // yaml-cpp's place, unless it lies past the file's last line (an error at the end of the file).
  const auto text_lines =
      static_cast<int>(std::count(text.begin(), text.end(), '\n')) + (!text.empty() && text.back() != '\n' ? 1 : 0);
  const std::string place = line > text_lines
                                ? std::string("the end of the file")
                                : "line " + std::to_string(line) + ", column " + std::to_string(e.mark.column + 1);
  std::string key;
  std::smatch m;
  if (line >= 1 && static_cast<std::size_t>(line) <= lines.size() && std::regex_search(lines[line - 1], m, key_re))
    key = std::string(trim(m.str(1)));
  return seed_finding("seed-yaml-invalid", Severity::Error, std::min(line, std::max(text_lines, 1)), key, file,
                      "is not valid YAML (" + (line > text_lines ? "at " + place : place) + ": " + e.msg + ")",
                      "fix the YAML at " + place + " (quote values holding {, }, [, ], : or #)",
                      "YAML 1.1 (cloud-init reads seeds with PyYAML): https://yaml.org/spec/1.1/");
}

std::optional<Finding> seed_not_utf8(std::string_view text, const std::string& file) {
  const std::size_t at = utf8_invalid_at(text);
  if (at == std::string_view::npos) return std::nullopt;
  const auto before = text.substr(0, at);
  const int line = static_cast<int>(std::count(before.begin(), before.end(), '\n')) + 1;
  return seed_finding(
      "seed-not-utf8", Severity::Error, line, "", file,
      fmt::format("is not UTF-8 at line {}, byte {}: cloud-init reads seeds as UTF-8; save the file as UTF-8", line,
                  at),
      fmt::format("byte {} is 0x{:02X}: convert the file, e.g. iconv -f ISO-8859-1 -t UTF-8 {} > {}.utf8 when it "
                  "was saved as Latin-1",
                  at, static_cast<unsigned char>(text[at]), shell_quote(file), shell_quote(file)),
      kSrcUtf8);
}

std::optional<YAML::Node> seed_load(std::string_view text, const std::string& file, Findings& out) {
  if (auto f = seed_not_utf8(text, file)) {  // yaml-cpp takes any bytes; PyYAML refuses the file
    out.push_back(std::move(*f));
    return std::nullopt;
  }
  try {
    YAML::Node node = YAML::Load(std::string(text));
    // yaml-cpp takes an unclosed quoted scalar at block level to the end of the file; PyYAML
    // refuses the file, so cloud-init would ignore it.
    if (auto un = seed_unclosed_flow(text); un && un->quote) {
      out.push_back(seed_unclosed_quote(un->open, text, file));
      return std::nullopt;
    }
    return node;
  } catch (const YAML::Exception& e) {
    out.push_back(seed_yaml_invalid(e, text, file));
    seed_scan_raw_markers(text, file, out);
    return std::nullopt;
  }
}

std::optional<YamlDoc> seed_load_map(std::string_view text, const std::string& file, const SeedNotAMap& words,
                                     Findings& out, bool& empty) {
  empty = false;
  auto loaded = seed_load(text, file, out);
  if (!loaded) return std::nullopt;
  const YAML::Node& root = *loaded;
  if (root.IsNull()) {
    empty = true;
    return std::nullopt;
  }
  if (!root.IsMap()) {
    out.push_back(seed_finding("seed-not-a-map", Severity::Error, root.Mark().line + 1, "", file, words.message,
                               words.fix, words.source));
    return std::nullopt;
  }
  YamlDoc doc = yaml_to_json(root);
  seed_yaml_notes(doc, file, out);
  return doc;
}

void seed_yaml_notes(const YamlDoc& doc, const std::string& file, Findings& out) {
  for (const auto& p : doc.dates)
    out.push_back(seed_finding("seed-yaml-date", Severity::Error, seed_line(doc, p), p, file,
                               "'" + p + "' is read as a date by cloud-init's YAML 1.1 reader, not as a string",
                               "quote the value", kSrcYaml11));
  for (const auto& p : doc.duplicate_keys)
    out.push_back(seed_finding("seed-yaml-duplicate-key", Severity::Warning, seed_line(doc, p), p, file,
                               "'" + p + "' is given twice: cloud-init keeps the last one", "keep one of them",
                               "PyYAML SafeLoader (cloud-init's YAML reader)"));
}

}  // namespace piprov::provision
