#pragma once
// Where `eeprom check` reads its config from: a text file, standard input, the
// bootconf.txt inside a pieeprom.bin, or the running bootloader (--live); and
// which board the rules are for. Input rules: a text config is at most 1 MiB
// read (bootconf.txt holds at most 4076 bytes: rpi-eeprom-config
// MAX_FILE_SIZE), is not an EEPROM image, not empty and holds no NUL byte.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "eeprom/board.hpp"
#include "eeprom/check.hpp"
#include "eeprom/image.hpp"
#include "eeprom/live.hpp"

namespace piprov::eeprom {

/// Where the config came from.
enum class SourceKind { File, Stdin, Image, Live };

/// "file", "stdin", "image", "live" (`eeprom check --json`'s source.kind).
std::string_view source_kind_name(SourceKind k);

/// What was checked, for the report header (report.hpp).
struct CheckContext {
  SourceKind source_kind = SourceKind::File;
  std::string path;        ///< file or image path ("-" for stdin, "" for live)
  std::string board_from;  ///< "--board" | "image (BCM2711)" | "device tree" | "default"
  bool strict = false;
  // --image only
  std::optional<std::size_t> image_size;
  std::optional<int> image_chip;  ///< 2711 | 2712
  std::optional<std::size_t> bootconf_offset;
  // --image / --live
  std::optional<BootloaderInfo> bootloader;
  // --live only
  std::optional<std::string> release_channel;
  std::string release_channel_file;
};

/// The source the user named: exactly one of `file` ("-" = stdin), `image`, `live`.
struct InputSource {
  std::string file;
  std::string image;
  bool live = false;
  std::optional<Board> board;  ///< --board; nullopt = from the image / device tree / pi4
  LiveOptions live_options;    ///< for --live (tests point root at a fake tree)
};

/// A loaded input: what check_config needs plus the report context.
struct LoadedInput {
  CheckInput input;
  Board board = Board::Pi4;
  CheckContext context;
};

/// Loads the source. Throws Error{Usage} when not exactly one source is
/// given, when --board contradicts the image's chip, for a text config that
/// breaks an input rule (see above; message names the input and what to
/// give instead), for a bad image (EepromImage::load) or --live off a Pi;
/// Error{Io} when a file cannot be read or vcgencmd fails.
LoadedInput load_input(const InputSource& src);

/// The text config rules alone on `text` read from `path` ("-" = stdin).
/// Throws Error{Usage} as load_input does.
void validate_config_text(const std::string& text, const std::string& path);

/// The board of an image: `given` when it matches the image's chip (BCM2711 =
/// Pi 4 family, BCM2712 = Pi 5), else Error{Usage}; without `given`, pi4 or pi5 from the chip.
Board board_for_image(const EepromImage& img, std::optional<Board> given);

}  // namespace piprov::eeprom
