#include "boot/uboot_script.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace piprov::boot {
namespace {

/// One command's words (quotes removed) and the 1-based line it starts on.
struct UbootCommand {
  std::vector<std::string> words;
  int line = 1;
};

/// The commands of `script` as hush splits them: words by blanks, quotes kept together, '#' at the
/// start of a word comments out the rest of the line, ';' and newlines end a command.
std::vector<UbootCommand> uboot_commands(std::string_view script) {
  std::vector<UbootCommand> out(1);
  int line = 1;
  std::string word;
  bool in_word = false;
  char quote = 0;
  auto end_word = [&] {
    if (in_word) out.back().words.push_back(word);
    word.clear();
    in_word = false;
  };
  auto end_command = [&] {
    end_word();
    if (!out.back().words.empty()) out.emplace_back();
    out.back().line = line;
  };
  for (std::size_t i = 0; i < script.size(); ++i) {
    const char c = script[i];
    if (c == '\n') ++line;  // counted first: end_command() below starts the next command on it
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
      if (script[++i] == '\n') ++line;
      word += script[i];
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
  if (out.back().words.empty()) out.pop_back();
  return out;
}

bool uboot_has_root(const std::string& s) { return s.find("root=") != std::string::npos; }

/// Whether a variable's value holds root=; Unknown with why when piprov cannot tell.
enum class UbootTri { No, Yes, Unknown };
struct UbootVal {
  UbootVal() = default;
  UbootVal(UbootTri t, std::string w) : tri(t), why(std::move(w)) {}
  UbootTri tri = UbootTri::No;
  std::string why;  ///< for Unknown: why; for No: what set it ("" = never set, or the firmware's line)
  /// The value as expanded: a variable piprov does not know kept as "${NAME}"; the firmware's line is "".
  std::string text;
  bool exact = true;  ///< `text` is the value (not after a setexpr edit or a join of two values)
  int line = 0;       ///< Yes: the line whose text holds the last root=; No: the line that replaced it
  /// bootargs is not in U-Boot's environment (never set: the Pi's default environment has none; or
  /// deleted): `${bootargs}` expands to nothing, and at a boot command fdt_chosen() leaves the
  /// firmware's /chosen/bootargs, the cmdline file's line, as it is (U-Boot boot/fdt_support.c).
  bool unset = false;
  /// Unknown from one assignment under a condition: whether that one set root= (Yes/No) and its line.
  UbootTri cond_kind = UbootTri::Unknown;
  int cond_line = 0;
};

/// Two possible states of one variable (a conditional assignment, two boot commands): equal or unknown.
UbootVal uboot_join(const UbootVal& a, const UbootVal& b) {
  if (a.tri == b.tri) {
    UbootVal out = a.tri == UbootTri::Unknown && a.why.empty() ? b : a;
    if (a.text != b.text || !a.exact || !b.exact) out.exact = false;
    return out;
  }
  return {UbootTri::Unknown, a.tri == UbootTri::Unknown ? a.why : b.tri == UbootTri::Unknown ? b.why : ""};
}

/// The variables the script set so far; bootargs starts unset (U-Boot's default environment for the
/// Pi has none; `fdt get value bootargs /chosen bootargs` reads the firmware's command line, `firmware`:
/// line 0, root= when the cmdline file has one), every other variable comes from U-Boot's environment,
/// which piprov does not read.
struct UbootEnv {
  std::map<std::string, UbootVal> vars;
  UbootVal firmware;
  std::string all_unknown;  ///< why every variable is unknown (after `run`, `env import`), "" when not
  /// bootargs as the kernel gets it at a boot command: unset, the firmware's line passed on.
  UbootVal at_boot() const {
    UbootVal v = get("bootargs");
    return v.unset ? firmware : v;
  }
  UbootVal get(const std::string& name) const {
    if (auto it = vars.find(name); it != vars.end()) return it->second;
    if (!all_unknown.empty()) return {UbootTri::Unknown, all_unknown};
    if (name == "bootargs") {
      UbootVal v;
      v.unset = true;
      return v;
    }
    return {UbootTri::Unknown, "${" + name + "}, which the script does not set"};
  }
};

/// The start of each root= word of a command line (a word starting with root=), in order.
std::vector<std::size_t> uboot_root_words(const std::string& text) {
  std::vector<std::size_t> out;
  for (std::size_t p = text.find("root="); p != std::string::npos; p = text.find("root=", p + 1))
    if (p == 0 || text[p - 1] == ' ' || text[p - 1] == '\t') out.push_back(p);
  return out;
}

/// A value as hush expands it: root= in its text, or in a ${VAR} / $VAR it expands; its text with the
/// values of the variables piprov knows put in.
UbootVal uboot_eval(const UbootEnv& env, const std::string& text, int line) {
  UbootVal out;
  std::string unknown_why;
  bool yes = false;
  std::string literal;  // the current run of literal text
  auto flush = [&] {
    if (uboot_has_root(literal)) {
      yes = true;
      out.line = line;
    }
    out.text += literal;
    literal.clear();
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '$' || i + 1 >= text.size()) {
      literal += text[i];
      continue;
    }
    std::string name;
    if (text[i + 1] == '{') {
      const auto close = text.find('}', i + 2);
      if (close == std::string::npos) {
        literal += text.substr(i);
        break;
      }
      name = text.substr(i + 2, close - i - 2);
      i = close;
    } else {
      std::size_t j = i + 1;
      while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_')) ++j;
      if (j == i + 1) {
        literal += '$';
        continue;
      }
      name = text.substr(i + 1, j - i - 1);
      i = j - 1;
    }
    flush();
    const UbootVal v = env.get(name);
    if (v.tri == UbootTri::Unknown) {
      out.text += "${" + name + "}";
      if (unknown_why.empty())
        unknown_why = "line " + std::to_string(line) + " expands " +
                      (v.why.rfind("${", 0) == 0 ? v.why : "${" + name + "} (" + v.why + ")");
      continue;
    }
    out.text += v.text;
    out.exact = out.exact && v.exact;
    if (v.tri == UbootTri::Yes) {
      yes = true;
      out.line = v.line;
    }
  }
  flush();
  if (yes) {
    out.tri = UbootTri::Yes;
    return out;
  }
  out.line = 0;
  if (!unknown_why.empty()) return {UbootTri::Unknown, unknown_why};
  return out;
}

/// Sets `name` to `v` in the script's order; under a condition, the earlier state stays possible.
void uboot_assign(UbootEnv& env, const std::string& name, UbootVal v, int line, bool conditional) {
  if (conditional) {
    // An unset bootargs is the firmware's line at a boot command: the state the other branch keeps.
    const UbootVal before = name == "bootargs" ? env.at_boot() : env.get(name);
    if (before.tri != v.tri) {
      const UbootTri kind = v.tri;
      const std::string at = "line " + std::to_string(line);
      if (before.cond_kind != UbootTri::Unknown && kind != UbootTri::Unknown && before.cond_kind != kind) {
        // if ...; then setenv bootargs root=...; else setenv bootargs ...; fi: one branch each.
        const int with = kind == UbootTri::Yes ? line : before.cond_line;
        const int without = kind == UbootTri::Yes ? before.cond_line : line;
        v = {UbootTri::Unknown, with == without ? at + " sets " + name + " under a condition: root= on one branch only"
                                                : name + " is set under a condition: root= on one branch only (line " +
                                                      std::to_string(with) + " sets it with root=, line " +
                                                      std::to_string(without) + " without)"};
      } else {
        v = {UbootTri::Unknown, at + " sets " + name + " under a condition (" +
                                    (kind == UbootTri::Yes ? "with" : "without") +
                                    " root=); otherwise it stays as it was"};
        if (kind != UbootTri::Unknown && before.tri != UbootTri::Unknown) {
          v.cond_kind = kind;
          v.cond_line = line;
        }
      }
    } else {
      const bool untouched = before.tri == UbootTri::No && before.why.empty() && before.line == 0;
      v = uboot_join(before, v);
      if (untouched) {  // the firmware's line, or set without root= on one branch: remember that branch
        v.cond_kind = UbootTri::No;
        v.cond_line = line;
      }
    }
  }
  env.vars[name] = std::move(v);
}

/// One command (no keywords, no && / ||): what it does to the variables; bootargs at a boot command.
void uboot_run_command(UbootEnv& env, const std::vector<std::string>& w, int line, bool conditional,
                       std::vector<UbootVal>& at_boot) {
  if (w.empty()) return;
  const std::string at = "line " + std::to_string(line);
  auto join_from = [&](std::size_t from) {
    std::string v;
    for (std::size_t k = from; k < w.size(); ++k) v += (k > from ? " " : "") + w[k];
    return v;
  };
  const std::string& c = w[0];
  if (c == "booti" || c == "bootz" || c == "bootm" || c == "bootefi") {
    at_boot.push_back(env.at_boot());
    return;
  }
  if (c == "run" || c == "source" || (c == "env" && w.size() > 1 && (w[1] == "import" || w[1] == "default")) ||
      c == "importenv") {
    const std::string why = at + " runs `" + join_from(0) + "`, which may set any variable";
    for (auto& [name, v] : env.vars) v = {UbootTri::Unknown, why};
    env.all_unknown = why;
    return;
  }
  std::size_t n = 0;  // index of NAME
  if (c == "setenv")
    n = 1;
  else if (c == "env" && w.size() > 1 && w[1] == "set")
    n = 2;
  if (n > 0) {
    if (n < w.size() && w[n] == "-f") ++n;
    if (n >= w.size()) return;
    const std::string& name = w[n];
    const std::string value = join_from(n + 1);
    const bool deletes = n + 1 >= w.size();
    UbootVal v = deletes ? UbootVal{} : uboot_eval(env, value, line);
    // "${bootargs} rootwait" keeps what bootargs was (the firmware's line, once read with fdt get); anything
    // else replaces it. An unset bootargs expands to nothing: the firmware's line is not kept then.
    const UbootVal before = env.get(name);
    const bool keeps = !before.unset && (value.find("${" + name + "}") != std::string::npos ||
                                         value.find("$" + name) != std::string::npos);
    if (deletes) {
      v.why = at + " deletes " + name;
      v.line = line;
      v.unset = true;
    } else if (v.tri == UbootTri::No) {
      v.why = keeps ? before.why : at + " replaces " + name + " with a value without root=";
      v.line = keeps ? before.line : line;
    }
    uboot_assign(env, name, std::move(v), line, conditional);
    return;
  }
  if (c.rfind("setexpr", 0) == 0 && w.size() > 2) {
    const std::string& name = w[1];
    if ((w[2] == "sub" || w[2] == "gsub") && w.size() > 4) {
      const UbootVal in = w.size() > 5 ? uboot_eval(env, join_from(5), line) : env.get(name);
      const bool pattern_root = uboot_has_root(w[3]);
      const UbootVal repl = uboot_eval(env, w[4], line);
      UbootVal v;
      if (in.tri == UbootTri::Yes && repl.tri == UbootTri::Yes) {
        v = {UbootTri::Yes, ""};  // which root= is left: not evaluated
        v.exact = false;
        v.line = line;
      } else if (in.tri == UbootTri::No && (pattern_root || repl.tri == UbootTri::No)) {
        v = in;  // nothing to match, or nothing with root= put in
        v.exact = v.exact && pattern_root;
      } else {
        v = {UbootTri::Unknown, at + " edits " + name + " with setexpr " + w[2] + " (" +
                                    (in.tri == UbootTri::Yes ? "it may remove root=" : "it may add root=") + ")"};
      }
      uboot_assign(env, name, std::move(v), line, conditional);
      return;
    }
    UbootVal v = uboot_eval(env, join_from(2), line);
    v.exact = false;  // setexpr computes the value
    if (v.tri != UbootTri::Yes)
      v = {UbootTri::Unknown, at + " sets " + name + " with " + c + ", which piprov does not evaluate"};
    uboot_assign(env, name, std::move(v), line, conditional);
    return;
  }
  // fdt get value VAR NODE PROP: bootargs from /chosen is the firmware's command line.
  if (c == "fdt" && w.size() > 5 && w[1] == "get" && w[2] == "value") {
    UbootVal v{UbootTri::Unknown, at + " sets " + w[3] + " from the device tree"};
    if (w[3] == "bootargs" && w[4] == "/chosen" && w[5] == "bootargs") v = env.firmware;
    uboot_assign(env, w[3], std::move(v), line, conditional);
    return;
  }
  if (c == "askenv" || c == "editenv" || (c == "env" && w.size() > 2 && (w[1] == "ask" || w[1] == "edit"))) {
    const std::string& name = c == "env" ? w[2] : w.size() > 1 ? w[1] : c;
    uboot_assign(env, name, {UbootTri::Unknown, at + " asks for " + name}, line, false);
  }
}

}  // namespace

UbootScriptRoot uboot_script_root(std::string_view script, std::string_view firmware_args) {
  UbootEnv env;
  env.firmware.text = std::string(firmware_args);
  if (!uboot_root_words(env.firmware.text).empty()) env.firmware.tri = UbootTri::Yes;  // line 0: the firmware's
  std::vector<UbootVal> at_boot;                                                       // bootargs at each boot command
  int depth = 0;                                                                       // inside if/while/until/for
  for (const auto& cmd : uboot_commands(script)) {
    const auto& w = cmd.words;
    std::size_t i = 0;
    // hush's keywords before a command: the command follows them; if/while/until/for open a block.
    for (; i < w.size(); ++i) {
      if (w[i] == "if" || w[i] == "while" || w[i] == "until" || w[i] == "for")
        ++depth;
      else if (w[i] == "fi" || w[i] == "done")
        depth = std::max(0, depth - 1);
      else if (w[i] != "then" && w[i] != "else" && w[i] != "elif" && w[i] != "do" && w[i] != "!")
        break;
      if (w[i] == "for") i = w.size();  // for VAR in LIST: no command
    }
    // `a && b || c`: every part after the first runs only on the others' outcome.
    bool conditional = depth > 0;
    std::vector<std::string> part;
    for (; i <= w.size(); ++i) {
      if (i == w.size() || w[i] == "&&" || w[i] == "||") {
        uboot_run_command(env, part, cmd.line, conditional, at_boot);
        part.clear();
        conditional = true;
      } else {
        part.push_back(w[i]);
      }
    }
  }
  UbootVal out = at_boot.empty() ? env.at_boot() : at_boot.front();
  for (const auto& v : at_boot) out = uboot_join(out, v);
  switch (out.tri) {
    case UbootTri::Yes: {
      UbootScriptRoot sets{UbootRoot::Sets, "", "", false, out.line};
      if (!out.exact) return sets;
      // The last root= word: the kernel takes the last (Linux init/do_mounts.c root_dev_setup).
      const std::vector<std::size_t> words = uboot_root_words(out.text);
      if (words.empty()) return sets;
      for (const std::size_t p : words) {
        const std::size_t end = out.text.find_first_of(" \t", p);
        sets.all.push_back(out.text.substr(p + 5, end == std::string::npos ? std::string::npos : end - p - 5));
      }
      sets.value = sets.all.back();
      sets.run_time = out.text.find('$', words.back()) != std::string::npos;
      return sets;
    }
    case UbootTri::No: return {UbootRoot::None, out.why, "", false, out.why.empty() ? 0 : out.line};
    case UbootTri::Unknown: break;
  }
  return {UbootRoot::Unknown, out.why, "", false, 0};
}

}  // namespace piprov::boot
