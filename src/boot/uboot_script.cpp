#include "boot/uboot_script.hpp"

#include <string>
#include <vector>

namespace piprov::boot {
namespace {

using UbootCommand = std::vector<std::string>;  ///< one command's words, quotes removed

/// The commands of `script` as hush splits them: words by blanks, quotes kept together, '#' at the
/// start of a word comments out the rest of the line, ';' and newlines end a command.
std::vector<UbootCommand> uboot_commands(std::string_view script) {
  std::vector<UbootCommand> out(1);
  std::string word;
  bool in_word = false;
  char quote = 0;
  auto end_word = [&] {
    if (in_word) out.back().push_back(word);
    word.clear();
    in_word = false;
  };
  auto end_command = [&] {
    end_word();
    if (!out.back().empty()) out.emplace_back();
  };
  for (std::size_t i = 0; i < script.size(); ++i) {
    const char c = script[i];
    if (quote) {
      if (c == quote)
        quote = 0;
      else
        word += c;
      continue;
    }
    if (c == '"' || c == '\'') {
      quote = c;
      in_word = true;
    } else if (c == '\\' && i + 1 < script.size()) {
      word += script[++i];
      in_word = true;
    } else if (c == '#' && !in_word) {
      while (i + 1 < script.size() && script[i + 1] != '\n') ++i;
    } else if (c == ';' || c == '\n') {
      end_command();
    } else if (c == ' ' || c == '\t' || c == '\r') {
      end_word();
    } else {
      word += c;
      in_word = true;
    }
  }
  end_command();
  return out;
}

bool uboot_ends_with(const std::string& s, std::string_view tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

bool uboot_has_root(const std::string& s) { return s.find("root=") != std::string::npos; }

}  // namespace

bool uboot_script_adds_root(std::string_view script) {
  for (auto cmd : uboot_commands(script)) {
    // hush's keywords before a command (if/then/else ... do): the command follows them.
    std::size_t i = 0;
    while (i < cmd.size() && (cmd[i] == "if" || cmd[i] == "then" || cmd[i] == "else" || cmd[i] == "elif" ||
                              cmd[i] == "do" || cmd[i] == "while" || cmd[i] == "until" || cmd[i] == "!"))
      ++i;
    if (i >= cmd.size()) continue;
    // The first word of the script follows mkimage's binary header: match the command's name at its end.
    const std::string& name = cmd[i];
    std::size_t value = 0;  // index of the first word of the value set
    if (uboot_ends_with(name, "setenv"))
      value = i + 2;
    else if (uboot_ends_with(name, "env") && i + 1 < cmd.size() && cmd[i + 1] == "set")
      value = i + 3;
    else if (uboot_ends_with(name, "setexpr")) {
      // setexpr NAME sub|gsub PATTERN REPLACEMENT [STRING]: only the replacement adds.
      if (i + 2 < cmd.size() && (cmd[i + 2] == "sub" || cmd[i + 2] == "gsub")) {
        if (i + 4 < cmd.size() && uboot_has_root(cmd[i + 4])) return true;
        continue;
      }
      value = i + 2;
    } else
      continue;
    for (std::size_t w = value; w < cmd.size(); ++w)
      if (uboot_has_root(cmd[w])) return true;
  }
  return false;
}

}  // namespace piprov::boot
