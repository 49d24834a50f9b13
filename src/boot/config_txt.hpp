#pragma once
// A lossless model of the Raspberry Pi firmware's config.txt: parse, query,
// edit and print back. to_string(parse(x)) == x for any bytes x (CRLF, missing
// final newline, tabs, NULs, long lines are all kept); edits touch only the
// lines they name.
// Rules (Raspberry Pi documentation, config_txt: common options, conditional filters): one
// `key=value` per line; `#` starts a comment only at the start of a line; the
// firmware reads only the first 98 characters of a line; no spaces around `=`;
// a repeated key: the later one wins (dtoverlay/dtparam accumulate instead);
// filters `[all]` (reset) `[none]` `[pi4]` (also Pi 400, CM4) `[pi3]` `[cm4]`
// `[gpioN=v]` `[0xSERIAL]` `[EDID=...]` `[tryboot]` ...; filters of the same
// type replace each other, of different types combine; `include FILE`;
// `initramfs FILE followkernel` takes a space, not `=`.
#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/finding.hpp"

namespace piprov::boot {

/// The firmware's line length limit (characters, without the line ending).
inline constexpr std::size_t kConfigLineLimit = 98;
/// Size (bytes) over which config.txt is a warning: a Pi 5 did not boot with a 49 KB config.txt of
/// comments (raspberrypi/firmware issue 1848); meta-raspberrypi warns at 16 KiB.
inline constexpr std::size_t kConfigSizeLimit = 16 * 1024;

enum class LineKind {
  Blank,      ///< empty or only spaces/tabs
  Comment,    ///< first non-blank character is '#'
  Section,    ///< "[filter]"; key holds the filter text
  Setting,    ///< "key=value" (key/value trimmed), or a bare word ("boot_delay") with has_equals=false
  Directive,  ///< "include FILE" or "initramfs FILE [followkernel|addr]"; key is the word, value the rest
};

/// One physical line. text excludes the line ending; eol is "\n", "\r\n" or ""
/// (last line without newline). Printing text+eol of every line gives the file.
struct ConfigLine {
  std::string text;
  std::string eol;
  LineKind kind = LineKind::Blank;
  std::string key;    ///< Setting/Directive key; Section filter text (inside the brackets)
  std::string value;  ///< Setting value / Directive arguments, trimmed of spaces, tabs and CR
  bool has_equals = false;
  bool spaced_equals = false;  ///< spaces or tabs around '='
  bool unterminated = false;   ///< Section without ']'
};

/// The board a query is for. model is a firmware filter name: "pi4", "pi400",
/// "cm4", "pi3", "pi3+", "pi5", ... Filters whose truth cannot be known offline
/// ([gpio..], [0x..], [EDID=..], [HDMI:..], [tryboot], ...) count as false, unless
/// conditions_hold: then the conditional filters [gpioN=v], [0xSERIAL], [EDID=...] and [tryboot]
/// count as true (what the firmware reads on a board where they hold; EffectiveValue::conditions
/// names them); [none], [HDMI:..] and the rest stay false. Raspberry Pi documentation, config_txt:
/// conditional filters.
struct Board {
  std::string model = "pi4";
  bool conditions_hold = false;
};

/// Where an effective value comes from. line is 1-based.
struct EffectiveValue {
  std::string value;
  std::string file;  ///< config file name as included ("config.txt", "usercfg.txt")
  std::size_t line = 0;
  std::string section;  ///< text of the last section header above it ("" = none)
  /// The conditional filters in force at the line, as written ("[gpio4=1][tryboot]"); "" when none
  /// (always "" unless Board::conditions_hold).
  std::string conditions;
};

/// Throws Error{Usage} when `bytes` (the file `file`) is not text: it holds a
/// NUL byte (a config.txt the firmware reads line by line never does; a
/// truncated copy or a disk image does). Called before checking or patching.
void require_text_config(std::string_view bytes, const std::string& file);

class ConfigTxt;
/// Loads an included file by name (relative to the boot partition); nullopt when missing.
using IncludeLoader = std::function<std::optional<ConfigTxt>(const std::string& name)>;

class ConfigTxt {
 public:
  /// Never throws: every byte sequence is a valid (if odd) config.txt.
  static ConfigTxt parse(std::string_view bytes);
  std::string to_string() const;

  const std::vector<ConfigLine>& lines() const { return lines_; }

  /// The value the firmware uses for `key` on `board`, following `include`
  /// when `loader` is given (name used for EffectiveValue::file of this file:
  /// `self_name`). For key "initramfs" the directive's arguments are returned.
  /// dtoverlay/dtparam accumulate: use effective_all() for them.
  std::optional<EffectiveValue> effective(std::string_view key, const Board& board = {},
                                          const IncludeLoader& loader = nullptr,
                                          const std::string& self_name = "config.txt") const;
  /// Every active occurrence of `key` in order (for dtoverlay, dtparam).
  std::vector<EffectiveValue> effective_all(std::string_view key, const Board& board = {},
                                            const IncludeLoader& loader = nullptr,
                                            const std::string& self_name = "config.txt") const;

  /// Sets `key=value` in sections headed `[section]` (case-insensitive; ""
  /// means lines before any header): edits the last existing `key` line of
  /// those sections in place (also a bare `key` or `key = v`), else adds the
  /// line after the last setting of the last such section, else creates the
  /// section at the end of the file. Returns true when the text changed.
  bool set(std::string_view section, std::string_view key, std::string_view value);
  /// Same for a directive written "name args" (e.g. "initramfs", "initrd.img followkernel");
  /// also replaces a wrong `name=...` line.
  bool set_directive(std::string_view section, std::string_view name, std::string_view args);
  /// Adds "key=value" to the section unless that exact line is already there (dtoverlay=...).
  bool ensure_line(std::string_view section, std::string_view key, std::string_view value);
  /// Appends "[section]" + "key=value" at the end of the file (used when a later
  /// line would otherwise override the edit). Returns true.
  bool append_section_with(std::string_view section, std::string_view line_text);
  /// Removes every `key` line (setting or directive) in sections `[section]`.
  /// Returns the number of lines removed.
  std::size_t remove(std::string_view section, std::string_view key);

  /// Lint of this file alone: Warning findings (core/finding.hpp) with the
  /// 1-based line and the rules "line-too-long", "bare-key",
  /// "spaces-around-equals", "inline-comment", "duplicate",
  /// "initramfs-equals", "unterminated-section".
  Findings lint() const;

  /// The line ending the file mostly uses ("\r\n" when most lines do).
  std::string dominant_eol() const;

 private:
  struct Block {
    std::ptrdiff_t header = -1;      ///< index of the "[..]" line, -1 for the preamble
    std::size_t begin = 0, end = 0;  ///< lines [begin, end) after the header
  };
  std::vector<Block> blocks() const;
  std::optional<Block> last_block(std::string_view section) const;
  bool upsert(std::string_view section, std::string_view key, const std::string& text, bool any_kind);
  void insert_line(std::size_t at, std::string text);
  void replace_text(std::size_t index, std::string text);
  void walk(const Board& board, const IncludeLoader& loader, const std::string& self_name, int depth,
            std::map<std::string, std::string>& filters,
            const std::function<void(const ConfigLine&, const std::string&, std::size_t, const std::string&,
                                     const std::string&)>& fn) const;

  std::vector<ConfigLine> lines_;
};

/// Classifies one line (text without line ending). Exposed for tests.
ConfigLine classify_line(std::string text, std::string eol);

/// Unified diff (3 lines of context) of two texts, labelled `--- a_label` /
/// `+++ b_label`; "" when equal.
std::string unified_diff(std::string_view a, std::string_view b, const std::string& a_label,
                         const std::string& b_label);

}  // namespace piprov::boot
