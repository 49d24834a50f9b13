#include "eeprom/input.hpp"

#include <fmt/format.h>
#include <filesystem>

#include "core/enum_names.hpp"
#include "core/error.hpp"
#include "core/file.hpp"

namespace piprov::eeprom {
namespace {
constexpr EnumName<SourceKind> kSourceKindNames[] = {
    {SourceKind::File, "file"}, {SourceKind::Stdin, "stdin"}, {SourceKind::Image, "image"}, {SourceKind::Live, "live"}};
constexpr std::size_t kMaxConfigRead = 1 << 20;

std::string input_name(const std::string& path) { return path == "-" ? "standard input" : path; }

std::string read_config_text(const std::string& path) {
  if (path != "-" && std::filesystem::is_directory(path))
    throw Error(ErrorKind::Usage, fmt::format("{} is a directory; give the config file (e.g. bootconf.txt)", path));
  auto text = read_file_capped(path, kMaxConfigRead, "config");
  if (!text)
    throw Error(ErrorKind::Usage, fmt::format("{} is over 1 MiB: not a bootloader config (bootconf.txt holds at most "
                                              "4076 bytes); give the output of 'vcgencmd bootloader_config'",
                                              input_name(path)));
  return std::move(*text);
}

void load_image(const InputSource& src, LoadedInput& out) {
  auto img = EepromImage::load(src.image);
  out.board = board_for_image(img, src.board);
  if (!src.board) out.context.board_from = fmt::format("image (BCM{})", img.chip());
  out.input.config_text = img.bootconf();
  BootloaderInfo bl{img.build_timestamp(), img.version(), "image"};
  out.input.bootloader = bl;
  auto& ctx = out.context;
  ctx.bootloader = bl;
  ctx.source_kind = SourceKind::Image;
  ctx.path = src.image;
  ctx.image_size = img.bytes().size();
  ctx.image_chip = img.chip();
  ctx.bootconf_offset = img.sections()[*img.find_file("bootconf.txt")].offset;
}

void load_live(const InputSource& src, LoadedInput& out) {
  auto live = read_live(src.live_options);
  out.board = src.board.value_or(live.board);
  if (!src.board) out.context.board_from = "device tree";
  out.input.config_text = live.config_text;
  out.input.bootloader = live.bootloader;
  out.input.release_channel = live.release_channel;
  auto& ctx = out.context;
  ctx.bootloader = live.bootloader;
  ctx.release_channel = live.release_channel;
  ctx.release_channel_file = live.release_channel_file;
  ctx.source_kind = SourceKind::Live;
}

void load_text(const InputSource& src, LoadedInput& out) {
  out.board = src.board.value_or(Board::Pi4);
  out.input.config_text = read_config_text(src.file);
  validate_config_text(out.input.config_text, src.file);
  out.context.source_kind = src.file == "-" ? SourceKind::Stdin : SourceKind::File;
  out.context.path = src.file;
}
}  // namespace

std::string_view source_kind_name(SourceKind k) { return enum_name(kSourceKindNames, k); }

void validate_config_text(const std::string& text, const std::string& path) {
  const std::string name = input_name(path);
  if (text.rfind("\x55\xaa\xf0\x0f", 0) == 0)
    throw Error(ErrorKind::Usage, fmt::format("{} looks like an EEPROM image (pieeprom.bin), not config text: use "
                                              "piprov eeprom check --image {}",
                                              path, path));
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    throw Error(ErrorKind::Usage,
                fmt::format("{} is empty: nothing to check (on the Pi, 'vcgencmd bootloader_config' prints the "
                            "config; is vcgencmd installed and is this a Pi?)",
                            name));
  if (auto nul = text.find('\0'); nul != std::string::npos)
    throw Error(ErrorKind::Usage,
                fmt::format("{} holds binary data (a NUL byte at offset {}), not a bootloader config: give the "
                            "output of 'vcgencmd bootloader_config', a bootconf.txt, or --image pieeprom.bin",
                            name, nul));
}

Board board_for_image(const EepromImage& img, std::optional<Board> given) {
  Board from_image = img.chip() == 2712 ? Board::Pi5 : Board::Pi4;
  if (given && is_bcm2712(*given) != is_bcm2712(from_image))
    throw Error(ErrorKind::Usage, fmt::format("--board {} does not match {}: it is a BCM{} image ({} bytes)",
                                              board_name(*given), img.name(), img.chip(), img.bytes().size()));
  return given.value_or(from_image);
}

LoadedInput load_input(const InputSource& src) {
  int sources = (!src.file.empty()) + (!src.image.empty()) + (src.live ? 1 : 0);
  if (sources != 1)
    throw Error(ErrorKind::Usage,
                "eeprom check: give exactly one of a config FILE (- for stdin), --image "
                "pieeprom.bin or --live");
  LoadedInput out;
  out.context.board_from = src.board ? "--board" : "default";
  if (!src.image.empty())
    load_image(src, out);
  else if (src.live)
    load_live(src, out);
  else
    load_text(src, out);
  return out;
}

}  // namespace piprov::eeprom
