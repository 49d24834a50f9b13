#include "boot/layout.hpp"

#include <array>

#include "boot/apt_hook.hpp"
#include "boot/cmdline_txt.hpp"
#include "boot/patch.hpp"
#include "boot/sync.hpp"
#include "core/enum_names.hpp"
#include "core/error.hpp"
#include "core/file.hpp"
#include "core/strings.hpp"

namespace fs = std::filesystem;

namespace piprov::boot {
namespace {

constexpr EnumName<LayoutId> kLayoutNames[] = {
    {LayoutId::UbuntuUboot, "ubuntu-uboot"},
    {LayoutId::UbuntuDirect, "ubuntu-direct"},
    {LayoutId::UbuntuAb, "ubuntu-ab"},
    {LayoutId::Raspios, "raspios"},
    {LayoutId::Piprov, "piprov"},
    {LayoutId::LegacyVmlinux, "legacy-vmlinux"},
    {LayoutId::DebianRaspi, "debian-raspi"},
    {LayoutId::Unknown, "unknown"},
};

/// KEY=value lines of an os-release file (freedesktop os-release(5)), quotes removed.
std::map<std::string, std::string> parse_os_release(std::string_view text) {
  std::map<std::string, std::string> out;
  for (const auto& line : split(text, '\n')) {
    auto eq = line.find('=');
    if (eq == std::string::npos || line.empty() || line[0] == '#') continue;
    std::string v(trim(std::string_view(line).substr(eq + 1)));
    if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front())
      v = v.substr(1, v.size() - 2);
    out[std::string(trim(std::string_view(line).substr(0, eq)))] = v;
  }
  return out;
}

/// The release named by ROOT/etc/os-release (or usr/lib/os-release): "Ubuntu 24.04 LTS",
/// "Raspberry Pi OS (bookworm)" (ID=raspbian, or etc/rpi-issue, which pi-gen writes), else PRETTY_NAME.
/// Sets `id` to os-release's ID= ("linux" when unset: os-release(5)'s default). The evidence line names
/// the release by this same name ("os-release: Raspberry Pi OS (bookworm)", not os-release's
/// "Debian GNU/Linux 12 (bookworm)" that pi-gen leaves: one name in the headline and in a refusal, trial 9).
std::string release_from_root(const fs::path& root, std::vector<std::string>& ev, std::string& id) {
  auto text = read_file_if_exists(root / "etc/os-release");
  if (!text) text = read_file_if_exists(root / "usr/lib/os-release");
  if (!text) return "";
  auto kv = parse_os_release(*text);
  id = kv["ID"].empty() ? "linux" : kv["ID"];
  std::string name = kv.count("PRETTY_NAME") ? kv["PRETTY_NAME"] : kv["NAME"];
  const bool ubuntu = kv["ID"] == "ubuntu" && !kv["VERSION_ID"].empty();
  const bool rpi_issue = !ubuntu && kv["ID"] != "raspbian" && is_file(root / "etc/rpi-issue");
  if (ubuntu)
    name = "Ubuntu " + kv["VERSION_ID"] + (kv["VERSION"].find("LTS") != std::string::npos ? " LTS" : "");
  else if (kv["ID"] == "raspbian" || rpi_issue)
    name = "Raspberry Pi OS" + (kv["VERSION_CODENAME"].empty() ? "" : " (" + kv["VERSION_CODENAME"] + ")");
  ev.push_back("os-release: " + name + (rpi_issue ? " (ID=" + id + ", with etc/rpi-issue)" : ""));
  return name;
}

/// True when var/lib/dpkg/status lists `package` as installed.
bool dpkg_installed(std::string_view status, const std::string& package) {
  auto at = status.find("Package: " + package + "\n");
  while (at != std::string_view::npos && at != 0 && status[at - 1] != '\n')
    at = status.find("Package: " + package + "\n", at + 1);
  if (at == std::string_view::npos) return false;
  auto end = status.find("\n\n", at);
  auto stanza = status.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at);
  return stanza.find("\nStatus: install ok installed") != std::string_view::npos;
}

/// The os_prefix set under [tryboot] in config.txt itself ("" when none).
std::string tryboot_prefix(const ConfigTxt& config) {
  std::string section, out;
  for (const auto& l : config.lines()) {
    if (l.kind == LineKind::Section) section = to_lower(l.key);
    if (l.kind == LineKind::Setting && l.key == "os_prefix" && section == "tryboot") out = l.value;
  }
  return out;
}

/// True when any line of config.txt names a U-Boot binary (20.04's [pi2]/[pi3] sections).
bool mentions_uboot(const ConfigTxt& config) {
  for (const auto& l : config.lines())
    if (l.kind == LineKind::Setting && l.key == "kernel" && l.value.rfind("uboot", 0) == 0) return true;
  return false;
}

struct Seen {
  const fs::path& boot;
  const ConfigTxt& config;
  std::string_view config_text;
  std::optional<EffectiveValue> kernel;
  std::optional<fs::path> root;
  std::string dpkg_status;
  BootLayout& l;
  bool prefix_ignored = false;  ///< os_prefix set but not viable on a Pi 4: the firmware boots the top level
};

/// Raspberry Pi OS needs evidence of its own, not only its kernel file names (kernel8.img is what
/// every Pi 4 firmware loads by default, other distributions ship it too): pi-gen's issue.txt on
/// the boot partition, the root fs's os-release / etc/rpi-issue (release_from_root), or a cmdline
/// only pi-gen writes (its ROOTDEV placeholder, the first-boot init of raspberrypi-sys-mods or
/// raspi-config's init_resize.sh). Sources: RPi-Distro/pi-gen (stage1 cmdline.txt, export-image
/// issue.txt), RPi-Distro/raspberrypi-sys-mods.
bool looks_raspios(Seen& s) {
  for (const char* k : {"kernel8.img", "kernel_2712.img", "kernel7l.img"})
    if (is_file(s.boot / k)) s.l.evidence.push_back(std::string(k) + " present");
  if (is_file(s.boot / kVmlinuz)) return false;
  bool any = false;
  if (auto issue = read_file_if_exists(s.boot / "issue.txt");
      issue && issue->find("Raspberry Pi reference") != std::string::npos) {
    s.l.evidence.push_back("issue.txt: " + std::string(trim(split(*issue, '\n').front())));
    any = true;
  }
  if (auto cmd = read_partition_file(s.boot, "cmdline.txt")) {
    auto parsed = CmdlineTxt::parse(*cmd);
    if (parsed.get("root").value_or("") == "ROOTDEV") {
      s.l.evidence.push_back("cmdline.txt root=ROOTDEV (pi-gen's placeholder)");
      any = true;
    }
    auto init = parsed.get("init").value_or("");
    if (init.find("raspberrypi-sys-mods") != std::string::npos || init.find("raspi-config") != std::string::npos) {
      s.l.evidence.push_back("cmdline.txt init=" + init);
      any = true;
    }
  }
  return any || s.l.release.rfind("Raspberry Pi OS", 0) == 0;
}

LayoutId decide(Seen& s) {
  BootLayout& l = s.l;
  bool piboot_try = dpkg_installed(s.dpkg_status, "piboot-try");
  if (piboot_try) l.evidence.push_back("dpkg: piboot-try installed");
  if (dpkg_installed(s.dpkg_status, "flash-kernel")) l.evidence.push_back("dpkg: flash-kernel installed");
  if (!l.os_prefix.empty() && (l.tryboot_a_b || !l.tryboot_prefix.empty() || piboot_try)) return LayoutId::UbuntuAb;
  // A prefix without A/B: not a layout piprov knows, unless the firmware ignores it (resolve_boot).
  if (!l.os_prefix.empty() && !s.prefix_ignored) return LayoutId::Unknown;
  const std::string k = s.kernel ? s.kernel->value : "";
  const bool generated = raspi_firmware_generated(s.config_text);
  const bool hook = s.root && debian_raspi_hook(*s.root);
  if (generated)
    l.evidence.push_back("config.txt generated by raspi-firmware (header names /etc/default/raspi-firmware)");
  if (hook)
    l.evidence.push_back("raspi-firmware's kernel hook writes config.txt (" + std::string(kRaspiFirmwareHookRel) + ")");
  if ((generated || hook) && s.root && is_file(*s.root / kRaspiFirmwareDefaultsRel))
    l.evidence.push_back(std::string(kRaspiFirmwareDefaultsRel) + " present");
  if ((generated || hook) && dpkg_installed(s.dpkg_status, "raspi-firmware"))
    l.evidence.push_back("dpkg: raspi-firmware installed");
  if ((generated || hook) && k.rfind(kVmlinux, 0) != 0 && k.rfind("uboot", 0) != 0) return LayoutId::DebianRaspi;
  if (k.rfind("uboot", 0) == 0) {
    if (!root_not_ubuntu(l)) return LayoutId::UbuntuUboot;
    l.evidence.push_back("U-Boot on a root fs that is not Ubuntu's (os-release ID=" + l.os_id +
                         "): not Ubuntu 20.04's layout");
    return LayoutId::Unknown;
  }
  if (k.rfind(kVmlinux, 0) == 0) {  // vmlinux, or a renamed one (vmlinux-5.4)
    HookStatus hooks;
    if (s.root) hooks = inspect_hooks(*s.root, s.boot);
    bool seed = hooks.seed_hook || is_file(s.boot / kSeedHookScriptName);
    if (seed) l.evidence.push_back("hand-made hook (auto_decompress_kernel / 999_decompress_rpi_kernel)");
    if (is_file(s.boot / kVmlinuxStamp)) l.evidence.push_back("vmlinux.stamp present");
    if (hooks.conf_installed) l.evidence.push_back("piprov apt hook installed");
    if (seed) return LayoutId::LegacyVmlinux;
    return is_file(s.boot / kVmlinuxStamp) || hooks.conf_installed ? LayoutId::Piprov : LayoutId::LegacyVmlinux;
  }
  if (k.rfind(kVmlinuz, 0) == 0) return LayoutId::UbuntuDirect;
  if (k.empty() && looks_raspios(s)) return LayoutId::Raspios;
  return LayoutId::Unknown;
}

std::string guessed_release(LayoutId id, const ConfigTxt& config) {
  switch (id) {
    case LayoutId::UbuntuUboot: return "Ubuntu 20.04";
    case LayoutId::UbuntuDirect:
      return mentions_uboot(config) ? "Ubuntu 20.04 (fixed with kernel=vmlinuz)" : "Ubuntu 20.10 to 25.04";
    case LayoutId::UbuntuAb: return "Ubuntu 25.10 or later";
    case LayoutId::Raspios: return "Raspberry Pi OS";
    case LayoutId::Piprov: return "Ubuntu 20.04 (patched by piprov)";
    case LayoutId::LegacyVmlinux: return "Ubuntu 20.04 (hand-made vmlinux fix)";
    case LayoutId::DebianRaspi: return "Debian (raspi-firmware)";
    case LayoutId::Unknown: break;
  }
  return "unknown distribution";
}

}  // namespace

std::string_view layout_name(LayoutId id) { return enum_name(kLayoutNames, id); }
std::optional<LayoutId> parse_layout(std::string_view name) { return parse_enum(kLayoutNames, name); }

bool boots_from_usb_as_shipped(LayoutId id) {
  return id == LayoutId::UbuntuDirect || id == LayoutId::UbuntuAb || id == LayoutId::Raspios ||
         id == LayoutId::DebianRaspi;
}

bool needs_usb_fix(LayoutId id) { return id == LayoutId::UbuntuUboot || id == LayoutId::LegacyVmlinux; }

bool in_ab_slot(std::string_view rel) {
  for (const char* slot : kAbSlots)
    if (rel.rfind(slot, 0) == 0) return true;
  return false;
}

bool raspi_firmware_generated(std::string_view text) {
  auto lines = split(text, '\n');
  if (lines.empty() || trim(lines[0]) != "# Do not modify this file!") return false;
  for (const auto& line : lines) {
    auto t = trim(line);
    if (!t.empty() && t.front() == '#' && t.find("/etc/default/raspi-firmware") != std::string_view::npos) return true;
  }
  return false;
}

bool debian_raspi_hook(const fs::path& root) {
  auto hook = read_file_if_exists(root / kRaspiFirmwareHookRel);
  return hook && hook->find("Do not modify this file!") != std::string::npos &&
         hook->find(">/boot/firmware/config.txt") != std::string::npos;
}

bool root_not_ubuntu(const BootLayout& l) { return !l.os_id.empty() && l.os_id != "ubuntu"; }

PiBoard default_board() { return detect_board().board.value_or(PiBoard::Pi4); }

Board filter_board(PiBoard b) { return Board{std::string(board_name(b))}; }

BootLayout detect_layout(const fs::path& boot_dir, const std::optional<fs::path>& root_dir) {
  auto text = read_partition_file(boot_dir, kConfigTxt);
  if (!text) throw Error(ErrorKind::Usage, boot_dir.string() + " has no config.txt: not a Raspberry Pi boot partition");
  BootLayout l;
  const auto config = ConfigTxt::parse(*text);
  const auto loader = include_loader(boot_dir);
  const Board pi4{"pi4"};
  if (auto p = config.effective("os_prefix", pi4, loader)) {
    l.os_prefix = p->value;
    l.evidence.push_back("config.txt os_prefix=" + p->value);
  }
  l.tryboot_prefix = tryboot_prefix(config);
  if (!l.tryboot_prefix.empty()) l.evidence.push_back("config.txt [tryboot] os_prefix=" + l.tryboot_prefix);
  if (auto a = read_partition_file(boot_dir, "autoboot.txt")) {
    auto ab = ConfigTxt::parse(*a).effective("tryboot_a_b", pi4);
    l.tryboot_a_b = ab && ab->value == "1";
    if (l.tryboot_a_b) l.evidence.push_back("autoboot.txt tryboot_a_b=1");
  }
  Seen s{boot_dir, config, *text, config.effective("kernel", pi4, loader), root_dir, "", l};
  if (!l.os_prefix.empty()) {
    // os_prefix is used only with its kernel and .dtb (Raspberry Pi documentation, config_txt:
    // os_prefix); resolve_boot() reads config.txt alone, so the layout is not needed yet.
    const auto r = resolve_boot(boot_dir, l, PiBoard::Pi4);
    s.prefix_ignored = r.prefix_ignored;
    if (s.prefix_ignored)
      l.evidence.push_back("os_prefix=" + l.os_prefix + " ignored by the firmware (no " + r.prefix_missing + ")");
  }
  if (!s.kernel)
    l.evidence.push_back("config.txt has no kernel= for a Pi 4");
  else
    l.evidence.push_back(s.kernel->file + (s.kernel->section.empty() ? "" : " " + s.kernel->section) +
                         " kernel=" + s.kernel->value);
  if (root_dir) {
    l.release = release_from_root(*root_dir, l.evidence, l.os_id);
    l.release_from_root = !l.release.empty();
    s.dpkg_status = read_file_if_exists(*root_dir / "var/lib/dpkg/status").value_or("");
  }
  l.id = decide(s);
  if (l.release.empty()) l.release = guessed_release(l.id, config);
  return l;
}

}  // namespace piprov::boot
