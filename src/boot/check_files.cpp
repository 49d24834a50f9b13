// boot check: config.txt and the files it includes (lint, missing includes, template values,
// bootloader EEPROM keys), the files a config.txt names (device_tree=, armstub=, the board's DTB),
// the size of config.txt, template values left in cmdline.txt (check_ctx.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <climits>

#include <regex>

#include "boot/check_ctx.hpp"
#include "boot/config_txt.hpp"
#include "boot/layout.hpp"
#include "core/board.hpp"
#include "core/strings.hpp"
#include "eeprom/keys.hpp"

namespace fs = std::filesystem;

namespace piprov::boot::detail {
namespace {

constexpr const char* kDtDoc = "Raspberry Pi documentation, config_txt: device_tree, os_prefix, upstream_kernel";
constexpr const char* kDtEmptyDoc =
    "Raspberry Pi documentation, config_txt: device_tree (empty: no device tree is loaded); Linux "
    "Documentation/arch/arm64/booting.rst: device tree data";
constexpr const char* kArmstubDoc = "Raspberry Pi documentation, config_txt: armstub";

bool boot_file_exists(const Ctx& c, const std::string& rel) {
  return !rel.empty() && partition_has_file(c.o.boot_dir, rel);
}

std::string line_note(const EffectiveValue& v) { return " (" + v.file + " line " + std::to_string(v.line) + ")"; }

/// The board's own DTB (board_dtbs), looked up under os_prefix, or upstream/ with upstream_kernel=1
/// and no os_prefix: "" when found, else the missing-DTB message tail and the path it wants.
struct OwnDtbSearch {
  bool found = false;
  bool upstream = false;  ///< upstream_kernel=1 and no os_prefix: upstream/ was searched too
  std::string own;        ///< os_prefix + the board's first DTB name
};

OwnDtbSearch find_own_dtb(const Ctx& c, const ConfigTxt& config, const IncludeLoader& loader) {
  const auto& rb = c.r.resolved;
  OwnDtbSearch s;
  std::vector<std::string> dirs{rb.os_prefix};
  auto up = config.effective("upstream_kernel", filter_board(rb.board), loader);
  // upstream_kernel=1 without os_prefix: the firmware sets os_prefix=upstream/, ignored when its files are missing.
  s.upstream = up && up->value == "1" && rb.os_prefix.empty();
  if (s.upstream) dirs.insert(dirs.begin(), "upstream/");
  const auto names = board_dtbs(rb.board);
  for (const auto& dir : dirs)
    for (auto n : names)
      if (boot_file_exists(c, dir + std::string(n))) s.found = true;
  s.own = rb.os_prefix + std::string(names.front());
  return s;
}

/// device_tree= (a file under os_prefix; an empty value loads none) or the board's own DTB.
void check_dtb(Ctx& c, const ConfigTxt& config, const IncludeLoader& loader) {
  const auto& rb = c.r.resolved;
  const Board b = filter_board(rb.board);
  const std::string prefix_note = rb.os_prefix.empty() ? "" : " under os_prefix=" + rb.os_prefix;
  const OwnDtbSearch own_dtb = find_own_dtb(c, config, loader);
  if (auto dt = config.effective("device_tree", b, loader)) {
    if (dt->value.empty()) {
      // device_tree= (empty): the firmware loads no device tree at all, whatever .dtb files the
      // partition holds. A Linux kernel cannot boot without one; U-Boot's script may load its own.
      if (c.uboot) return;
      Ctx::locate(c.add(Severity::Error, "device-tree-empty",
                        "device_tree=" + line_note(*dt) +
                            " is empty: the firmware loads no device tree, and the Linux kernel " + rb.kernel +
                            " cannot boot without one",
                        // The fallback is promised only when it is there (else removing the line
                        // would give dtb-missing): then the fix says to put it on the partition too.
                        own_dtb.found ? "remove the empty device_tree= line (the firmware then loads the " + c.board +
                                            "'s own " + own_dtb.own + ") or name a .dtb on the partition"
                                      : "remove the empty device_tree= line and put the " + c.board + "'s own " +
                                            own_dtb.own + " on the partition (it is not there either), " +
                                            "or name a .dtb that is on the partition",
                        kDtEmptyDoc),
                  dt->line, "device_tree");
      return;
    }
    const std::string rel = prefixed_path(rb.os_prefix, dt->value);
    if (boot_file_exists(c, rel)) return;
    auto put_fix = [](const std::string& file) {
      return fs::path(file).filename() == file ? "put " + file + " on the boot partition"
                                               : "copy " + fs::path(file).filename().string() + " to " + file;
    };
    std::string fix;
    const std::string comment = comment_in_name_note(c, *dt, "device_tree", rb.os_prefix, fix, put_fix);
    Ctx::locate(
        c.add(Severity::Error, "device-tree-missing",
              "device_tree=" + dt->value + line_note(*dt) + ": " + rel + " does not exist in " + c.o.boot_dir.string() +
                  os_prefix_note(rb.os_prefix, "device_tree=" + dt->value, dt->value, prefix_note) +
                  (rel == rb.prefix_missing ? prefix_fallback_note(c) : "") + comment,
              comment.empty() ? put_fix(rel) + " or correct device_tree=" : fix, kDtDoc),
        dt->line, "device_tree");
    return;
  }
  if (own_dtb.found) return;
  const auto names = board_dtbs(rb.board);
  const std::string& own = own_dtb.own;
  std::string also;
  for (std::size_t i = 1; i < names.size(); ++i) also += (also.empty() ? " (or " : ", ") + std::string(names[i]);
  if (!also.empty()) also += ")";
  c.add(Severity::Error, "dtb-missing",
        "the " + c.board + " device tree " + own + also + " does not exist in " + c.o.boot_dir.string() + prefix_note +
            (own_dtb.upstream ? " nor in upstream/ (upstream_kernel=1)" : "") +
            ": the firmware has no device tree to pass to the kernel" +
            (own == rb.prefix_missing ? prefix_fallback_note(c) : ""),
        !pi5_unsupported_fix(c).empty()
            ? pi5_unsupported_fix(c) + "; its kernel package has no " + std::string(names.front()) +
                  ", which comes with the kernels that support the " + c.board +
                  " (Ubuntu's linux-raspi from 23.10 on, Raspberry Pi OS's linux-image-rpi-2712)"
        : c.layout() == LayoutId::Unknown ? reinstall_kernel_fix(c, own)
        : own == names.front()            ? "put " + own + " from the kernel package (its dtbs) on the boot partition"
                               : "copy " + std::string(names.front()) + " from the kernel package (its dtbs) to " + own,
        kDtDoc);
}

/// armstub=: a file at the partition root (os_prefix does not apply to it).
void check_armstub(Ctx& c, const ConfigTxt& config, const IncludeLoader& loader) {
  auto a = config.effective("armstub", filter_board(c.r.resolved.board), loader);
  if (!a || a->value.empty()) return;
  const std::string rel = prefixed_path("", a->value);
  if (boot_file_exists(c, rel)) return;
  std::string fix;
  const std::string comment = comment_in_name_note(c, *a, "armstub", "", fix, [](const std::string& file) {
    return "copy the ARM stub " + file + " to the boot partition";
  });
  Ctx::locate(
      c.add(
          Severity::Error, "armstub-missing",
          "armstub=" + a->value + line_note(*a) + ": " + rel + " does not exist in " + c.o.boot_dir.string() + comment,
          comment.empty() ? "copy the ARM stub " + rel + " to the boot partition or remove the armstub= line" : fix,
          kArmstubDoc),
      a->line, "armstub");
}

constexpr const char* kTemplateFix = "build the image so that the template is filled in, or write the real value";

}  // namespace

std::string template_value_in(std::string_view text) {
  static const std::regex re(R"(\$\{[A-Za-z_][A-Za-z0-9_]*\}|@[A-Za-z_][A-Za-z0-9_]*@)");
  std::match_results<std::string_view::const_iterator> m;
  if (std::regex_search(text.begin(), text.end(), m, re)) return m.str();
  return "";
}

std::vector<std::string> template_values_in(std::string_view text) {
  static const std::regex re(R"(\$\{[A-Za-z_][A-Za-z0-9_]*\}|@[A-Za-z_][A-Za-z0-9_]*@)");
  std::vector<std::string> out;
  for (std::regex_iterator<std::string_view::const_iterator> it(text.begin(), text.end(), re), end; it != end; ++it)
    out.push_back(it->str());
  return out;
}

bool is_placeholder_word(std::string_view v) {
  static const std::regex re(R"([A-Z][A-Z0-9_]*(DEV|UUID))");
  return v.size() >= 5 && std::regex_match(v.begin(), v.end(), re);
}

void check_config_files(Ctx& c, const ConfigTxt& config, const IncludeLoader& loader) {
  check_dtb(c, config, loader);
  check_armstub(c, config, loader);
  check_conditional_files(c, config, loader);
}

void check_config_size(Ctx& c) {
  std::size_t total = 0;
  for (const auto& [name, size] : c.config_sizes) total += size;
  if (total <= kConfigSizeLimit) return;
  std::string msg = fmt::format("config.txt is {} bytes, over {} KiB: ", total, kConfigSizeLimit / 1024);
  std::vector<std::string> files, parts;
  for (const auto& [name, size] : c.config_sizes) {
    files.push_back(name);
    parts.push_back(fmt::format("{} {} bytes", name, size));
  }
  if (files.size() > 1)
    msg = fmt::format(
        "config.txt and the files it includes are {} bytes, over {} KiB ({}): include inserts a file's content, so "
        "the firmware parses them as one config and the included text counts; ",
        total, kConfigSizeLimit / 1024, join(parts, ", "));
  const std::string last = files.back();
  files.pop_back();
  c.add(Severity::Warning, "config-too-large",
        msg + "a Pi 5 has been reported not to boot with a 49 KB config.txt (mostly comments)",
        "remove comments and unused sections from " + (files.empty() ? last : join(files, ", ") + " and " + last),
        "raspberrypi/firmware issue 1848; meta-raspberrypi warns at 16 KiB; Raspberry Pi documentation, config_txt: "
        "include");
}

namespace {
// program_usb_boot_mode / program_usb_boot_timeout: they program the USB boot bits in the OTP of
// a Raspberry Pi 3 (2B v1.2, 3A+, 3B, CM3); a Pi 4 or Pi 5 family board boots from USB by the
// bootloader's BOOT_ORDER in its EEPROM and does nothing with them (Raspberry Pi documentation,
// raspberry-pi: USB boot modes; eeprom-bootloader: BOOT_ORDER).
void check_otp_usb_boot_line(Ctx& c, const ConfigLine& l, const std::string& name, std::size_t line) {
  if (l.key != "program_usb_boot_mode" && l.key != "program_usb_boot_timeout") return;
  Ctx::locate(c.add(Severity::Warning, "config-otp-usb-boot",
                    name + " line " + std::to_string(line) + ": " + l.key +
                        " programs the USB boot bits in the OTP of a Raspberry Pi 3; a " + c.board +
                        " does nothing with it: its bootloader, in the EEPROM, boots from USB as BOOT_ORDER says",
                    "remove " + l.key + " from " + name +
                        "; to boot from USB, set BOOT_ORDER in the bootloader config (sudo rpi-eeprom-config --edit, "
                        "or piprov eeprom set-boot-order) and check it with piprov eeprom check",
                    "Raspberry Pi documentation, raspberry-pi: USB boot modes; eeprom-bootloader: BOOT_ORDER"),
              line, l.key);
}
}  // namespace

void check_config_lines(Ctx& c, const ConfigTxt& config, const std::string& name) {
  const auto& lines = config.lines();
  const std::string model = filter_board(c.r.resolved.board).model;
  bool model_applies = true;  // no model filter, or one that matches the board (a [pi3] one does not)
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto& l = lines[i];
    if (l.kind == LineKind::Comment || l.kind == LineKind::Blank) continue;
    std::vector<std::string> t = template_values_in(l.text);
    if (t.empty() && l.kind == LineKind::Setting && is_placeholder_word(l.value)) t = {l.value};
    if (!t.empty())
      Ctx::locate(c.add(Severity::Error, "template-value",
                        name + " line " + std::to_string(i + 1) + " holds the unexpanded template value" +
                            (t.size() > 1 ? "s " : " ") + join(t, ", ") + ": this " + name +
                            " is a template, not the file an image boots with",
                        kTemplateFix),
                  i + 1, l.key);
    if (l.kind == LineKind::Section) {
      const std::string f = to_lower(l.key);
      if (f == "all") model_applies = true;
      if (is_model_filter(f)) model_applies = model_filter_matches(f, model);
    }
    if (l.kind != LineKind::Setting || l.key.empty()) continue;
    if (model_applies) check_otp_usb_boot_line(c, l, name, i + 1);
    // Only the bootloader's own keys (the eeprom key table), in any case (boot_order is BOOT_ORDER
    // mistyped): an upper-case config.txt key of old firmware (HDMI_FORCE_HOTPLUG) is not one.
    const eeprom::KeyRule* k = eeprom::find_key_any_case(l.key);
    if (!k) continue;
    const std::string key(k->key);
    const std::string it = key == l.key ? std::string("it") : l.key;
    // A key of the other family's bootloader (the eeprom key table's boards): moving it into this
    // board's bootloader config would do nothing either (eeprom check: key-wrong-board).
    const bool other_board = model_applies && !eeprom::key_on_board(*k, c.r.resolved.board);
    Ctx::locate(
        c.add(Severity::Warning, "config-eeprom-key",
              name + " line " + std::to_string(i + 1) + ": " +
                  (key == l.key ? key + " is a bootloader EEPROM setting, which the firmware ignores in config.txt"
                                : l.key + " is the bootloader EEPROM setting " + key +
                                      ", not a config.txt option: the firmware ignores it in config.txt"),
              other_board ? key + " is a " + (k->boards == eeprom::kPi5 ? "Pi 5" : "Pi 4") + " bootloader key: a " +
                                c.board + " ignores it; remove " + it + " from " + name
                          : "put " + key + "=" + l.value +
                                " in the bootloader config (rpi-eeprom-config --edit, or piprov eeprom) and remove " +
                                it + " from " + name,
              "Raspberry Pi documentation, raspberry-pi: bootloader configuration"),
        i + 1, l.key);
  }
}

void check_config_tree(Ctx& c, const ConfigTxt& config, const std::string& name, const IncludeLoader& loader,
                       std::vector<std::string> chain) {
  chain.push_back(partition_relative(name).value_or(name));
  const int depth = static_cast<int>(chain.size()) - 1;
  const std::size_t first = c.r.findings.size();
  // Each file once for config-too-large (a file included twice is read twice, but counted once).
  if (std::none_of(c.config_sizes.begin(), c.config_sizes.end(),
                   [&](const auto& s) { return s.first == chain.back(); }))
    c.config_sizes.emplace_back(chain.back(), config.to_string().size());
  for (auto f : config.lint()) {
    f.rule = "config-" + f.rule;
    f.message = name + ": " + f.message;
    f.fix += " (" + name + " line " + std::to_string(f.line) + ")";
    c.r.findings.push_back(std::move(f));
  }
  check_config_lines(c, config, name);
  std::vector<std::pair<std::string, ConfigTxt>> included;
  const auto& lines = config.lines();
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto& l = lines[i];
    if (l.kind != LineKind::Directive || l.key != "include") continue;
    if (auto inc = loader(l.value)) {
      // A file already being read (config.txt including itself, a.txt -> b.txt -> a.txt): include inserts
      // the file's content at its line, so it would hold itself without end. Named, and read once.
      const std::string rel = partition_relative(l.value).value_or(l.value);
      if (std::find(chain.begin(), chain.end(), rel) != chain.end()) {
        Ctx::locate(
            c.add(Severity::Warning, "include-loop",
                  name + ": `include " + l.value + "` includes " + rel + ", which is already being read (" +
                      join(chain, " includes ") + " includes " + rel +
                      "): an include loop (include inserts the file's content at its line, so the file would hold "
                      "itself; the documentation says nothing of what the firmware then does)",
                  "remove the include line (" + name + " line " + std::to_string(i + 1) + ")",
                  "Raspberry Pi documentation, config_txt: include"),
            i + 1, "include");
        continue;
      }
      included.emplace_back(l.value, std::move(*inc));
      continue;
    }
    // The firmware reads an include from the boot partition, a leading '/' meaning its root.
    const auto rel = partition_relative(l.value);
    std::string fix;
    const std::string comment =
        rel ? comment_in_name_note(c, EffectiveValue{l.value, name, i + 1, "", ""}, "include", "", fix,
                                   [&](const std::string& file) {
                                     return "create " + (c.o.boot_dir / file).string() +
                                            " (empty, if it has nothing to add)";
                                   })
            : "";
    Ctx::locate(
        rel ? c.add(Severity::Error, "include-missing",
                    name + ": `include " + l.value + "` names a missing file: " + *rel + " does not exist in " +
                        c.o.boot_dir.string() + comment,
                    comment.empty() ? "create " + (c.o.boot_dir / *rel).string() +
                                          " (empty, if it has nothing to add) or remove the include line"
                                    : fix,
                    "Raspberry Pi documentation, config_txt: include")
            : c.add(Severity::Error, "include-missing",
                    name + ": `include " + l.value + "` names a file outside the boot partition (its .. leaves " +
                        c.o.boot_dir.string() + "): the firmware reads only files on the boot partition",
                    "name a file on the boot partition or remove the include line",
                    "Raspberry Pi documentation, config_txt: include"),
        i + 1, "include");
  }
  // The files config.txt names (device_tree=, armstub=, the board's DTB) are its lines too: sorted
  // with them (docs/boot.md: "each in line order").
  if (depth == 0) check_config_files(c, config, loader);
  // A missing file's finding that names its '#' (comment_in_name_note) replaces the lint's.
  c.r.findings.erase(std::remove_if(c.r.findings.begin() + static_cast<long>(first), c.r.findings.end(),
                                    [&](const Finding& f) {
                                      return f.rule == "config-inline-comment" &&
                                             std::find(c.comment_in_name.begin(), c.comment_in_name.end(),
                                                       std::make_pair(name, static_cast<std::size_t>(f.line))) !=
                                                 c.comment_in_name.end();
                                    }),
                     c.r.findings.end());
  std::stable_sort(c.r.findings.begin() + static_cast<long>(first), c.r.findings.end(),
                   [](const Finding& a, const Finding& b) {  // about the file as a whole (line 0): last
                     return (a.line == 0 ? INT_MAX : a.line) < (b.line == 0 ? INT_MAX : b.line);
                   });
  if (depth >= 4) return;
  for (const auto& [inc_name, inc] : included) check_config_tree(c, inc, inc_name, loader, chain);
}

void check_cmdline_text(Ctx& c, const CmdlineTxt& cmdline) {
  const std::string& file = c.r.cmdline_file;
  // One finding per parameter holding template values, each value named (was only the first of
  // the whole line): `resume=SWAPDEV foo=@X@ bar=${Y}` is three.
  for (const auto& p : cmdline.params()) {
    auto eq = p.find('=');
    const std::string key = eq == std::string::npos ? "" : p.substr(0, eq);
    if (auto t = template_values_in(p); !t.empty()) {
      Ctx::locate(c.add(Severity::Error, "template-value",
                        file + ": " + p + " holds the unexpanded template value" + (t.size() > 1 ? "s " : " ") +
                            join(t, ", ") + ": this cmdline is a template, not the one an image boots with",
                        kTemplateFix),
                  1, key);
      continue;
    }
    if (eq == std::string::npos) continue;
    std::string_view v = std::string_view(p).substr(eq + 1);
    for (const char* k : {"PARTUUID=", "UUID=", "LABEL="})
      if (v.rfind(k, 0) == 0) v.remove_prefix(std::string_view(k).size());
    if (!is_placeholder_word(v) || p.rfind("root=", 0) == 0) continue;  // root=: check_root's root-placeholder
    Ctx::locate(c.add(Severity::Error, "template-value",
                      file + ": " + p + " holds the placeholder " + std::string(v) +
                          ", which the image build replaces: this cmdline is a template",
                      kTemplateFix),
                1, key);
  }
}

}  // namespace piprov::boot::detail
