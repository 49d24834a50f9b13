#include "eeprom/check.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <limits>
#include <map>

#include "eeprom/image.hpp"
#include "eeprom/keys.hpp"

namespace piprov::eeprom {
namespace {
constexpr const char* kNotes = "Raspberry Pi documentation, eeprom-bootloader: configuration properties";

std::string header(const Section& s) { return "[" + s.text + "]"; }

std::string condition_words(const Section& s) {
  if (s.kind == SectionKind::Gpio) {
    auto eq = s.text.find('=');
    return fmt::format("GPIO {} reads {} at boot", s.text.substr(4, eq - 4), s.text.substr(eq + 1));
  }
  return fmt::format("the board's serial number is {}", s.text);
}

// Last value of `key` in sections that always apply, with its line.
std::optional<std::pair<std::string, int>> unconditional_value(const Config& cfg, std::string_view key) {
  std::optional<std::pair<std::string, int>> out;
  for (const auto& l : cfg.lines) {
    if (l.kind != LineKind::Setting || l.key != key) continue;
    const Section* s = cfg.section_of(l);
    if (s && s->kind != SectionKind::All) continue;
    out = std::make_pair(l.value, l.number);
  }
  return out;
}
}  // namespace

int CheckReport::count(Severity s) const {
  return static_cast<int>(
      std::count_if(findings.begin(), findings.end(), [&](const Finding& f) { return f.severity == s; }));
}

EffectiveBootOrder effective_boot_order(const Config& cfg, Board board) {
  EffectiveBootOrder e;
  for (const auto& l : cfg.lines) {
    if (l.kind != LineKind::Setting || l.key != "BOOT_ORDER") continue;
    const Section* s = cfg.section_of(l);
    auto parsed = parse_boot_order(l.value);
    if (s && s->conditional()) {
      e.conditional.push_back({header(*s), l.number, l.value, parsed.order});
    } else if (!s || s->kind == SectionKind::All) {
      e.order = parsed.order;
      e.text = l.value;
      e.line = l.number;
    }
  }
  if (e.line == 0) {
    e.order = boot_order_from_value(default_boot_order(board));
    e.text = format_boot_order(e.order->value);
  }
  return e;
}

CheckReport check_config(const CheckInput& in, const CheckOptions& opt) {
  CheckReport r;
  r.config = parse_config(in.config_text);
  const Config& cfg = r.config;
  Findings& f = r.findings;
  f = cfg.findings;
  r.boot_order = effective_boot_order(cfg, opt.board);
  const auto& eff = r.boot_order;

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

  std::map<std::string, int> seen;  // unconditional key -> line
  std::map<int, int> none_counts;   // [none] header line -> settings under it
  for (const auto& l : cfg.lines) {
    if (l.kind != LineKind::Setting) continue;
    const Section* s = cfg.section_of(l);
    if (s && s->kind == SectionKind::None) {
      ++none_counts[s->line];
      continue;
    }
    if (s && s->ignored()) continue;  // unknown / EDID / [config.txt]: reported at the header
    const bool conditional = s && s->conditional();
    if (!conditional) {
      if (auto it = seen.find(l.key); it != seen.end())
        f.push_back({"duplicate-key", Severity::Warning, l.number, l.key,
                     fmt::format("{} is set again (first at line {}); the last value wins", l.key, it->second),
                     fmt::format("keep one {} line", l.key),
                     "config.txt syntax: later settings override earlier ones"});
      seen[l.key] = l.number;
    }
    if (l.key != "BOOT_ORDER") {
      auto kf = check_setting(l.key, l.value, l.number, opt.board);
      f.insert(f.end(), kf.begin(), kf.end());
      continue;
    }
    auto parsed = parse_boot_order(l.value);
    if (!parsed.order) {
      f.push_back({"boot-order-format", Severity::Error, l.number, "BOOT_ORDER", parsed.error,
                   fmt::format("write it as 0x followed by up to 8 hex nibbles, e.g. BOOT_ORDER={}",
                               format_boot_order(default_boot_order(opt.board))),
                   "Raspberry Pi documentation, eeprom-bootloader: BOOT_ORDER"});
      continue;
    }
    if (conditional) {
      f.push_back(
          {"boot-order-conditional", Severity::Info, l.number, "BOOT_ORDER",
           fmt::format("BOOT_ORDER={} applies only when {} ({}); otherwise {}{} applies", l.value, condition_words(*s),
                       header(*s), eff.text, eff.is_default() ? " (board default)" : ""),
           fmt::format("to make it unconditional, move it under [all] (e.g. piprov eeprom set-boot-order {})", l.value),
           "Raspberry Pi documentation, config_txt: conditional filters"});
      auto bf = check_boot_order(*parsed.order, l.number, opt.board, opt.want, header(*s));
      f.insert(f.end(), bf.begin(), bf.end());
    } else {
      bool effective = l.number == eff.line;
      auto bf = check_boot_order(*parsed.order, l.number, opt.board, effective ? opt.want : std::nullopt);
      f.insert(f.end(), bf.begin(), bf.end());
    }
  }
  for (const auto& [line, n] : none_counts)
    f.push_back({"section-none-ignored", Severity::Info, line, "",
                 fmt::format("{} setting(s) under [none] are never applied (release images park FREEZE_VERSION=0 "
                             "there)",
                             n),
                 "move a setting under [all] if you want it to take effect", kNotes});

  if (eff.is_default()) {
    f.push_back({"boot-order-default", Severity::Info, 0, "BOOT_ORDER",
                 fmt::format("BOOT_ORDER is not set{}: the {} default {} applies ({})",
                             eff.conditional.empty() ? "" : " outside conditional sections", board_title(opt.board),
                             eff.text, boot_order_words(*eff.order, opt.board)),
                 "nothing to do unless you want another order",
                 "Raspberry Pi documentation, eeprom-bootloader: BOOT_ORDER"});
    auto bf = check_boot_order(*eff.order, 0, opt.board, opt.want);
    f.insert(f.end(), bf.begin(), bf.end());
  }

  auto freeze = unconditional_value(cfg, "FREEZE_VERSION");
  if (freeze && freeze->first == "1")
    f.push_back({"freeze-version-set", Severity::Warning, freeze->second, "FREEZE_VERSION",
                 "FREEZE_VERSION=1: rpi-eeprom-update -a skips every bootloader update (including ones that add USB/"
                 "NVMe boot fixes)",
                 "set FREEZE_VERSION=0 unless you pin this release on purpose",
                 "rpi-eeprom-update (\"EEPROM version is frozen. Skipping update\")"});
  auto poweroff = unconditional_value(cfg, "POWER_OFF_ON_HALT");
  auto wake = unconditional_value(cfg, "WAKE_ON_GPIO");
  if (poweroff && poweroff->first == "1" && (!wake || wake->first == "1"))
    f.push_back({"power-off-on-halt-ignored", Severity::Warning, poweroff->second, "POWER_OFF_ON_HALT",
                 fmt::format("POWER_OFF_ON_HALT=1 has no effect while WAKE_ON_GPIO=1{}",
                             wake ? fmt::format(" (line {})", wake->second) : " (the default)"),
                 "set WAKE_ON_GPIO=0 as well to power off on halt", kNotes});

  auto vf = check_version(in.bootloader, in.release_channel, opt.want);
  f.insert(f.end(), vf.begin(), vf.end());

  std::stable_sort(f.begin(), f.end(), [](const Finding& a, const Finding& b) {
    auto key = [](const Finding& x) { return x.line == 0 ? std::numeric_limits<int>::max() : x.line; };
    return key(a) < key(b);
  });
  return r;
}

int check_exit_code(const CheckReport& r, bool strict) {
  if (r.count(Severity::Error) > 0) return 1;
  if (strict && r.count(Severity::Warning) > 0) return 1;
  return 0;
}

}  // namespace piprov::eeprom
