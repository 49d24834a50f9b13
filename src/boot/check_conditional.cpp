// boot check: the files config.txt names under a conditional filter ([gpioN=v], [tryboot],
// [0xSERIAL], [EDID=...]), and a '#' comment inside a file name (check_ctx.hpp).
#include <regex>

#include "boot/check_ctx.hpp"
#include "boot/config_txt.hpp"
#include "boot/layout.hpp"
#include "core/strings.hpp"

namespace piprov::boot::detail {
namespace {

constexpr const char* kConditionalDoc = "Raspberry Pi documentation, config_txt: conditional filters";

/// When the firmware reads a line under CONDITIONS ("[gpio4=1][tryboot]", EffectiveValue::conditions):
/// "when GPIO4 is high and in a trial boot (reboot \"0 tryboot\")".
std::string conditions_when(const std::string& conditions) {
  static const std::regex gpio(R"(gpio(\d+)=(\d+))", std::regex::icase);
  std::vector<std::string> out;
  for (const auto& part : split(conditions, ']')) {
    const std::string f(trim(part.substr(std::min(part.size(), part.find('[') + 1))));
    if (f.empty()) continue;
    std::smatch m;
    const std::string lower = to_lower(f);
    if (std::regex_match(f, m, gpio))
      out.push_back("when GPIO" + m[1].str() + " is " + (m[2].str() == "0" ? "low" : "high"));
    else if (lower == "tryboot")
      out.push_back("in a trial boot (reboot \"0 tryboot\")");
    else if (lower.rfind("0x", 0) == 0)
      out.push_back("on the board whose serial number is " + f);
    else if (lower.rfind("edid=", 0) == 0)
      out.push_back("with a display whose EDID name is " + f.substr(5));
    else
      out.push_back("when [" + f + "] holds");
  }
  return join(out, " and ");
}

}  // namespace

void check_conditional_files(Ctx& c, const ConfigTxt& config, const IncludeLoader& loader) {
  Board b = filter_board(c.r.resolved.board);
  b.conditions_hold = true;
  const std::string& prefix = c.r.resolved.os_prefix;
  for (const char* key : {"kernel", "initramfs", "cmdline", "device_tree", "armstub"}) {
    for (const auto& v : config.effective_all(key, b, loader)) {
      if (v.conditions.empty()) continue;
      const std::string k(key);
      // initramfs FILE [followkernel|ADDRESS]: the file is the first word.
      const std::string name = k == "initramfs" ? v.value.substr(0, v.value.find_first_of(" \t")) : v.value;
      if (name.empty()) continue;
      const std::string rel = prefixed_path(k == "armstub" ? "" : prefix, name);
      if (partition_has_file(c.o.boot_dir, rel)) continue;
      // os_prefix is ignored when the prefixed kernel is missing but the plain one is there (os_prefix:
      // the firmware uses the prefix only with its kernel and .dtb).
      if (k == "kernel" && !prefix.empty() && partition_has_file(c.o.boot_dir, prefixed_path("", name))) continue;
      const std::string written = k + (k == "initramfs" ? " " : "=") + v.value;
      Ctx::locate(c.add(Severity::Info, "conditional-file-missing",
                        written + " under " + v.conditions + " (" + v.file + " line " + std::to_string(v.line) +
                            "): " + rel + " does not exist on the boot partition (the firmware loads it " +
                            conditions_when(v.conditions) + "; the default boot checked here does not)",
                        "put " + rel + " on the boot partition, or correct or remove the " + k +
                            (k == "initramfs" ? "" : "=") + " line under " + v.conditions,
                        kConditionalDoc),
                  v.line, k);
    }
  }
}

std::string comment_in_name_note(Ctx& c, const EffectiveValue& v, const std::string& key, const std::string& prefix,
                                 std::string& fix, const std::function<std::string(const std::string&)>& missing_fix) {
  const auto hash = v.value.find('#');
  if (hash == std::string::npos) return "";
  const std::string name(trim(std::string_view(v.value).substr(0, hash)));
  c.comment_in_name.emplace_back(v.file, v.line);
  fix = "move the comment to its own line: " + key + (key == "include" ? " " : "=") + name + " (" + v.file + " line " +
        std::to_string(v.line) + ")";
  const std::string rel = prefixed_path(prefix, name);
  if (name.empty() || !partition_has_file(c.o.boot_dir, rel))
    fix += "; " + (name.empty() ? std::string("it names no file") : rel + " is not on the boot partition either") +
           ": " + missing_fix(rel);
  return ": '#' after a value is not a comment, so the firmware looks for a file named \"" + v.value + "\"";
}

}  // namespace piprov::boot::detail
