#include "boot/check.hpp"

#include <fmt/format.h>

#include "boot/apt_hook.hpp"
#include "boot/cmdline_txt.hpp"
#include "boot/config_txt.hpp"
#include "boot/firmware.hpp"
#include "boot/kernel_image.hpp"
#include "boot/patch.hpp"
#include "boot/usb.hpp"
#include "core/board.hpp"
#include "core/error.hpp"
#include "core/file.hpp"
#include "core/strings.hpp"

namespace fs = std::filesystem;

namespace piprov::boot {
namespace {

constexpr const char* kKernelDoc = "Raspberry Pi documentation, config_txt: boot options (kernel)";
constexpr const char* kInitramfsDoc = "Raspberry Pi documentation, config_txt: boot options (initramfs)";

struct Ctx {
  const CheckOptions& o;
  CheckReport& r;
  std::string boot_q, patch_cmd;
  /// Adds a finding; the caller may set its line and key on the reference.
  Finding& add(Severity s, std::string rule, std::string msg, std::string fix = "", std::string source = "") {
    return r.findings.emplace_back(
        Finding{std::move(rule), s, 0, "", std::move(msg), std::move(fix), std::move(source)});
  }
  /// The finding is about config line `line` (1-based, in the file the message names) and `key`.
  static void locate(Finding& f, std::size_t line, std::string key) {
    f.line = static_cast<int>(line);
    f.key = std::move(key);
  }
};

void check_kernel_file(Ctx& c, const std::optional<EffectiveValue>& eff) {
  const fs::path& boot = c.o.boot_dir;
  c.r.kernel_file = eff ? eff->value : "";
  std::string where = eff ? " (" + eff->file + " line " + std::to_string(eff->line) + ")" : "";
  std::string name = eff ? eff->value : "kernel8.img";
  std::error_code ec;
  c.r.kernel = kernel_status(boot, true);
  if (!fs::is_regular_file(boot / name, ec)) {
    c.add(Severity::Error, "kernel-missing",
          "the Pi 4 kernel " + name + where + " does not exist in " + boot.string() +
              (eff ? "" : " (no kernel= for [pi4]: the firmware loads kernel8.img)"),
          c.patch_cmd + " (sets [pi4] kernel=vmlinux and makes vmlinux)", kKernelDoc);
    return;
  }
  if (name.rfind("uboot", 0) == 0) {
    c.add(Severity::Error, "kernel-uboot",
          "the Pi 4 boots U-Boot, kernel=" + name + where + ", which cannot boot from USB mass storage",
          c.patch_cmd + " (sets [pi4] kernel=vmlinux)", kKernelDoc);
    return;
  }
  auto comp = detect_compression_file(boot / name);
  if (comp != KernelCompression::None) {
    auto fw = firmware_info(boot);
    if (comp == KernelCompression::Gzip && fw.decompresses_gzip.value_or(false))
      c.add(Severity::Info, "kernel-gzip", "kernel=" + name + " is gzip-compressed; " + fw.summary);
    else
      c.add(Severity::Warning, "kernel-compressed",
            "kernel=" + name + where + " is " + to_string(comp) + "-compressed: only firmware built since " +
                kGzipKernelFirmwareDate + " boots gzip kernels itself, and the firmware here is " +
                (fw.build_date.empty() ? "unknown" : "from " + fw.build_date),
            c.patch_cmd + " (boots the uncompressed vmlinux instead)", kKernelDoc);
    return;
  }
  if (!file_is_arm64_image(boot / name)) {
    c.add(Severity::Error, "kernel-invalid",
          boot.string() + "/" + name + " is not an arm64 Image (no \"ARM\\x64\" magic at byte 0x38)",
          "piprov boot sync-kernel " + c.boot_q + " --force",
          "Linux Documentation/arch/arm64/booting.rst: Image header");
    return;
  }
  if (name == kVmlinux) {
    switch (c.r.kernel.state) {
      case KernelState::Fresh: break;
      case KernelState::NoStamp:
      case KernelState::Stale:
      case KernelState::Missing:
      case KernelState::Invalid: {
        // sync-kernel is the fix only when vmlinuz itself decodes to a valid Image.
        std::string fix = "piprov boot sync-kernel " + c.boot_q;
        try {
          (void)decode_kernel(boot / kVmlinuz, [](std::span<const std::byte>) {});
        } catch (const Error& e) {
          if (e.kind() != ErrorKind::Verify) throw;
          std::string why = e.what();
          if (auto cut = why.find("; nothing was replaced"); cut != std::string::npos) why.erase(cut);
          c.add(Severity::Error, "vmlinuz-corrupt", why + ": sync-kernel cannot make vmlinux from it",
                "reinstall the kernel package (apt install --reinstall linux-image-raspi), then " + fix);
          fix = "(after the reinstall) " + fix;
        }
        c.add(Severity::Error, std::string("vmlinux-") + to_string(c.r.kernel.state),
              "vmlinux is " + std::string(to_string(c.r.kernel.state)) + ": " + c.r.kernel.detail, fix);
        break;
      }
      case KernelState::NoVmlinuz:
        c.add(Severity::Warning, "no-vmlinuz",
              c.r.kernel.detail + ": the apt hook cannot refresh vmlinux after a kernel update",
              "reinstall the kernel package (apt install --reinstall linux-image-raspi)");
        break;
    }
  }
}

/// The Pi 4 kernel config.txt names; findings about the kernel= line carry
/// its line (in the file the message names) and key.
void check_kernel(Ctx& c, const ConfigTxt& config, const IncludeLoader& loader) {
  const std::size_t first = c.r.findings.size();
  auto eff = config.effective("kernel", Board{"pi4"}, loader);
  check_kernel_file(c, eff);
  if (!eff) return;
  for (std::size_t i = first; i < c.r.findings.size(); ++i)
    if (c.r.findings[i].rule.rfind("kernel-", 0) == 0) Ctx::locate(c.r.findings[i], eff->line, "kernel");
}

void check_initramfs(Ctx& c, const ConfigTxt& config, const IncludeLoader& loader) {
  auto eff = config.effective("initramfs", Board{"pi4"}, loader);
  c.r.initramfs = eff ? eff->value : "";
  if (!eff) {
    if (c.r.kernel_file == kVmlinux)
      c.add(Severity::Error, "initramfs-missing",
            "no `initramfs` for [pi4]: Ubuntu's kernel needs initrd.img to mount root=LABEL=writable",
            c.patch_cmd + " (adds `initramfs initrd.img followkernel` to [pi4])", kInitramfsDoc);
    return;
  }
  std::string file = eff->value.substr(0, eff->value.find_first_of(" \t"));
  std::error_code ec;
  if (fs::is_regular_file(c.o.boot_dir / file, ec)) return;
  Ctx::locate(
      c.add(Severity::Error, "initramfs-file-missing",
            "initramfs " + file + " (" + eff->file + " line " + std::to_string(eff->line) + ") does not exist in " +
                c.o.boot_dir.string(),
            "restore " + file + " (apt install --reinstall linux-image-raspi) or " + c.patch_cmd, kInitramfsDoc),
      eff->line, "initramfs");
}

void check_lint(Ctx& c, const ConfigTxt& config, const std::string& name, const IncludeLoader& loader, int depth) {
  for (auto f : config.lint()) {
    f.rule = "config-" + f.rule;
    f.message = name + ": " + f.message;
    f.fix += " (" + name + " line " + std::to_string(f.line) + ")";
    c.r.findings.push_back(std::move(f));
  }
  if (depth >= 4) return;
  const auto& lines = config.lines();
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto& l = lines[i];
    if (l.kind != LineKind::Directive || l.key != "include") continue;
    if (auto inc = loader(l.value)) {
      check_lint(c, *inc, l.value, loader, depth + 1);
      continue;
    }
    Ctx::locate(c.add(Severity::Warning, "include-missing", name + ": `include " + l.value + "` names a missing file",
                      "create an empty " + l.value + " or remove the include line"),
                i + 1, "include");
  }
}

void check_cmdline(Ctx& c, const ConfigTxt& config, std::optional<CmdlineTxt>& out) {
  c.r.cmdline_file = effective_cmdline_name(config, c.o.boot_dir);
  auto text = read_file_if_exists(c.o.boot_dir / c.r.cmdline_file);
  if (!text) {
    c.add(Severity::Error, "cmdline-missing", c.r.cmdline_file + " (the cmdline file config.txt names) does not exist",
          "create " + c.r.cmdline_file +
              " with one line, e.g. console=tty1 root=LABEL=writable rootfstype=ext4 rootwait");
    return;
  }
  out = CmdlineTxt::parse(*text);
  for (auto f : out->lint()) {
    f.rule = "cmdline-" + f.rule;
    f.message = c.r.cmdline_file + ": " + f.message;
    c.r.findings.push_back(std::move(f));
  }
}

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

void check_hook(Ctx& c) {
  std::optional<fs::path> root = c.o.root_dir;
  std::error_code ec;
  if (!root && fs::equivalent(c.o.boot_dir, "/boot/firmware", ec)) root = "/";
  if (!root) {
    c.add(Severity::Info, "hook-not-checked",
          "the apt hook was not checked: pass --root ROOT_DIR (the mounted 'writable' partition)");
    return;
  }
  std::string root_q = shell_quote(root->string());
  std::string fix = c.patch_cmd + " --root " + root_q;
  auto st = inspect_hooks(*root, c.o.boot_dir);
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

void check_usb(Ctx& c, const std::optional<CmdlineTxt>& cmdline) {
  std::vector<std::pair<std::string, std::string>> ids;  // vid:pid, where seen
  for (const auto& id : c.o.usb_ids) ids.emplace_back(normalize_vid_pid(id), "--usb-id");
  bool scan = c.o.scan_usb.value_or(detect_board().raspberry_pi());
  if (scan)
    for (const auto& dev : scan_usb_devices()) ids.emplace_back(dev.vid_pid, "USB device " + dev.name);
  for (const auto& [id, seen] : ids) {
    const auto* known = find_known_bridge(id);
    if (!known) {
      if (seen == "--usb-id")
        c.add(Severity::Info, "usb-ok", fmt::format("{} is not a USB-SATA bridge known to need the UAS quirk", id));
      continue;
    }
    if (cmdline && cmdline->has_uas_quirk(id)) {
      c.add(Severity::Info, "uas-quirk-set",
            fmt::format("{} ({}): usb-storage.quirks={}:u is set", known->name, id, id));
      continue;
    }
    c.add(Severity::Warning, "uas-quirk-missing",
          fmt::format("{} ({}, {}) is known to hang or corrupt data with UAS on a Pi 4; {} lacks "
                      "usb-storage.quirks={}:u",
                      known->name, id, seen, c.r.cmdline_file, id),
          fmt::format("{} --uas-quirk {} (appends ' usb-storage.quirks={}:u' to the line in {})", c.patch_cmd, id, id,
                      c.r.cmdline_file),
          "Linux admin-guide kernel-parameters: usb-storage.quirks (u = IGNORE_UAS)");
  }
}

}  // namespace

bool CheckReport::ok() const { return findings_exit_code(findings, kCheckFailOn) == 0; }

nlohmann::json check_json(const CheckOptions& o, const CheckReport& r) {
  auto counts = count_findings(r.findings);
  return {{"schema", "piprov.boot.check/2"},
          {"boot_dir", o.boot_dir.string()},
          {"root_dir", o.root_dir ? o.root_dir->string() : ""},
          {"ok", r.ok()},
          {"errors", counts.errors},
          {"warnings", counts.warnings},
          {"kernel", r.kernel_file},
          {"vmlinux_state", to_string(r.kernel.state)},
          {"initramfs", r.initramfs},
          {"cmdline_file", r.cmdline_file},
          {"firmware", r.firmware},
          {"findings", findings_json(r.findings)},
          {"summary", findings_summary_json(r.findings, kCheckFailOn)}};
}

CheckReport check_boot(const CheckOptions& o) {
  CheckReport r;
  std::error_code ec;
  if (!fs::is_directory(o.boot_dir, ec))
    throw Error(ErrorKind::Usage, o.boot_dir.string() + " is not a directory: pass the mounted boot partition");
  auto text = read_file_if_exists(o.boot_dir / kConfigTxt);
  if (!text)
    throw Error(ErrorKind::Usage, o.boot_dir.string() + " has no config.txt: not a Raspberry Pi boot partition");
  Ctx c{o, r, shell_quote(o.boot_dir.string()), ""};
  c.patch_cmd = "piprov boot patch " + c.boot_q;
  auto config = ConfigTxt::parse(*text);
  auto loader = include_loader(o.boot_dir);
  r.firmware = firmware_info(o.boot_dir).summary;
  check_kernel(c, config, loader);
  check_initramfs(c, config, loader);
  check_lint(c, config, kConfigTxt, loader, 0);
  std::optional<CmdlineTxt> cmdline;
  check_cmdline(c, config, cmdline);
  check_hook(c);
  check_usb(c, cmdline);
  c.add(Severity::Info, "firmware", r.firmware);
  return r;
}

}  // namespace piprov::boot
