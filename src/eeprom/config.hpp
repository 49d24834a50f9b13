#pragma once
// Lossless parser for the bootloader config (bootconf.txt, the output of
// `vcgencmd bootloader_config` / `rpi-eeprom-config`). Keeps every line with its
// number; tolerant of what users paste (CRLF, trailing spaces, the 2019
// space-padded format) but reports what the bootloader would not accept:
// inline `#` comments, spaces around `=`, several keys on one line, `include`,
// EDID filters. A line is read as the bootloader reads it, so every rule sees
// one story: `KEY =value` names the key "KEY " (no setting: the line sets
// nothing), and after '=' the rest of the line is the value, an inline
// `# comment` or a second `KEY=` included. Parsing (parse_config) and the
// syntax rules (check_syntax) are separate passes. Sources: Raspberry Pi
// documentation, eeprom-bootloader ("the same syntax as config.txt") and
// config_txt (comments only at the start of a line; spaces either side of '='
// are not ignored).
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/board.hpp"
#include "core/finding.hpp"

namespace piprov::eeprom {

/// What a `[...]` header selects.
enum class SectionKind {
  All,        ///< [all]: applies always
  None,       ///< [none]: never applies (release images park FREEZE_VERSION there)
  Model,      ///< [pi4], [pi5], [cm4], [pi400], [board-type=0x17], ...: applies on the boards it names
  Gpio,       ///< [gpioN=0|1]: applies when the GPIO reads that level at boot
  Serial,     ///< [0x1234abcd]: applies on the board with that serial number
  Partition,  ///< [partition=N]: applies when the reboot asked for partition N (e.g. 62 from a watchdog)
  Tryboot,    ///< [tryboot]: a config.txt filter the bootloader config does not honour (rpi-eeprom issue 454)
  ConfigTxt,  ///< [config.txt]: config.txt properties, not bootloader keys
  Edid,       ///< [EDID=...]: a config.txt filter the bootloader does not support
  Unknown,    ///< anything else
};

/// Whether the settings under a section header apply.
enum class Applies {
  Always,     ///< [all], or a model filter that matches the board (with no other filter active)
  Sometimes,  ///< a [gpio..]/[0xSERIAL]/[partition=N] filter is active (and any model filter matches)
  Never,      ///< [none], a filter the bootloader ignores, or a model filter that cannot match the board
};

struct Section {
  int line = 0;      ///< line of the header
  std::string text;  ///< between the brackets, e.g. "gpio3=1"
  SectionKind kind = SectionKind::Unknown;
  /// Without a board (parse_config): [all] Always, gpio/serial/partition Sometimes, a model filter
  /// Sometimes, the rest Never. apply_board() sets it for one board.
  Applies applies = Applies::Never;
  /// A model filter active at this header ([pi4] in a Pi 5 config, also under a later
  /// [gpio..]) that can never match the board apply_board() was given; "" when none.
  std::string never_on_board;
  /// Every filter active at this header, in the order they appeared ({"pi4", "gpio4=1"} for [pi4]
  /// then [gpio4=1]: filters of different types combine); {text} before apply_board().
  std::vector<std::string> filters;
  /// The active filters, each a header as written and in the order set: "[pi4] then [gpio4=1]",
  /// "[all]", "[gpio3=1]". Combined filters are headers one after the other (Raspberry Pi
  /// documentation, config_txt: combining conditional filters), never "[pi4][gpio4=1]" on one line,
  /// which is no filter (unknown-section).
  std::string filters_text() const {
    std::string out;
    for (const auto& f : filters) out += (out.empty() ? "[" : " then [") + f + "]";
    return out.empty() ? "[" + text + "]" : out;
  }
  /// true when keys under it apply only sometimes
  bool conditional() const { return applies == Applies::Sometimes; }
  /// true when keys under it are never bootloader settings on this board
  bool ignored() const { return applies == Applies::Never; }
  /// true when keys under it always apply ([all], or a matching model filter)
  bool always() const { return applies == Applies::Always; }
};

enum class LineKind {
  Blank,
  Comment,
  Section,
  Setting,
  SpacedKey,  ///< `KEY =value`: the bootloader reads the key "KEY " (space kept), which is no setting; sets nothing
  Include,
  Invalid,
  ConfigTxt,  ///< a line after a [config.txt] header: start4.elf appends it to config.txt; not checked here
};

struct ConfigLine {
  int number = 0;   ///< 1-based
  std::string raw;  ///< the line without its terminator ("\n" or "\r\n")
  LineKind kind = LineKind::Blank;
  std::string key;  ///< Setting, SpacedKey: the key as written, without the spaces before '='
  /// Setting: what the bootloader takes as the value: everything after '=' up to the end of the line
  /// (trailing whitespace aside), leading spaces, an inline `# comment` and a second `KEY=` included.
  std::string value;
  int section = -1;   ///< index into Config::sections; -1 = before any header (applies always)
  bool crlf = false;  ///< the line ended in "\r\n" (the "\r" is not in raw)
  // Setting only: what the parser tolerated (check_syntax reports each).
  bool spaced_equals = false;     ///< spaces around '=' (before it: the line is SpacedKey)
  bool inline_comment = false;    ///< " # ..." after the value (part of value, as the bootloader reads it)
  bool multiple_keys = false;     ///< a second KEY= on the line (part of value)
  std::string value_before_hash;  ///< the value as the user meant it: trimmed, up to an inline comment
};

struct Config {
  std::string text;  ///< the input, unchanged
  std::vector<ConfigLine> lines;
  std::vector<Section> sections;
  std::size_t newline_count = 0;  ///< "\n" bytes: what `wc -l` counts (rpi-eeprom-update)
  bool space_padded = false;      ///< 2019 format: long whitespace-only padding lines
  /// line of the first [config.txt] header, 0 when none. The firmware appends "the contents from the start
  /// of this section to the end of the file" to config.txt (Raspberry Pi documentation, "[config.txt]
  /// section"), so the lines after it are config.txt lines (rpi-eeprom issue 475).
  int config_txt_from = 0;

  /// Section of line `l`, or nullptr when before any header.
  const Section* section_of(const ConfigLine& l) const {
    return l.section < 0 ? nullptr : &sections[static_cast<std::size_t>(l.section)];
  }
};

/// Parses `text` (any bytes; never throws). Reports nothing: see check_syntax.
Config parse_config(std::string_view text);

/// The syntax rules (docs/eeprom.md "Rules"): crlf-line-endings,
/// space-padded-format, trailing-whitespace, leading-whitespace, invalid-line,
/// edid-filter-not-supported, tryboot-section-ignored, unknown-section, config-txt-section,
/// include-not-supported, space-around-equals, inline-comment,
/// multiple-keys-on-line. Sorted by line; several on one line keep this order.
Findings check_syntax(const Config& cfg);

/// Classifies the text between `[` and `]`.
SectionKind classify_section(std::string_view inner);

/// Resolves every section's `applies` for `board` as the bootloader does with config.txt's
/// conditional filters (every filter but [EDID=]; Raspberry Pi documentation, eeprom-bootloader
/// and config_txt: conditional filters): [all] resets the filters; filters of the same type
/// (model, gpio, serial, partition) replace each other, of different types combine; a model
/// filter that cannot match the board makes every setting under it (and under filters combined
/// with it) Never and sets `never_on_board`; `filters` lists every filter active at each header. [none], [tryboot],
/// [config.txt] and unknown headers stay Never (rules: tryboot-section-ignored, unknown-section, ...).
void apply_board(Config& cfg, PiBoard board);

}  // namespace piprov::eeprom
