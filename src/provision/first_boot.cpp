#include "provision/first_boot.hpp"

#include <algorithm>

#include "boot/cmdline_txt.hpp"
#include "boot/layout.hpp"
#include "core/atomic_file.hpp"
#include "core/file.hpp"
#include "core/strings.hpp"

namespace fs = std::filesystem;

namespace piprov::provision {
namespace {

/// Replaces the PARTUUIDs in `file`; returns the count (0: file untouched).
int rewrite(const fs::path& file, const image::DiskIdentity& id) {
  auto text = read_file_if_exists(file);
  if (!text) return 0;
  int n = 0;
  std::string out = image::replace_partuuids(*text, id.partuuids, &n);
  if (n > 0) atomic_write(file, out);
  return n;
}

}  // namespace

std::vector<std::string> cmdline_files(const fs::path& boot_dir) {
  std::vector<std::string> names = {"cmdline.txt", "nobtcmd.txt", "btcmd.txt"};
  // The cmdline file the firmware uses (cmdline=, os_prefix) on each SoC family.
  if (fs::exists(boot_dir / "config.txt")) {
    auto layout = boot::detect_layout(boot_dir);
    for (PiBoard b : {PiBoard::Pi4, PiBoard::Pi5}) names.push_back(boot::resolve_boot(boot_dir, layout, b).cmdline);
  }
  for (const char* prefix : {"current/", "new/", "old/"}) names.push_back(std::string(prefix) + "cmdline.txt");
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& n : names)
    if (std::find(out.begin(), out.end(), n) == out.end() && fs::is_regular_file(boot_dir / n, ec)) out.push_back(n);
  return out;
}

std::string regdom_text(const std::string& country, const std::vector<std::string>& set) {
  return "cfg80211.ieee80211_regdom=" + country + " in " +
         (set.empty() ? std::string("the cmdline (already set)") : join(set, ", "));
}

std::string wifi_without_country_note() {
  return "none given: without a country the Pi's Wi-Fi may stay blocked (raspberrypi/rpi-imager issues 1066, "
         "1123) unless the image sets one; give --wifi-country CC (e.g. GB)";
}

std::vector<std::string> set_wifi_regdom(const fs::path& boot_dir, const std::string& country) {
  std::vector<std::string> changed;
  for (const auto& name : cmdline_files(boot_dir)) {
    auto text = read_file_if_exists(boot_dir / name);
    if (!text) continue;
    auto cmdline = boot::CmdlineTxt::parse(*text);
    if (!cmdline.set("cfg80211.ieee80211_regdom", country)) continue;
    atomic_write(boot_dir / name, cmdline.to_string());
    changed.push_back(name);
  }
  return changed;
}

SeedOutcome rewrite_partuuid_references(const fs::path& boot_dir, const fs::path& root_dir,
                                        const image::DiskIdentity& id) {
  SeedOutcome r;
  for (const auto& name : cmdline_files(boot_dir))
    if (int n = rewrite(boot_dir / name, id)) {
      r.rewritten.push_back(name);
      r.partuuid_references += n;
    }
  if (int n = rewrite(root_dir / "etc/fstab", id)) {
    r.rewritten.push_back("/etc/fstab");
    r.partuuid_references += n;
  }
  return r;
}

}  // namespace piprov::provision
