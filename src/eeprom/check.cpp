#include "eeprom/check.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <limits>
#include <map>

#include "eeprom/check_sections.hpp"
#include "eeprom/image.hpp"
#include "eeprom/keys.hpp"

namespace piprov::eeprom {
namespace {
constexpr const char* kProperties = "Raspberry Pi documentation, eeprom-bootloader: configuration properties";
constexpr const char* kBootOrderDoc = "Raspberry Pi documentation, eeprom-bootloader: BOOT_ORDER";

// The filters a section's settings apply under: "[gpio3=1]", "[pi4] then [gpio4=1]", "[all]".
std::string header(const Section& s) { return s.filters_text(); }

using detail::gpio_pin;

// Every active filter of `s` in words, each with its header, joined by "and": "the board is a
// Raspberry Pi 4B ([pi4]) and GPIO 4 reads 1 at boot ([gpio4=1])".
std::string condition_words(const Section& s, Board board) {
  std::string out;
  for (const auto& f : s.filters) {
    auto eq = f.find('=');
    std::string w;
    switch (classify_section(f)) {
      case SectionKind::Gpio: w = fmt::format("GPIO {} reads {} at boot", f.substr(4, eq - 4), f.substr(eq + 1)); break;
      case SectionKind::Partition: w = fmt::format("the reboot asked for partition {}", f.substr(eq + 1)); break;
      case SectionKind::Model: w = fmt::format("the board is a {}", board_title(board)); break;
      default: w = fmt::format("the board's serial number is {}", f); break;
    }
    out += fmt::format("{}{} ([{}])", out.empty() ? "" : " and ", w, f);
  }
  return out;
}

// Last value of `key` in sections that always apply, with its line.
std::optional<std::pair<std::string, int>> unconditional_value(const Config& cfg, std::string_view key) {
  std::optional<std::pair<std::string, int>> out;
  for (const auto& l : cfg.lines) {
    if (l.kind != LineKind::Setting || l.key != key) continue;
    const Section* s = cfg.section_of(l);
    if (s && !s->always()) continue;
    out = std::make_pair(l.value, l.number);
  }
  return out;
}

void append(Findings& to, Findings more) {
  to.insert(to.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
}

// A setting the bootloader applies (always or conditionally); [none]/ignored sections are not.
bool applies(const Config& cfg, const ConfigLine& l) {
  const Section* s = cfg.section_of(l);
  return l.kind == LineKind::Setting && (!s || !s->ignored());
}

// The BOOT_ORDER values (line, parsed) that apply when no optional filter decides: the effective
// one, or, when a [gpioN=0]/[gpioN=1] pair replaces it, the conditional ones in line order.
std::vector<ConditionalBootOrder> orders_that_apply(const EffectiveBootOrder& eff) {
  if (eff.always_gpio.empty()) return {{eff.section, eff.line, eff.text, eff.order}};
  return eff.conditional;
}

// --- rules: one function per rule id (or per group of ids on one thing) ---

// config-too-large, config-too-short.
void rule_config_size(const Config& cfg, Findings& f) {
  if (cfg.text.size() > kMaxFileSize)
    f.push_back({"config-too-large", Severity::Error, 0, "",
                 fmt::format("the config is {} bytes; an EEPROM holds at most {} bytes of bootconf.txt",
                             cfg.text.size(), kMaxFileSize),
                 "remove comments, padding and settings left at their defaults",
                 "rpi-eeprom-config MAX_FILE_SIZE (4096-byte sector minus the 20-byte file header)"});
  if (cfg.newline_count < 3)
    f.push_back({"config-too-short", Severity::Warning, 0, "",
                 fmt::format("the config has {} line(s); rpi-eeprom-update drops a config of fewer than 3 lines on "
                             "the next update and uses the image's default instead",
                             cfg.newline_count),
                 "start the config with [all] and keep at least 3 lines, each ending in a newline",
                 "rpi-eeprom-update prepareImage (wc -l < 3 sets OVERWRITE_CONFIG)"});
}

// duplicate-key: a key set twice where both always apply. A model filter's section ([pi5]) that
// sets a key again overrides the [all] value on purpose: not a duplicate.
void rule_duplicate_key(const Config& cfg, Findings& f) {
  std::map<std::string, int> seen;  // unconditional key -> line
  for (const auto& l : cfg.lines) {
    const Section* s = cfg.section_of(l);
    if (!applies(cfg, l) || (s && (s->conditional() || s->kind == SectionKind::Model))) continue;
    if (auto it = seen.find(l.key); it != seen.end())
      f.push_back({"duplicate-key", Severity::Warning, l.number, l.key,
                   fmt::format("{} is set again (first at line {}); the last value wins", l.key, it->second),
                   fmt::format("keep one {} line", l.key), "config.txt syntax: later settings override earlier ones"});
    seen[l.key] = l.number;
  }
}

// The key table's rules for every applied setting but BOOT_ORDER (keys.hpp:
// unknown-key, key-wrong-board, value-invalid, value-out-of-range).
void rule_key_values(const Config& cfg, Board board, Findings& f) {
  for (const auto& l : cfg.lines)
    if (applies(cfg, l) && l.key != "BOOT_ORDER") append(f, check_setting(l.key, l.value, l.number, board));
}

// boot-order-overridden: a BOOT_ORDER under a conditional or model filter that a later one
// applying always replaces: it never takes effect on this board.
void rule_boot_order_overridden(const Config& cfg, const ConditionalBootOrder& o, Findings& f) {
  const Section* by = cfg.section_of(cfg.lines[static_cast<std::size_t>(o.overridden_by - 1)]);
  f.push_back({"boot-order-overridden", Severity::Info, o.line, "BOOT_ORDER",
               fmt::format("BOOT_ORDER={} under {} never takes effect: BOOT_ORDER at line {}{} applies always and "
                           "comes later, and the last value that applies wins",
                           o.text, o.section, o.overridden_by, by ? " (under " + header(*by) + ")" : ""),
               fmt::format("remove line {}, or move it after line {} if it is meant to apply", o.line, o.overridden_by),
               "Raspberry Pi documentation, config_txt: conditional filters ([all] resets the filters)"});
}

// boot-order-conditional's fix for a BOOT_ORDER under one of a [gpioN=0]/[gpioN=1] pair: one of the
// pair always applies, so the [all] value (all set-boot-order changes: edit.hpp) never does; the
// remedy is the pair's own lines, or removing the pair (Raspberry Pi documentation, config_txt:
// conditional filters). `example` is the value to set (the line's own when it lacks nothing),
// `lacking` the wanted mode's name when it does.
std::string gpio_pair_fix(const Section& s, const ConfigLine& l, const std::string& example, const std::string& lacking,
                          const std::string& pin) {
  const std::string where = fmt::format(
      "at line {}, under {}: sudo rpi-eeprom-config --edit (piprov eeprom set-boot-order changes only the [all] "
      "value, which [gpio{}=0] and [gpio{}=1] always override)",
      l.number, header(s), pin, pin);
  const std::string unpair = fmt::format(
      "or remove the BOOT_ORDER lines under [gpio{}=0] and [gpio{}=1] to let the [all] value apply", pin, pin);
  if (example == l.value)
    return fmt::format("nothing to do if GPIO {} is meant to choose; to change it, edit it {}; {}", pin, where, unpair);
  return fmt::format("set BOOT_ORDER={} ({} lacks {}) {}; {}", example, l.value, lacking, where, unpair);
}

// boot-order-format, boot-order-conditional, boot-order-overridden and the BOOT_ORDER structure
// rules (boot_order.hpp) for every applied BOOT_ORDER line; the wanted mode is checked on the
// effective line and on conditional ones that can apply. A fix names the section the value is set under.
void rule_boot_order_lines(const Config& cfg, const EffectiveBootOrder& eff, const CheckOptions& opt, Findings& f) {
  for (const auto& l : cfg.lines) {
    if (!applies(cfg, l) || l.key != "BOOT_ORDER") continue;
    auto parsed = parse_boot_order(l.value);
    if (!parsed.order) {
      f.push_back({"boot-order-format", Severity::Error, l.number, "BOOT_ORDER", parsed.error,
                   fmt::format("write it as 0x followed by up to 8 hex nibbles, e.g. BOOT_ORDER={}",
                               format_boot_order(default_boot_order(opt.board))),
                   kBootOrderDoc});
      continue;
    }
    auto over = std::find_if(eff.overridden.begin(), eff.overridden.end(),
                             [&](const ConditionalBootOrder& o) { return o.line == l.number; });
    if (over != eff.overridden.end()) {
      rule_boot_order_overridden(cfg, *over, f);
      continue;
    }
    const Section* s = cfg.section_of(l);
    if (!s || !s->conditional()) {
      // Under a [gpioN=0]/[gpioN=1] pair the effective value never applies: no advice on its modes.
      auto want = l.number == eff.line && eff.always_gpio.empty() ? opt.want : std::nullopt;
      append(f, check_boot_order(*parsed.order, l.number, opt.board, want, "",
                                 s && s->kind != SectionKind::All ? header(*s) : "", opt.image));
      continue;
    }
    const bool always = s->kind == SectionKind::Gpio && gpio_pin(*s) == eff.always_gpio;
    Findings more = check_boot_order(*parsed.order, l.number, opt.board, opt.want, header(*s), "", opt.image);
    // The example for [all] must pass the check there: a value lacking the wanted mode gets it.
    const bool lacks =
        std::any_of(more.begin(), more.end(), [](const Finding& m) { return m.rule == "boot-order-missing-mode"; });
    const std::string example = lacks && opt.want && board_has_mode(opt.board, want_mode(*opt.want))
                                    ? format_boot_order(suggest_boot_order(*parsed.order, *opt.want, opt.board))
                                    : l.value;
    f.push_back(
        {"boot-order-conditional", Severity::Info, l.number, "BOOT_ORDER",
         always ? fmt::format("BOOT_ORDER={} applies when {}; [gpio{}=0] and [gpio{}=1] both set BOOT_ORDER, so "
                              "one of them always applies and {} never does",
                              l.value, condition_words(*s, opt.board), eff.always_gpio, eff.always_gpio, eff.text)
                : fmt::format("BOOT_ORDER={} applies only when {}; otherwise {}{} applies", l.value,
                              condition_words(*s, opt.board), eff.text, eff.is_default() ? " (board default)" : ""),
         always
             ? gpio_pair_fix(*s, l, example, example == l.value ? "" : mode_name(want_mode(*opt.want)), eff.always_gpio)
         : example == l.value
             ? fmt::format("to make it unconditional, move it under [all] (e.g. {})",
                           set_boot_order_command(l.value, opt.image))
             : fmt::format("to make it unconditional, set BOOT_ORDER={} under [all] ({} lacks {}: e.g. {})", example,
                           l.value, mode_name(want_mode(*opt.want)), set_boot_order_command(example, opt.image)),
         "Raspberry Pi documentation, config_txt: conditional filters"});
    for (auto& m : more)  // one of the pair always applies: a missing mode is as bad as unconditionally
      if (always && m.rule == "boot-order-missing-mode") m.severity = Severity::Error;
    append(f, std::move(more));
  }
}

// boot-order-default, then the BOOT_ORDER rules on the board default (unless a
// [gpioN=0]/[gpioN=1] pair means the default never applies).
void rule_boot_order_default(const EffectiveBootOrder& eff, const CheckOptions& opt, Findings& f) {
  if (!eff.is_default() || !eff.always_gpio.empty()) return;
  f.push_back({"boot-order-default", Severity::Info, 0, "BOOT_ORDER",
               fmt::format("BOOT_ORDER is not set{}: the {} default {} applies ({})",
                           eff.conditional.empty() ? "" : " outside conditional sections", board_title(opt.board),
                           eff.text, boot_order_words(*eff.order, opt.board)),
               "nothing to do unless you want another order", kBootOrderDoc});
  append(f, check_boot_order(*eff.order, 0, opt.board, opt.want));
}

// Where boot-order-no-drive's fix sets the value: under [all] with set-boot-order (which changes
// only the [all] value: edit.hpp), else at the value's own line under its filters, which override
// [all] when they match (Raspberry Pi documentation, config_txt: conditional filters).
std::string no_drive_where(const ConditionalBootOrder& o, const std::string& suggested, const std::string& image) {
  if (o.section.empty())
    return fmt::format("under [all]: {}, or sudo rpi-eeprom-config --edit", set_boot_order_command(suggested, image));
  return fmt::format(
      "at line {}, under {}: sudo rpi-eeprom-config --edit (piprov eeprom set-boot-order changes only "
      "the [all] value, which {} overrides)",
      o.line, o.section, o.section);
}

// boot-order-no-drive: without --want on a board with NVMe, no BOOT_ORDER that can apply tries
// USB (4) or NVMe (6), so nothing is wanted (default_want): one warning per such value.
void rule_boot_order_no_drive(const EffectiveBootOrder& eff, const CheckOptions& opt, Findings& f) {
  if (!opt.want_from_board || opt.want) return;
  for (const auto& o : orders_that_apply(eff)) {
    if (!o.order) continue;  // boot-order-format
    const std::string suggested = format_boot_order(default_boot_order(opt.board));
    f.push_back({"boot-order-no-drive", Severity::Warning, o.line, "BOOT_ORDER",
                 fmt::format("BOOT_ORDER={} tries neither USB mass storage (4) nor NVMe (6): {}this {} boots {}{}",
                             o.text, o.section.empty() ? "" : "under " + o.section + " ", board_title(opt.board),
                             boot_order_tries_board_mode(*o.order, opt.board) ? "only from " : "from nothing: ",
                             boot_order_words(*o.order, opt.board)),
                 fmt::format("to boot from an SSD set BOOT_ORDER={} (the {} default) {}; if SD/network boot is what "
                             "you want, pass --want sd or --want network",
                             suggested, board_title(opt.board), no_drive_where(o, suggested, opt.image)),
                 kBootOrderDoc});
  }
}

// freeze-version-set.
void rule_freeze_version(const Config& cfg, Findings& f) {
  auto freeze = unconditional_value(cfg, "FREEZE_VERSION");
  if (freeze && freeze->first == "1")
    f.push_back({"freeze-version-set", Severity::Warning, freeze->second, "FREEZE_VERSION",
                 "FREEZE_VERSION=1: rpi-eeprom-update -a skips every bootloader update (including ones that add USB/"
                 "NVMe boot fixes)",
                 "set FREEZE_VERSION=0 unless you pin this release on purpose",
                 "rpi-eeprom-update (\"EEPROM version is frozen. Skipping update\")"});
}

// power-off-on-halt-ignored: POWER_OFF_ON_HALT=1 while WAKE_ON_GPIO=1 (also by default).
// Not on the Pi 5 family: there it puts the PMIC in STANDBY whatever WAKE_ON_GPIO says.
void rule_power_off_on_halt(const Config& cfg, Board board, Findings& f) {
  if (is_bcm2712(board)) return;
  auto poweroff = unconditional_value(cfg, "POWER_OFF_ON_HALT");
  auto wake = unconditional_value(cfg, "WAKE_ON_GPIO");
  if (poweroff && poweroff->first == "1" && (!wake || wake->first == "1"))
    f.push_back({"power-off-on-halt-ignored", Severity::Warning, poweroff->second, "POWER_OFF_ON_HALT",
                 fmt::format("POWER_OFF_ON_HALT=1 has no effect while WAKE_ON_GPIO=1{}",
                             wake ? fmt::format(" (line {})", wake->second) : " (the default)"),
                 "set WAKE_ON_GPIO=0 as well to power off on halt", kProperties});
}

// pcie-probe-usb-before-nvme: PCIE_PROBE=1 while the effective BOOT_ORDER tries
// USB mass storage before NVMe (raspberrypi/linux issue 5836: the PCIe link
// stayed down on early-2024 Pi 5 firmware).
void rule_pcie_probe_order(const Config& cfg, const EffectiveBootOrder& eff, Board board, Findings& f) {
  auto probe = unconditional_value(cfg, "PCIE_PROBE");
  if (!probe || probe->first != "1" || !is_bcm2712(board) || !eff.order) return;
  const auto& m = eff.order->modes;
  const auto end = m.begin() + static_cast<long>(reachable_count(*eff.order));
  auto usb = std::find(m.begin(), end, want_mode(Want::Usb)), nvme = std::find(m.begin(), end, want_mode(Want::Nvme));
  if (usb == end || nvme == end || usb > nvme) return;
  f.push_back({"pcie-probe-usb-before-nvme", Severity::Warning, probe->second, "PCIE_PROBE",
               fmt::format("PCIE_PROBE=1 with BOOT_ORDER={} trying USB mass storage before NVMe: on Pi 5 firmware of "
                           "early 2024 the PCIe link stayed down and the NVMe drive was not found",
                           eff.text),
               "update the bootloader (rpi-eeprom-update -a); drop PCIE_PROBE=1 for a HAT+ adapter (auto-detected), "
               "or try NVMe (6) before USB (4)",
               "raspberrypi/linux issue 5836; Raspberry Pi documentation, eeprom-bootloader: PCIE_PROBE"});
}

// A bootloader that predates USB boot (predates_usb_boot) cannot boot from USB whatever BOOT_ORDER
// says: boot-order-missing-mode's fix updates it first, and its set-boot-order command names a
// newer pieeprom.bin, not the image checked (check_config clears CheckOptions::image).
void rule_update_before_boot_order(const CheckInput& in, const CheckOptions& opt, Findings& f) {
  if (opt.want != Want::Usb || !predates_usb_boot(in.bootloader)) return;
  for (auto& m : f)
    if (m.rule == "boot-order-missing-mode")
      m.fix = fmt::format(
          "update the bootloader first: this {} one cannot boot from USB whatever BOOT_ORDER says (sudo "
          "rpi-eeprom-update -a, or flash a 2020-09-03 or later pieeprom.bin with rpi-eeprom-update -d -f); then {}",
          format_date(*in.bootloader->build_timestamp), m.fix);
}

// Line order; findings about the whole config (line 0) last.
void sort_by_line(Findings& f) {
  std::stable_sort(f.begin(), f.end(), [](const Finding& a, const Finding& b) {
    auto key = [](const Finding& x) { return x.line == 0 ? std::numeric_limits<int>::max() : x.line; };
    return key(a) < key(b);
  });
}
}  // namespace

EffectiveBootOrder effective_boot_order(const Config& cfg, Board board) {
  EffectiveBootOrder e;
  for (const auto& l : cfg.lines) {
    if (l.kind != LineKind::Setting || l.key != "BOOT_ORDER") continue;
    const Section* s = cfg.section_of(l);
    auto parsed = parse_boot_order(l.value);
    if (s && s->conditional()) {
      e.conditional.push_back({header(*s), l.number, l.value, parsed.order});
    } else if (!s || s->always()) {
      // A value that always applies replaces every one before it: the conditional ones and one set
      // under a model filter (a plain [all] one replaced again is duplicate-key's).
      for (auto& c : e.conditional) e.overridden.push_back(std::move(c));
      e.conditional.clear();
      if (e.line != 0 && !e.section.empty()) e.overridden.push_back({e.section, e.line, e.text, e.order});
      for (auto& o : e.overridden)
        if (o.overridden_by == 0) o.overridden_by = l.number;
      e.order = parsed.order;
      e.text = l.value;
      e.line = l.number;
      e.section = s && s->kind != SectionKind::All ? header(*s) : "";
    }
  }
  std::sort(e.overridden.begin(), e.overridden.end(),
            [](const ConditionalBootOrder& a, const ConditionalBootOrder& b) { return a.line < b.line; });
  if (e.line == 0) {
    e.order = boot_order_from_value(default_boot_order(board));
    e.text = format_boot_order(e.order->value);
  }
  std::map<std::string, std::string> levels;  // GPIO pin -> levels whose section sets BOOT_ORDER
  for (const auto& c : e.conditional) {
    const Section* s = cfg.section_of(cfg.lines[static_cast<std::size_t>(c.line - 1)]);
    if (s && s->kind == SectionKind::Gpio) levels[gpio_pin(*s)] += s->text.back();
  }
  for (const auto& [pin, seen] : levels)
    if (seen.find('0') != std::string::npos && seen.find('1') != std::string::npos && e.always_gpio.empty())
      e.always_gpio = pin;
  return e;
}

std::optional<Want> default_want(Board board, const EffectiveBootOrder& eff) {
  const int usb = want_mode(Want::Usb), nvme = want_mode(Want::Nvme);
  if (!board_has_mode(board, nvme)) return Want::Usb;
  for (const auto& o : orders_that_apply(eff)) {
    if (!o.order) continue;
    for (std::size_t i = 0; i < reachable_count(*o.order); ++i)
      if (o.order->modes[i] == usb || o.order->modes[i] == nvme)
        return o.order->modes[i] == usb ? Want::Usb : Want::Nvme;
  }
  return std::nullopt;  // none tries a drive: nothing wanted (rule boot-order-no-drive warns)
}

CheckReport check_config(const CheckInput& in, const CheckOptions& given) {
  CheckReport r;
  r.config = parse_config(in.config_text);
  apply_board(r.config, given.board);
  r.boot_order = effective_boot_order(r.config, given.board);
  CheckOptions opt = given;
  if (opt.want_from_board) opt.want = default_want(opt.board, r.boot_order);
  r.want = opt.want;
  if (opt.want == Want::Usb && predates_usb_boot(in.bootloader)) opt.image.clear();  // rule_update_before_boot_order
  const Config& cfg = r.config;
  Findings& f = r.findings;
  f = check_syntax(cfg);
  rule_config_size(cfg, f);
  rule_duplicate_key(cfg, f);
  rule_key_values(cfg, opt.board, f);
  rule_boot_order_lines(cfg, r.boot_order, opt, f);
  detail::rule_section_none_ignored(cfg, f);
  detail::rule_section_never_applies(cfg, opt.board, f);
  detail::rule_gpio_filter_range(cfg, opt.board, f);
  rule_boot_order_default(r.boot_order, opt, f);
  rule_boot_order_no_drive(r.boot_order, opt, f);
  rule_freeze_version(cfg, f);
  rule_power_off_on_halt(cfg, opt.board, f);
  rule_pcie_probe_order(cfg, r.boot_order, opt.board, f);
  append(f, check_version(in.bootloader, in.release_channel, opt.want));
  rule_update_before_boot_order(in, opt, f);
  sort_by_line(f);
  return r;
}

FailOn check_fail_on(bool strict) { return strict ? FailOn::Warning : FailOn::Error; }

}  // namespace piprov::eeprom
