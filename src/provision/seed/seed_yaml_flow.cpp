// What PyYAML (cloud-init's YAML reader) says about a flow collection that is not closed: its
// scanner's tokens in flow context and its parser's flow rules, replayed from the '[' or '{' that
// opens the collection, so that seed-yaml-invalid quotes PyYAML's own "expected ',' or ']', but
// got '<scalar>'" and the place of that token. Source: PyYAML 6.0 yaml/scanner.py
// (fetch_more_tokens, scan_plain, save_possible_simple_key) and yaml/parser.py
// (parse_flow_sequence_entry, parse_flow_mapping_key): https://github.com/yaml/pyyaml
#include <string>
#include <vector>

#include "provision/seed/seed_check_detail.hpp"

namespace piprov::provision {
namespace {

/// One PyYAML token: its id as PyYAML's messages name it ('<scalar>', ',', ']', '?' for a KEY,
/// ':' for a VALUE, '<stream end>'...) and its start (0-based line and column, as PyYAML's Mark).
/// id "" stands for a character PyYAML's scanner refuses or that this replay does not model.
struct PyFlowToken {
  std::string id;
  int line = 0, column = 0;
};

/// PyYAML's scanner from a flow collection's opening bracket at `start` of `text` to the end of
/// that collection (its flow level back at 0), the end of the text, or a character it refuses.
class PyFlowScanner {
 public:
  PyFlowScanner(std::string_view text, std::size_t start) : text_(text), i_(start) {
    for (std::size_t k = 0; k < start; ++k) advance_position(text_[k]);
  }

  std::vector<PyFlowToken> run() {
    while (true) {
      skip_to_token();
      // stale_possible_simple_keys: in flow context a key must see its ':' on its own line.
      for (auto& k : keys_)
        if (k.set && (k.line != line_ || i_ - k.index > 1024)) k.set = false;
      const char c = peek(0);
      if (c == '\0') return emit("<stream end>"), tokens_;
      if (column_ == 0 && (text_.substr(i_, 3) == "---" || text_.substr(i_, 3) == "...") && blank_or_end(peek(3))) {
        emit(c == '-' ? "<document start>" : "<document end>");
        return tokens_;
      }
      if (c == '[' || c == '{') {
        save_key();
        ++level_;
        keys_.resize(static_cast<std::size_t>(level_) + 1);
        allow_key_ = true;
        emit(std::string(1, c)), forward(1);
      } else if (c == ']' || c == '}') {
        drop_key();
        --level_;
        allow_key_ = false;
        emit(std::string(1, c)), forward(1);
        if (level_ == 0) return tokens_;
      } else if (c == ',' || (c == '-' && blank_or_end(peek(1)))) {
        allow_key_ = true;
        drop_key();
        emit(std::string(1, c)), forward(1);
      } else if (c == '?' || c == ':') {
        auto& k = keys_[static_cast<std::size_t>(level_)];
        if (c == ':' && k.set) {  // fetch_value: the KEY goes where the simple key began
          tokens_.insert(tokens_.begin() + static_cast<std::ptrdiff_t>(k.token), PyFlowToken{"?", k.line, k.column});
          k.set = false;
        } else {
          drop_key();
        }
        allow_key_ = false;
        emit(c == '?' ? "?" : ":"), forward(1);
      } else if (c == '*' || c == '&' || c == '!') {
        save_key();
        allow_key_ = false;
        emit(c == '*' ? "<alias>" : c == '&' ? "<anchor>" : "<tag>");
        while (!blank_or_end(peek(0)) && (c == '!' || std::string_view(",[]{}").find(peek(0)) == std::string::npos))
          forward(1);
      } else if (c == '\'' || c == '"') {
        save_key();
        allow_key_ = false;
        emit("<scalar>");
        if (!skip_quoted(c)) return emit(""), tokens_;
      } else if (std::string_view("\t\r\n-?:,[]{}#&*!|>'\"%@`").find(c) == std::string::npos ||
                 (c == '-' && !blank_or_end(peek(1)))) {
        save_key();
        allow_key_ = false;
        emit("<scalar>");
        skip_plain();
      } else {
        return emit(""), tokens_;
      }
    }
  }

 private:
  struct SimpleKey {
    bool set = false;
    std::size_t token = 0, index = 0;
    int line = 0, column = 0;
  };

  std::string_view text_;
  std::size_t i_;
  int line_ = 0, column_ = 0, level_ = 0;
  bool allow_key_ = false;
  std::vector<SimpleKey> keys_{1};
  std::vector<PyFlowToken> tokens_;

  char peek(std::size_t n) const { return i_ + n < text_.size() ? text_[i_ + n] : '\0'; }
  static bool blank_or_end(char c) { return c == '\0' || c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
  static bool line_break(char c) { return c == '\r' || c == '\n'; }
  void advance_position(char c) {
    if (c == '\n') {
      ++line_, column_ = 0;
    } else if (c != '\r' && (static_cast<unsigned char>(c) & 0xC0) != 0x80) {
      ++column_;  // PyYAML counts characters, not UTF-8 bytes
    }
  }
  void forward(std::size_t n) {
    for (; n > 0 && i_ < text_.size(); --n) advance_position(text_[i_++]);
  }
  void emit(const std::string& id) { tokens_.push_back({id, line_, column_}); }
  void save_key() {
    if (!allow_key_) return;
    keys_[static_cast<std::size_t>(level_)] = {true, tokens_.size(), i_, line_, column_};
  }
  void drop_key() { keys_[static_cast<std::size_t>(level_)].set = false; }

  /// scan_to_next_token: spaces, comments and line breaks (which, in flow context, leave
  /// allow_simple_key as it is).
  void skip_to_token() {
    while (true) {
      while (peek(0) == ' ') forward(1);
      if (peek(0) == '#')
        while (peek(0) != '\0' && !line_break(peek(0))) forward(1);
      if (!line_break(peek(0))) return;
      forward(peek(0) == '\r' && peek(1) == '\n' ? 2 : 1);
    }
  }

  /// A quoted scalar, spanning lines; false when the text ends inside it.
  bool skip_quoted(char quote) {
    forward(1);
    while (i_ < text_.size()) {
      const char c = peek(0);
      if (quote == '"' && c == '\\') {
        forward(2);
      } else if (c == quote && quote == '\'' && peek(1) == '\'') {
        forward(2);
      } else if (c == quote) {
        forward(1);
        return true;
      } else {
        forward(1);
      }
    }
    return false;
  }

  /// scan_plain in flow context: chunks up to a blank, ": ", ',', '?', a bracket; across line
  /// breaks (setting allow_simple_key) until a '#', a chunk of length 0 or a document marker.
  void skip_plain() {
    while (true) {
      if (peek(0) == '#') return;
      std::size_t n = 0;
      while (true) {
        const char ch = peek(n);
        if (blank_or_end(ch) ||
            (ch == ':' &&
             (blank_or_end(peek(n + 1)) || std::string_view(",[]{}").find(peek(n + 1)) != std::string::npos)) ||
            std::string_view(",?[]{}").find(ch) != std::string::npos)
          break;
        ++n;
      }
      if (n == 0) return;
      allow_key_ = false;
      forward(n);
      // scan_plain_spaces
      std::size_t spaces = 0;
      while (peek(0) == ' ') forward(1), ++spaces;
      if (line_break(peek(0))) {
        allow_key_ = true;
        while (peek(0) == ' ' || line_break(peek(0))) {
          if (line_break(peek(0))) {
            forward(peek(0) == '\r' && peek(1) == '\n' ? 2 : 1);
            if (column_ == 0 && (text_.substr(i_, 3) == "---" || text_.substr(i_, 3) == "...") && blank_or_end(peek(3)))
              return;
          } else {
            forward(1);
          }
        }
      } else if (spaces == 0) {
        return;
      }
    }
  }
};

/// PyYAML's parser over the tokens of one flow node; the first error found, else std::nullopt
/// (and `unknown` set when it reached a token the replay does not model).
class PyFlowParser {
 public:
  explicit PyFlowParser(std::vector<PyFlowToken> tokens) : t_(std::move(tokens)) {}
  std::optional<PyFlowError> error;
  bool unknown = false;

  bool node() {  // parse_node(block=False); false after an error
    if (at("<alias>")) return ++p_, true;
    bool props = false;
    while (at("<anchor>") || at("<tag>")) ++p_, props = true;
    if (at("<scalar>")) return ++p_, true;
    if (at("[") || at("{")) return collection(tok().id == "[");
    if (props) return true;
    if (tok().id.empty()) return unknown = true, false;
    error = PyFlowError{false, tok().line + 1, tok().column + 1, tok().id, tok().line + 1, tok().column + 1, true};
    return false;
  }

 private:
  std::vector<PyFlowToken> t_;
  std::size_t p_ = 0;
  const PyFlowToken& tok() const { return t_[std::min(p_, t_.size() - 1)]; }
  bool at(const char* id) const { return tok().id == id; }

  bool collection(bool seq) {
    const PyFlowToken open = tok();
    const char* end = seq ? "]" : "}";
    ++p_;
    for (bool first = true;; first = false) {
      if (tok().id.empty()) return unknown = true, false;
      if (at(end)) return ++p_, true;
      if (!first) {
        if (!at(",")) {
          error = PyFlowError{seq, open.line + 1, open.column + 1, tok().id, tok().line + 1, tok().column + 1};
          return false;
        }
        ++p_;
        if (at(end)) return ++p_, true;
      }
      if (at("?")) {  // a KEY: (key node)? (':' (value node)?)?
        ++p_;
        if (!at(":") && !at(",") && !at(end) && !node()) return false;
        if (at(":")) {
          ++p_;
          if (!at(",") && !at(end) && !node()) return false;
        }
      } else if (!node()) {  // in a mapping, a key without '?' whose value is empty
        return false;
      }
    }
  }
};

}  // namespace

std::optional<PyFlowError> pyyaml_flow_error(std::string_view text, std::size_t start) {
  if (start >= text.size() || (text[start] != '[' && text[start] != '{')) return std::nullopt;
  PyFlowParser parser(PyFlowScanner(text, start).run());
  if (!parser.node() && !parser.unknown) return parser.error;
  return std::nullopt;
}

}  // namespace piprov::provision
