// The apt hook and Debian's raspi-firmware hook, as boot check judges them (check_ctx.hpp:
// check_hook(), check_raspi_firmware()).
#include <filesystem>
#include <optional>
#include <string>

#include "boot/apt_hook.hpp"
#include "boot/check_ctx.hpp"
#include "boot/cmdline_txt.hpp"
#include "boot/layout.hpp"
#include "boot/patch.hpp"
#include "core/board.hpp"
#include "core/file.hpp"
#include "core/strings.hpp"

namespace fs = std::filesystem;

namespace piprov::boot::detail {
namespace {

// The systemd path unit installed with the apt hook: it covers `dpkg -i` and a manual flash-kernel.
void check_hook_units(Ctx& c, const fs::path& root, const HookStatus& st, const std::string& fix) {
  const std::string why = ": a kernel installed by `dpkg -i` or a manual `flash-kernel` (no apt) leaves vmlinux stale";
  if (!st.units_installed)
    c.add(Severity::Warning, "hook-unit-missing",
          "the systemd units " + (root / kHookPathUnitRel).string() +
              " and piprov-kernel-sync.service are not installed" + why,
          fix);
  else if (!st.unit_enabled)
    c.add(Severity::Warning, "hook-unit-disabled",
          "piprov-kernel-sync.path is not enabled (no " + (root / kHookPathUnitWantsRel).string() + ")" + why, fix);
}

constexpr const char* kRaspiFirmwareSource =
    "Debian package raspi-firmware: /etc/kernel/postinst.d/z50-raspi-firmware, /etc/default/raspi-firmware "
    "(https://raspi.debian.net)";

/// ROOTPART= in ROOT/etc/default/raspi-firmware (the last uncommented one, quotes removed), "" when unset.
std::string raspi_firmware_rootpart(const fs::path& root) {
  std::string out;
  auto text = read_file_if_exists(root / kRaspiFirmwareDefaultsRel);
  if (!text) return out;
  for (const auto& line : split(*text, '\n')) {
    auto t = trim(line);
    if (t.rfind("ROOTPART=", 0) != 0) continue;
    std::string v(trim(t.substr(9)));
    if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front())
      v = v.substr(1, v.size() - 2);
    out = v;
  }
  return out;
}

/// The apt hook is needed where the firmware boots a vmlinux piprov keeps
/// fresh, or will after `boot patch --method vmlinux`.
bool hook_needed(const Ctx& c) {
  if (c.r.resolved.kernel == kVmlinux) return true;
  if (c.layout() == LayoutId::Piprov || c.layout() == LayoutId::LegacyVmlinux) return true;
  return c.layout() == LayoutId::UbuntuUboot && !is_bcm2712(c.r.resolved.board) &&
         choose_method(c.o.boot_dir, std::nullopt).method == PatchMethod::Vmlinux;
}

}  // namespace

/// raspi-firmware-edited: with ROOT (or BOOT_DIR=/boot/firmware) and Debian's hook, config.txt or cmdline.txt differ
/// from what the hook writes, and the next kernel update overwrites them.
void check_raspi_firmware(Ctx& c, const std::string& config_text, const std::optional<CmdlineTxt>& cmdline) {
  if (c.layout() != LayoutId::DebianRaspi) return;
  std::optional<fs::path> root = c.o.root_dir;
  std::error_code ec;
  if (!root && fs::equivalent(c.o.boot_dir, "/boot/firmware", ec)) root = "/";  // as check_hook: on the Pi itself
  if (!root || !debian_raspi_hook(*root)) return;
  if (!raspi_firmware_generated(config_text))
    c.add(Severity::Warning, "raspi-firmware-edited",
          "config.txt is not the one raspi-firmware's kernel hook writes (no \"# Do not modify this file!\" header): "
          "the next kernel update regenerates it from /etc/default/raspi-firmware* and drops these edits",
          "put config.txt settings in /etc/default/raspi-firmware-custom, then dpkg-reconfigure raspi-firmware",
          kRaspiFirmwareSource);
  const std::string rootpart = raspi_firmware_rootpart(*root);
  if (!cmdline || rootpart.empty()) return;
  const std::string cmdline_root = cmdline->get("root").value_or("");
  if (rootpart.find(' ') == std::string::npos && cmdline_root != rootpart)
    c.add(Severity::Warning, "raspi-firmware-edited",
          "cmdline.txt has root=" + (cmdline_root.empty() ? std::string("(none)") : cmdline_root) + " but " +
              std::string(kRaspiFirmwareDefaultsRel) + " has ROOTPART=" + rootpart +
              ": the next kernel update rewrites cmdline.txt with root=" + rootpart,
          "set ROOTPART= in /etc/default/raspi-firmware (kernel parameters of your own go in "
          "/etc/default/raspi-extra-cmdline), then dpkg-reconfigure raspi-firmware",
          kRaspiFirmwareSource);
}

void check_hook(Ctx& c) {
  std::optional<fs::path> root = c.o.root_dir;
  std::error_code ec;
  if (!root && fs::equivalent(c.o.boot_dir, "/boot/firmware", ec)) root = "/";
  const bool needed = hook_needed(c);
  if (!root) {
    if (!needed) return;
    c.add(Severity::Info, "hook-not-checked",
          "the apt hook was not checked: pass --root ROOT_DIR (the mounted 'writable' partition)");
    return;
  }
  std::string root_q = shell_quote(root->string());
  // An image: provision patches the disk written from it and installs the hook on its root fs.
  std::string fix = c.o.image.empty() ? c.patch_cmd + " --root " + root_q : c.patch_cmd;
  auto st = inspect_hooks(*root, c.o.boot_dir);
  if (!needed) {
    if (st.seed_hook)
      c.add(Severity::Warning, "seed-hook",
            "the hand-made hook " + st.seed_hook_conf + " (from Pi 4 USB-boot how-tos) is installed, but " +
                std::string(layout_name(c.layout())) + " boots " + c.r.resolved.kernel + ", not vmlinux",
            "remove " + st.seed_hook_conf + (st.seed_script.empty() ? "" : " and " + st.seed_script));
    return;
  }
  if (st.seed_hook) {
    c.add(Severity::Error, "seed-hook",
          "the hand-made hook " + st.seed_hook_conf + " (from Pi 4 USB-boot how-tos) is installed" +
              (st.seed_script.empty() ? " and its script auto_decompress_kernel is missing: apt reports a failed hook "
                                        "after every dpkg run"
                                      : ", running " + st.seed_script),
          fix + " (replaces it)");
    for (const auto& f : st.seed_faults)
      c.add(Severity::Error, "seed-hook-fault", "the hand-made hook's fault " + f, fix + " (replaces it)");
  }
  if (!st.conf_installed) {
    c.add(Severity::Error, "hook-missing",
          std::string("the apt hook ") + (*root / kHookConfRel).string() +
              " is not installed: the next kernel update leaves vmlinux stale and the Pi boots the old kernel "
              "with new modules",
          fix);
    return;
  }
  if (!st.script_installed) {
    c.add(Severity::Error, "hook-script-missing",
          std::string("the apt hook runs ") + (*root / kHookScriptRel).string() + ", which does not exist", fix);
    return;
  }
  check_hook_units(c, *root, st, fix);
  if (!st.conf_current || !st.script_current || (st.units_installed && !st.units_current))
    c.add(Severity::Warning, "hook-outdated", "the installed apt hook differs from this piprov's version", fix);
}

}  // namespace piprov::boot::detail
