// `piprov eeprom check|explain|set-boot-order`: Raspberry Pi 4/5 bootloader
// EEPROM config. Wiring and printing only; logic lives in src/eeprom/.
#include <fmt/format.h>

#include "cli/board_option.hpp"
#include "cli/commands.hpp"
#include "core/error.hpp"
#include "core/file.hpp"
#include "core/finding.hpp"
#include "eeprom/boot_order_plan.hpp"
#include "eeprom/check.hpp"
#include "eeprom/input.hpp"
#include "eeprom/report.hpp"

namespace piprov::cli {
namespace {
using namespace piprov::eeprom;

struct EepromCheckArgs {
  std::string file, image, want;
  std::optional<Board> board;
  bool live = false, json = false, strict = false;
};
struct ExplainArgs {
  std::string order;
  std::optional<Board> board;
  bool json = false;
};
struct SetArgs {
  std::string order, image, out;
  std::optional<Board> board;
  bool json = false;
};

int run_check(const EepromCheckArgs& a) {
  CheckOptions opt;
  if (a.want.empty()) {
    opt.want_from_board = true;
  } else if (a.want != "none") {
    opt.want = parse_want(a.want);
    if (!opt.want)
      throw Error(ErrorKind::Usage, fmt::format("--want {}: expected usb, nvme, sd, network or none", a.want));
  } else {
    opt.want = std::nullopt;
  }
  InputSource src;
  src.file = a.file;
  src.image = a.image;
  src.live = a.live;
  src.board = a.board;
  auto loaded = load_input(src);
  opt.board = loaded.board;
  opt.image = a.image;
  loaded.context.strict = a.strict;
  auto report = check_config(loaded.input, opt);
  if (a.json)
    fmt::print("{}\n", dump_json(check_json(report, opt, loaded.context)));
  else
    fmt::print("{}", check_text(report, opt, loaded.context));
  return findings_exit_code(report.findings, check_fail_on(a.strict));
}

BootOrder order_arg(const std::string& s) {
  auto p = parse_boot_order(s);
  if (!p.order) throw Error(ErrorKind::Usage, p.error);
  return *p.order;
}

void run_explain(const ExplainArgs& a) {
  const auto& board = a.board;
  BootOrder o = order_arg(a.order);
  if (a.json) {
    fmt::print("{}\n", dump_json(explain_json(o, board)));
    return;
  }
  fmt::print("{}: {}\n", format_boot_order(o.value), boot_order_words(o, board));
  std::size_t reach = reachable_count(o);
  for (std::size_t i = 0; i < o.modes.size(); ++i)
    fmt::print("  {}. {:x}  {}{}\n", i + 1, o.modes[i], mode_name(o.modes[i]), i < reach ? "" : "  (never reached)");
  if (board) fmt::print("{}", findings_text(check_boot_order(o, 0, *board, std::nullopt)));
}

int run_set(const SetArgs& a) {
  auto plan = write_boot_order(a.image, a.out, order_arg(a.order), a.board);
  // Written, and exit 1 when `eeprom check` of the new image will find errors.
  // Exit 1 on any error finding, as `eeprom check` of the new image would
  // (a BOOT_ORDER error, or a bootloader too old for the order it names).
  const int rc = findings_exit_code(plan.findings, FailOn::Error);
  if (a.json) {
    fmt::print("{}\n", dump_json(boot_order_plan_json(plan, a.image, a.out)));
    return rc;
  }
  fmt::print("BOOT_ORDER {} -> {} (line {}): {}\n",
             plan.edit.old_value.empty() ? std::string("(not set)") : plan.edit.old_value, plan.value, plan.edit.line,
             boot_order_words(plan.order, plan.board));
  fmt::print("{}", findings_text(plan.findings));
  fmt::print("wrote {} ({} bytes, bootconf.txt {} bytes); flash it on the Pi with: sudo rpi-eeprom-update -d -f {}\n",
             a.out, plan.new_image.size(), plan.edit.text.size(), a.out);
  if (rc) fmt::print("eeprom check of {} will report the error(s) above: fix them before flashing\n", a.out);
  return rc;
}

}  // namespace

void add_eeprom_command(CLI::App& app, Globals&, int& exit_code) {
  auto* eeprom = app.add_subcommand("eeprom", "Check, explain and edit the Raspberry Pi 4/5 bootloader EEPROM config");
  eeprom->require_subcommand(1);

  auto ca = std::make_shared<EepromCheckArgs>();
  auto* check = eeprom->add_subcommand("check", "Validate a bootloader config: FILE, - (stdin), --image or --live");
  check->add_option("FILE", ca->file, "Config text (vcgencmd bootloader_config / rpi-eeprom-config output), - = stdin");
  check->add_option("--image", ca->image, "Read bootconf.txt from a pieeprom.bin (512 KiB Pi 4 / 2 MiB Pi 5)");
  check->add_flag("--live", ca->live, "On a Pi: vcgencmd bootloader_config/_version, FIRMWARE_RELEASE_STATUS");
  add_board_option(check, ca->board, "the board the config is for (default: from the image or device tree, else pi4)");
  check->add_option("--want", ca->want,
                    "Boot mode that must be tried: usb | nvme | sd | network | none (default: from the board: usb on "
                    "a Pi 4B/400; on CM4 and the Pi 5 family the first of USB/NVMe that BOOT_ORDER tries)");
  check->add_flag("--json", ca->json, "Print JSON (schema piprov.eeprom.check/1, docs/eeprom.md)");
  check->add_flag("--strict", ca->strict, "Exit 1 on warnings too");
  check->callback([ca, &exit_code] { exit_code = run_check(*ca); });

  auto ea = std::make_shared<ExplainArgs>();
  auto* explain = eeprom->add_subcommand("explain", "Say a BOOT_ORDER in words, e.g. 0xf41");
  explain->add_option("BOOT_ORDER", ea->order, "e.g. 0xf41")->required();
  add_board_option(explain, ea->board, "also flag modes the board lacks");
  explain->add_flag("--json", ea->json, "Print JSON (schema piprov.eeprom.explain/1, docs/eeprom.md)");
  explain->callback([ea] { run_explain(*ea); });

  auto sa = std::make_shared<SetArgs>();
  auto* set = eeprom->add_subcommand("set-boot-order", "Write a new pieeprom.bin whose config has this BOOT_ORDER");
  set->add_option("BOOT_ORDER", sa->order, "e.g. 0xf14 (USB first)")->required();
  set->add_option("--image", sa->image, "Source pieeprom.bin")->required();
  set->add_option("--out", sa->out, "New image to write (flash with rpi-eeprom-update -d -f OUT)")->required();
  add_board_option(set, sa->board, "the board the image is for (default: from the image)");
  set->add_flag("--json", sa->json, "Print JSON");
  set->callback([sa, &exit_code] { exit_code = run_set(*sa); });
}

}  // namespace piprov::cli
