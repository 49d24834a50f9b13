#include "boot/autoboot.hpp"

#include <charconv>

#include "boot/config_txt.hpp"
#include "boot/layout.hpp"
#include "core/file.hpp"
#include "core/strings.hpp"

namespace fs = std::filesystem;

namespace piprov::boot {
namespace {

/// "2" -> 2; nullopt for anything but 1-2 decimal digits.
std::optional<int> autoboot_number(const std::string& v) {
  int n = 0;
  if (v.empty() || v.size() > 2) return std::nullopt;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc() || p != v.data() + v.size()) return std::nullopt;
  return n;
}

}  // namespace

Autoboot parse_autoboot(std::string_view bytes) {
  Autoboot a;
  a.bytes = bytes.size();
  auto cfg = ConfigTxt::parse(bytes);
  enum class Sec { All, None, Tryboot, Other } sec = Sec::All;
  const auto& lines = cfg.lines();
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto& l = lines[i];
    if (l.kind == LineKind::Section) {
      std::string f = to_lower(l.key);
      if (f == "all")
        sec = Sec::All;
      else if (f == "none")
        sec = Sec::None;
      else if (f == "tryboot")
        sec = Sec::Tryboot;
      else {
        sec = Sec::Other;
        a.bad_sections.emplace_back(i + 1, l.key);
      }
      continue;
    }
    if (l.kind != LineKind::Setting || !l.has_equals) continue;
    if (sec != Sec::All && sec != Sec::Tryboot) continue;
    const std::string key = to_lower(l.key);
    if (key == "boot_partition") {
      auto n = autoboot_number(l.value);
      if (!n) {
        a.bad_values.emplace_back(i + 1, l.value);
        continue;
      }
      if (sec == Sec::All) {
        a.partition = n;
        a.partition_line = i + 1;
      } else {
        a.tryboot_partition = n;
        a.tryboot_line = i + 1;
      }
    } else if (key == "tryboot_a_b" && sec == Sec::All) {
      a.tryboot_a_b = l.value == "1";
    }
  }
  return a;
}

std::optional<Autoboot> read_autoboot(const fs::path& boot_dir) {
  auto text = read_partition_file(boot_dir, kAutobootTxt);
  if (!text) return std::nullopt;
  return parse_autoboot(*text);
}

bool autoboot_only(const fs::path& boot_dir) {
  std::error_code ec;
  return partition_has_file(boot_dir, kAutobootTxt) && !fs::exists(boot_dir / "config.txt", ec) &&
         !partition_has_file(boot_dir, "config.txt");
}

Findings autoboot_lint(const Autoboot& a, bool required) {
  Findings out;
  auto add = [&](Severity s, std::string rule, std::size_t line, std::string key, std::string msg, std::string fix) {
    out.push_back(Finding{std::move(rule), s, static_cast<int>(line), std::move(key), std::move(msg), std::move(fix),
                          kAutobootSource});
  };
  if (a.bytes > kAutobootLimit)
    add(Severity::Error, "autoboot-too-large", 0, "",
        "autoboot.txt is " + std::to_string(a.bytes) + " bytes; the bootloader reads at most " +
            std::to_string(kAutobootLimit),
        "shorten autoboot.txt to 512 bytes or less (remove comments)");
  for (const auto& [line, f] : a.bad_sections)
    add(Severity::Warning, "autoboot-unknown-section", line, "",
        "autoboot.txt: [" + f +
            "] is not a filter autoboot.txt supports (only [all], [none], [tryboot]); "
            "the settings under it are ignored here",
        "use [all] or [tryboot], or move board filters to config.txt of the partition that boots");
  for (const auto& [line, v] : a.bad_values)
    add(Severity::Error, "autoboot-bad-partition", line, "boot_partition",
        "autoboot.txt: boot_partition=" + v + " is not a partition number", "write boot_partition=N with N a number");
  if (required && (!a.partition || *a.partition == 0))
    add(Severity::Error, "autoboot-no-partition", a.partition_line, "boot_partition",
        std::string("autoboot.txt has ") + (a.partition ? "boot_partition=0" : "no boot_partition under [all]") +
            " and there is no config.txt beside it: the bootloader looks for the first bootable FAT partition, "
            "and this one is not",
        "add boot_partition=N (the partition with the boot files) under [all]");
  return out;
}

std::string autoboot_summary(const Autoboot& a) {
  std::string s = a.partition ? "partition " + std::to_string(*a.partition) : std::string("no boot_partition");
  std::string extra;
  if (a.tryboot_partition) extra = "[tryboot] partition " + std::to_string(*a.tryboot_partition);
  if (a.tryboot_a_b) extra += (extra.empty() ? "" : ", ") + std::string("tryboot_a_b=1");
  return extra.empty() ? s : s + " (" + extra + ")";
}

}  // namespace piprov::boot
