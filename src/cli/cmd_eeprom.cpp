// `piprov eeprom check|explain|set-boot-order`: Raspberry Pi 4/5 bootloader
// EEPROM config. Wiring and printing only; logic lives in src/eeprom/.
#include <fmt/format.h>
#include <algorithm>
#include <filesystem>
#include <iterator>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/file.hpp"
#include "eeprom/check.hpp"
#include "eeprom/edit.hpp"
#include "eeprom/image.hpp"
#include "eeprom/live.hpp"
#include "eeprom/report.hpp"

namespace piprov::cli {
namespace {
using namespace piprov::eeprom;

struct CheckArgs {
  std::string file, image, board, want = "usb";
  bool live = false, json = false, strict = false;
};
struct ExplainArgs {
  std::string order, board;
  bool json = false;
};
struct SetArgs {
  std::string order, image, out, board;
  bool json = false;
};

std::optional<Board> board_arg(const std::string& s) {
  if (s.empty()) return std::nullopt;
  auto b = parse_board(s);
  if (!b) throw Error(ErrorKind::Usage, fmt::format("--board {}: expected pi4, pi400, cm4 or pi5", s));
  return b;
}

Board board_for_image(const EepromImage& img, std::optional<Board> given) {
  Board from_image = img.chip() == 2712 ? Board::Pi5 : Board::Pi4;
  if (given && is_bcm2712(*given) != is_bcm2712(from_image))
    throw Error(ErrorKind::Usage, fmt::format("--board {} does not match {}: it is a BCM{} image ({} bytes)",
                                              board_name(*given), img.name(), img.chip(), img.bytes().size()));
  return given.value_or(from_image);
}

// Reads a config file or stdin, at most 1 MiB (a bootconf.txt holds at most
// 4076 bytes; raspberrypi/rpi-eeprom rpi-eeprom-config): /dev/zero or a disk is refused, not slurped.
std::string read_text(const std::string& path) {
  constexpr std::size_t kMaxConfig = 1 << 20;
  if (path != "-" && std::filesystem::is_directory(path))
    throw Error(ErrorKind::Usage, fmt::format("{} is a directory; give the config file (e.g. bootconf.txt)", path));
  auto text = read_file_capped(path, kMaxConfig, "config");
  if (!text)
    throw Error(ErrorKind::Usage, fmt::format("{} is over 1 MiB: not a bootloader config (bootconf.txt holds at most "
                                              "4076 bytes); give the output of 'vcgencmd bootloader_config'",
                                              path == "-" ? "standard input" : path));
  return std::move(*text);
}

int run_check(const CheckArgs& a) {
  int sources = (!a.file.empty()) + (!a.image.empty()) + (a.live ? 1 : 0);
  if (sources != 1)
    throw Error(ErrorKind::Usage,
                "eeprom check: give exactly one of a config FILE (- for stdin), --image "
                "pieeprom.bin or --live");
  CheckOptions opt;
  if (a.want != "none") {
    opt.want = parse_want(a.want);
    if (!opt.want)
      throw Error(ErrorKind::Usage, fmt::format("--want {}: expected usb, nvme, sd, network or none", a.want));
  } else {
    opt.want = std::nullopt;
  }
  auto given = board_arg(a.board);
  CheckInput in;
  CheckContext ctx;
  ctx.strict = a.strict;
  ctx.board_from = given ? "--board" : "default";
  if (!a.image.empty()) {
    auto img = EepromImage::load(a.image);
    opt.board = board_for_image(img, given);
    if (!given) ctx.board_from = fmt::format("image (BCM{})", img.chip());
    in.config_text = img.bootconf();
    BootloaderInfo bl{img.build_timestamp(), img.version(), "image"};
    in.bootloader = bl;
    ctx.bootloader = bl;
    ctx.source_kind = "image";
    ctx.path = a.image;
    ctx.image_size = img.bytes().size();
    ctx.image_chip = img.chip();
    ctx.bootconf_offset = img.sections()[*img.find_file("bootconf.txt")].offset;
  } else if (a.live) {
    auto live = read_live();
    opt.board = given.value_or(live.board);
    if (!given) ctx.board_from = "device tree";
    in.config_text = live.config_text;
    in.bootloader = live.bootloader;
    in.release_channel = live.release_channel;
    ctx.bootloader = live.bootloader;
    ctx.release_channel = live.release_channel;
    ctx.release_channel_file = live.release_channel_file;
    ctx.source_kind = "live";
  } else {
    opt.board = given.value_or(Board::Pi4);
    in.config_text = read_text(a.file);
    if (in.config_text.rfind("\x55\xaa\xf0\x0f", 0) == 0)
      throw Error(ErrorKind::Usage, fmt::format("{} looks like an EEPROM image (pieeprom.bin), not config text: use "
                                                "piprov eeprom check --image {}",
                                                a.file, a.file));
    if (in.config_text.find_first_not_of(" \t\r\n") == std::string::npos)
      throw Error(ErrorKind::Usage,
                  fmt::format("{} is empty: nothing to check (on the Pi, 'vcgencmd bootloader_config' prints the "
                              "config; is vcgencmd installed and is this a Pi?)",
                              a.file == "-" ? "standard input" : a.file));
    if (auto nul = in.config_text.find('\0'); nul != std::string::npos)
      throw Error(ErrorKind::Usage,
                  fmt::format("{} holds binary data (a NUL byte at offset {}), not a bootloader config: give the "
                              "output of 'vcgencmd bootloader_config', a bootconf.txt, or --image pieeprom.bin",
                              a.file == "-" ? "standard input" : a.file, nul));
    ctx.source_kind = a.file == "-" ? "stdin" : "file";
    ctx.path = a.file;
  }
  auto report = check_config(in, opt);
  if (a.json)
    fmt::print("{}\n", dump_json(check_json(report, opt, ctx)));
  else
    fmt::print("{}", check_text(report, opt, ctx));
  return check_exit_code(report, a.strict);
}

BootOrder order_arg(const std::string& s) {
  auto p = parse_boot_order(s);
  if (!p.order) throw Error(ErrorKind::Usage, p.error);
  return *p.order;
}

void run_explain(const ExplainArgs& a) {
  auto board = board_arg(a.board);
  BootOrder o = order_arg(a.order);
  if (a.json) {
    fmt::print("{}\n", dump_json(explain_json(o, board)));
    return;
  }
  fmt::print("{}: {}\n", format_boot_order(o.value), boot_order_words(o, board));
  std::size_t reach = reachable_count(o);
  for (std::size_t i = 0; i < o.modes.size(); ++i)
    fmt::print("  {}. {:x}  {}{}\n", i + 1, o.modes[i], mode_name(o.modes[i]), i < reach ? "" : "  (never reached)");
  if (board)
    for (const auto& f : check_boot_order(o, 0, *board, std::nullopt))
      fmt::print("{}: {}: {}\n", severity_name(f.severity), f.rule, f.message);
}

void run_set(const SetArgs& a) {
  BootOrder o = order_arg(a.order);
  const std::string value = format_boot_order(o.value);
  std::error_code same_ec;
  if (std::filesystem::exists(a.out, same_ec) && std::filesystem::equivalent(a.image, a.out, same_ec))
    throw Error(ErrorKind::Usage, fmt::format("--out {} is the input image: give a new file name (keep the original "
                                              "to roll back with rpi-eeprom-update -d -f {})",
                                              a.out, a.image));
  auto img = EepromImage::load(a.image);
  Board board = board_for_image(img, board_arg(a.board));
  const std::string old_cfg = img.bootconf();
  auto edit = set_boot_order(old_cfg, value);
  std::string bytes = img.with_file("bootconf.txt", edit.text);
  auto check = EepromImage::parse(bytes, a.out);
  if (check.bootconf() != edit.text)
    throw Error(ErrorKind::Verify, fmt::format("{}: the new bootconf.txt does not read back as written", a.out));
  Findings notes = check_boot_order(o, edit.line, board, std::nullopt);
  // A USB mode in BOOT_ORDER does nothing on a bootloader older than USB boot:
  // say so here, not only on the next `eeprom check --image OUT`.
  CheckInput in{edit.text, BootloaderInfo{img.build_timestamp(), img.version(), "image"}, std::nullopt};
  CheckOptions copt;
  copt.board = board;
  copt.want =
      std::find(o.modes.begin(), o.modes.end(), 4) != o.modes.end() ? std::optional<Want>(Want::Usb) : std::nullopt;
  for (auto& f : check_config(in, copt).findings)
    if (f.rule == "bootloader-too-old-for-usb") notes.push_back(std::move(f));
  Config cfg = parse_config(edit.text);
  for (const auto& l : cfg.lines)
    if (l.kind == LineKind::Setting && l.key == "SIGNED_BOOT" && l.value == "1" && img.find_file("bootconf.sig"))
      notes.push_back({"bootconf-sig-stale", Severity::Warning, l.number, "SIGNED_BOOT",
                       "SIGNED_BOOT=1: bootconf.sig in the image still signs the old config",
                       "re-sign: rpi-eeprom-digest -i bootconf.txt -o bootconf.sig, then rpi-eeprom-config --digest",
                       "rpi-eeprom-config (signed boot)"});
  AtomicFile out(a.out);
  out.write(bytes);
  out.commit();
  if (a.json) {
    nlohmann::json w = nlohmann::json::array();
    for (const auto& f : notes) w.push_back(finding_json(f));
    nlohmann::json j{
        {"image", a.image},
        {"out", a.out},
        {"board", std::string(board_name(board))},
        {"old_boot_order", edit.old_value.empty() ? nlohmann::json(nullptr) : nlohmann::json(edit.old_value)},
        {"boot_order", value},
        {"line", edit.line},
        {"words", boot_order_words(o, board)},
        {"config", edit.text},
        {"config_bytes", edit.text.size()},
        {"image_bytes", bytes.size()},
        {"findings", w}};
    fmt::print("{}\n", dump_json(j));
    return;
  }
  fmt::print("BOOT_ORDER {} -> {} (line {}): {}\n", edit.old_value.empty() ? std::string("(not set)") : edit.old_value,
             value, edit.line, boot_order_words(o, board));
  for (const auto& f : notes) fmt::print("{}: {}: {}\n", severity_name(f.severity), f.rule, f.message);
  fmt::print("wrote {} ({} bytes, bootconf.txt {} bytes); flash it on the Pi with: sudo rpi-eeprom-update -d -f {}\n",
             a.out, bytes.size(), edit.text.size(), a.out);
}

}  // namespace

void add_eeprom_command(CLI::App& app, Globals&, int& exit_code) {
  auto* eeprom = app.add_subcommand("eeprom", "Check, explain and edit the Raspberry Pi 4/5 bootloader EEPROM config");
  eeprom->require_subcommand(1);

  auto ca = std::make_shared<CheckArgs>();
  auto* check = eeprom->add_subcommand("check", "Validate a bootloader config: FILE, - (stdin), --image or --live");
  check->add_option("FILE", ca->file, "Config text (vcgencmd bootloader_config / rpi-eeprom-config output), - = stdin");
  check->add_option("--image", ca->image, "Read bootconf.txt from a pieeprom.bin (512 KiB Pi 4 / 2 MiB Pi 5)");
  check->add_flag("--live", ca->live, "On a Pi: vcgencmd bootloader_config/_version, FIRMWARE_RELEASE_STATUS");
  check->add_option("--board", ca->board, "pi4 | pi400 | cm4 | pi5 (default: from the image or device tree, else pi4)");
  check->add_option("--want", ca->want, "Boot mode that must be tried: usb | nvme | sd | network | none")
      ->default_str("usb");
  check->add_flag("--json", ca->json, "Print JSON (schema piprov.eeprom.check/1, docs/eeprom.md)");
  check->add_flag("--strict", ca->strict, "Exit 1 on warnings too");
  check->callback([ca, &exit_code] { exit_code = run_check(*ca); });

  auto ea = std::make_shared<ExplainArgs>();
  auto* explain = eeprom->add_subcommand("explain", "Say a BOOT_ORDER in words, e.g. 0xf41");
  explain->add_option("BOOT_ORDER", ea->order, "e.g. 0xf41")->required();
  explain->add_option("--board", ea->board, "pi4 | pi400 | cm4 | pi5: also flag modes the board lacks");
  explain->add_flag("--json", ea->json, "Print JSON");
  explain->callback([ea] { run_explain(*ea); });

  auto sa = std::make_shared<SetArgs>();
  auto* set = eeprom->add_subcommand("set-boot-order", "Write a new pieeprom.bin whose config has this BOOT_ORDER");
  set->add_option("BOOT_ORDER", sa->order, "e.g. 0xf14 (USB first)")->required();
  set->add_option("--image", sa->image, "Source pieeprom.bin")->required();
  set->add_option("--out", sa->out, "New image to write (flash with rpi-eeprom-update -d -f OUT)")->required();
  set->add_option("--board", sa->board, "pi4 | pi400 | cm4 | pi5 (default: from the image)");
  set->add_flag("--json", sa->json, "Print JSON");
  set->callback([sa] { run_set(*sa); });
}

}  // namespace piprov::cli
