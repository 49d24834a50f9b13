#include "boot/check.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "boot/apt_hook.hpp"
#include "boot/check_ctx.hpp"
#include "boot/cmdline_txt.hpp"
#include "boot/config_txt.hpp"
#include "boot/firmware.hpp"
#include "boot/kernel_image.hpp"
#include "boot/patch.hpp"
#include "boot/usb.hpp"
#include "core/blockdev.hpp"
#include "core/board.hpp"
#include "core/error.hpp"
#include "core/file.hpp"
#include "core/strings.hpp"

namespace fs = std::filesystem;

namespace piprov::boot {
namespace {

using detail::Ctx;

/// "Pi 4", "Pi 400", "CM4", "Pi 5", "Pi 500", "CM5".
std::string short_board(PiBoard b) {
  switch (b) {
    case PiBoard::Pi4: return "Pi 4";
    case PiBoard::Pi400: return "Pi 400";
    case PiBoard::Cm4: return "CM4";
    case PiBoard::Pi5: return "Pi 5";
    case PiBoard::Pi500: return "Pi 500";
    case PiBoard::Cm5: return "CM5";
  }
  return "Pi";
}

using detail::root_example;

}  // namespace

std::string detail::root_example(const Ctx& c) {
  switch (c.layout()) {
    case LayoutId::UbuntuUboot:
    case LayoutId::UbuntuDirect:
    case LayoutId::UbuntuAb:
    case LayoutId::Piprov:
    case LayoutId::LegacyVmlinux: return "LABEL=writable";
    case LayoutId::DebianRaspi: return "LABEL=RASPIROOT";
    default: break;
  }
  // The root partition's PARTUUID where the disk and its PARTUUIDs are known (--device, an image's MBR).
  if (c.o.device || (c.o.disk && c.o.disk_partuuids))
    if (const std::optional<Disk> d = known_boot_disk(c))
      if (const Partition* p = likely_root(*d); p && !p->partuuid.empty()) return "PARTUUID=" + p->partuuid;
  return "PARTUUID=<the root partition's PARTUUID>";
}

namespace {

/// utf8_bom_fix() for boot partition file `rel`: its sed command on BOOT_DIR's file; for an image, on
/// the file of a disk written from it (a command on the image's path would edit the image file).
std::string check_bom_fix(const Ctx& c, const std::string& rel) {
  if (c.o.image.empty()) return utf8_bom_fix((c.o.boot_dir / rel).string());
  return utf8_bom_fix("") + ", FILE being " + c.fix_target(rel);
}

void check_cmdline(Ctx& c, std::optional<CmdlineTxt>& out) {
  c.r.cmdline_file = c.r.resolved.cmdline;
  auto text = read_partition_file(c.o.boot_dir, c.r.cmdline_file);
  if (!text) {
    std::string fix = "create " + c.r.cmdline_file + " with one line, e.g. console=tty1 root=" + root_example(c) +
                      " rootfstype=ext4 rootwait";
    std::error_code ec;
    if (in_ab_slot(c.r.cmdline_file) && fs::is_regular_file(c.o.boot_dir / "old/cmdline.txt", ec))
      fix = "copy old/cmdline.txt (the previous boot's) to " + c.r.cmdline_file + ", or " + fix;
    c.add(Severity::Error, "cmdline-missing",
          c.r.cmdline_file + " (the cmdline file the firmware reads" +
              (c.r.resolved.os_prefix.empty() ? "" : ", under os_prefix=" + c.r.resolved.os_prefix) +
              ") does not exist",
          fix, "Raspberry Pi documentation, config_txt: boot options (cmdline, os_prefix)");
    return;
  }
  // A UTF-8 byte order mark (some Windows editors save one) is not skipped: the kernel gets it as part
  // of the first parameter, which it then does not know (Linux Documentation/admin-guide/kernel-parameters).
  if (text->starts_with(kUtf8Bom)) {
    text->erase(0, kUtf8Bom.size());
    const std::string first = text->substr(0, text->find_first_of(" \t\r\n"));
    c.add(Severity::Error, "cmdline-utf8-bom",
          c.r.cmdline_file + " " + utf8_bom_words(first) +
              ": the firmware passes it on, so the kernel does not know its first parameter and '" + first +
              "' is lost",
          check_bom_fix(c, c.r.cmdline_file),
          "Raspberry Pi documentation, config_txt: cmdline; Unicode Standard 3.10 (D94, byte order mark)");
  }
  out = CmdlineTxt::parse(*text);
  for (auto f : out->lint()) {
    std::string uboot_fix;
    if (f.rule == "no-root" && c.uboot) {
      const detail::UbootRootVerdict u = detail::uboot_root(c);
      if (u.supplied || u.unknown) {
        c.add(Severity::Info, u.unknown ? "cmdline-root-uboot-unknown" : "cmdline-root-from-uboot",
              c.r.cmdline_file + " has no root=: " + u.why, "", u.unknown ? detail::kUbootScrSource : "");
        c.uboot_scr_root = u.root;  // check_root judges it
        c.uboot_scr_root_line = u.line;
        if (!u.shown.empty()) {  // the headline's root=: the one boot.scr leaves in bootargs
          c.r.root = u.shown;
          c.r.root_from = "boot.scr line " + std::to_string(u.line);
        } else if (u.unknown) {
          c.r.root_from = "none in " + c.r.cmdline_file + "; boot.scr may set one";
        }
        continue;
      }
      f.message += "; " + u.why;
      f.source = u.source.empty() ? detail::kUbootScrSource : u.source;
      uboot_fix = u.fix;
    }
    if (f.rule == "no-root")
      f.fix = !uboot_fix.empty() ? uboot_fix : "add root=" + root_example(c) + " to the first line";
    if (f.rule == "empty")
      f.fix =
          "write the kernel command line on one line, e.g. ... root=" + root_example(c) + " rootfstype=ext4 rootwait";
    f.rule = "cmdline-" + f.rule;
    // The lint's messages that start with the file call it cmdline.txt: name the file in use there
    // instead of naming it twice ("cmdline.txt: cmdline.txt has no root="); the others get it in front.
    constexpr std::string_view kLintName = "cmdline.txt";
    if (f.message.starts_with(kLintName))
      f.message.replace(0, kLintName.size(), c.r.cmdline_file);
    else
      f.message = c.r.cmdline_file + ": " + f.message;
    c.r.findings.push_back(std::move(f));
  }
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
          in_ab_slot(c.r.cmdline_file)
              ? fmt::format("add ' usb-storage.quirks={}:u' to the line in {} by hand (piprov never edits inside {})",
                            id, c.r.cmdline_file, c.r.cmdline_file.substr(0, c.r.cmdline_file.find('/') + 1))
          : !patch_takes_layout(c.o.boot_dir, c.r.layout)
              ? fmt::format("add ' usb-storage.quirks={}:u' to the line in {} by hand (piprov boot patch does not "
                            "edit a layout it does not know)",
                            id, c.r.cmdline_file)
              : fmt::format("{} --uas-quirk {} (appends ' usb-storage.quirks={}:u' to the line in {})", c.patch_cmd, id,
                            id, c.r.cmdline_file),
          "Linux admin-guide kernel-parameters: usb-storage.quirks (u = IGNORE_UAS)");
  }
}

/// check_json's "autoboot": null, or {"boot_partition", "tryboot_partition", "tryboot_a_b", "device", "followed"}.
nlohmann::json autoboot_json(const CheckReport& r) {
  if (!r.autoboot) return nullptr;
  const auto& a = *r.autoboot;
  auto opt = [](const std::optional<int>& v) -> nlohmann::json { return v ? nlohmann::json(*v) : nlohmann::json(); };
  auto str = [](const std::string& v) -> nlohmann::json { return v.empty() ? nlohmann::json() : nlohmann::json(v); };
  return {{"boot_partition", opt(a.file.partition)},
          {"tryboot_partition", opt(a.file.tryboot_partition)},
          {"tryboot_a_b", a.file.tryboot_a_b},
          {"device", str(a.device)},
          {"followed", str(a.followed)}};
}

}  // namespace

bool CheckReport::ok() const { return findings_exit_code(findings, kCheckFailOn) == 0; }

namespace {
/// No error in the boot chain (kernel, initramfs, cmdline, root=, fstab, A/B, device tree, includes,
/// template values) and no compressed kernel the firmware may not load.
bool boot_chain_ok(const Findings& findings) {
  static const char* chain[] = {
      "kernel-",         "vmlinux-missing", "vmlinux-invalid", "initramfs-", "cmdline-missing",
      "cmdline-no-root", "cmdline-empty",   "root-",           "ab-",        "dtb-",
      "fstab-",          "device-tree-",    "armstub-",        "include-",   "template-"};
  for (const auto& f : findings) {
    if (f.rule == "kernel-compressed") return false;
    if (f.severity != Severity::Error) continue;
    for (const char* p : chain)
      if (f.rule.rfind(p, 0) == 0) return false;
  }
  return true;
}
}  // namespace

bool CheckReport::usb_boot() const { return boot_chain_ok(findings) && layout.id != LayoutId::Unknown; }

std::string CheckReport::headline() const {
  if (autoboot && autoboot->followed.empty())
    return "layout autoboot (autoboot.txt only): boots " + autoboot_summary(autoboot->file) +
           (autoboot->device.empty() ? "; boot files not checked (pass --device DEV)"
                                     : " on " + autoboot->device + "; boot files not checked");
  std::string pre;
  if (autoboot) pre = "autoboot.txt → " + autoboot_summary(autoboot->file) + " (" + autoboot->followed + "): ";
  if (resolved.kernel.empty())  // followed to a partition that boots boot.img (check_autoboot(): autoboot-ramdisk)
    return pre + "boots boot.img (boot_ramdisk=1): its kernel, cmdline and config.txt were not checked";
  return pre + fmt::format("layout {} ({}) on a {}: {} (kernel {}, initramfs {}, cmdline {}, root={})",
                           layout_name(layout.id), layout.release, board_title(resolved.board),
                           usb_boot()                ? "boots from USB"
                           : boot_chain_ok(findings) ? "piprov cannot tell whether it boots from USB (a "
                                                       "layout it does not know)"
                                                     : "does not boot from USB as it is",
                           resolved.kernel, resolved.initramfs.empty() ? "none" : resolved.initramfs, resolved.cmdline,
                           kernel_root());
}

std::string CheckReport::kernel_root() const {
  const std::string& value = root_from.empty() ? resolved.root : root;
  return (value.empty() ? "(none)" : value) + (root_from.empty() ? "" : " (" + root_from + ")");
}

std::string CheckReport::summary() const {
  if (!ok()) return findings_summary_text(findings, kCheckFailOn);
  if (autoboot && autoboot->followed.empty()) {
    const int n = autoboot->file.partition.value_or(0);
    return fmt::format(
        "partition {} (autoboot.txt boot_partition={}) was not checked: pass --device DEV (the whole disk) to "
        "check its boot files",
        n, n);
  }
  if (kernel_file.empty())
    return autoboot ? "OK (partition " + autoboot->followed + " boots boot.img; its kernel was not checked)" : "OK";
  // The headline said piprov cannot tell whether it boots from USB: so does the verdict, never a bare OK.
  if (layout.id == LayoutId::Unknown)
    return fmt::format(
        "no problems found, but piprov cannot tell whether it boots from USB (a layout it does not know; kernel {}, "
        "root={})",
        kernel_file, kernel_root());
  return fmt::format("OK (kernel {}, initramfs {}{})", kernel_file,
                     resolved.initramfs.empty() ? "none" : resolved.initramfs,
                     kernel_file == kVmlinux ? std::string(", vmlinux ") + to_string(kernel.state) : "");
}

nlohmann::json check_json(const CheckOptions& o, const CheckReport& r) {
  auto counts = count_findings(r.findings);
  const auto& rb = r.resolved;
  return {{"schema", "piprov.boot.check/5"},
          {"boot_dir", o.boot_dir.string()},
          {"root_dir", o.root_dir ? o.root_dir->string() : ""},
          {"layout",
           {{"id", layout_name(r.layout.id)},
            {"release", r.layout.release},
            {"board", board_name(rb.board)},
            {"usb_boot", r.usb_boot()},
            {"kernel", rb.kernel},
            {"initramfs", rb.initramfs},
            {"cmdline", rb.cmdline},
            {"cmdline_args", rb.cmdline_args},
            {"root", rb.root}}},
          {"layout_evidence", r.layout.evidence},
          {"autoboot", autoboot_json(r)},
          {"ok", r.ok()},
          {"errors", counts.errors},
          {"warnings", counts.warnings},
          {"kernel", r.kernel_file},
          // null where the firmware loads no vmlinux (vmlinuz, kernel8.img, U-Boot): its state says nothing then
          {"vmlinux_state", r.kernel_file == kVmlinux ? nlohmann::json(to_string(r.kernel.state)) : nlohmann::json()},
          {"initramfs", rb.initramfs},
          {"cmdline_file", r.cmdline_file},
          {"firmware", r.firmware},
          {"findings", findings_json(r.findings)},
          {"summary", findings_summary_json(r.findings, kCheckFailOn)}};
}

namespace {
/// The boot partition's device of a whole disk read as an image (o.disk: its first FAT partition).
std::string boot_partition_of(const CheckOptions& o) {
  if (o.disk)
    for (const auto& p : o.disk->partitions)
      if (p.fstype == "vfat") return p.path;
  return "BOOT_PARTITION";
}

/// BOOT_DIR names a block device: a partition is refused with the command that checks its whole
/// disk (read as an image, without mounting: `piprov boot check DISK`, which the CLI routes to
/// provision::check_image()); anything else with the disk's first FAT partition (core/blockdev) to
/// mount read-only and the disk for --device.
[[noreturn]] void refuse_block_device(const fs::path& dev) {
  std::string parent;
  const TargetKind kind = classify_path(dev.string(), &parent);
  if (kind == TargetKind::Partition && !parent.empty())
    throw Error(ErrorKind::Usage, dev.string() + " is a partition, not a directory: check the whole disk it is on, " +
                                      "which piprov reads without mounting or writing it: piprov boot check " + parent);
  const std::string disk = kind == TargetKind::Partition ? parent : dev.string();
  std::string part = kind == TargetKind::Partition ? dev.string() : "";
  if (kind == TargetKind::WholeDisk)
    for (const auto& p : read_whole_disk(disk).partitions)
      if (p.fstype == "vfat") {
        part = p.path;
        break;
      }
  throw Error(ErrorKind::Usage,
              dev.string() + " is a block device, not a directory: mount its boot partition read-only and check it " +
                  "with the disk as --device: mount -o ro " + (part.empty() ? "BOOT_PARTITION" : part) +
                  " /mnt && piprov boot check /mnt --device " + disk);
}
}  // namespace

CheckReport check_boot(const CheckOptions& o) {
  CheckReport r;
  std::error_code ec;
  if (fs::is_block_file(o.boot_dir, ec)) refuse_block_device(o.boot_dir);
  if (!fs::exists(o.boot_dir, ec))
    throw Error(ErrorKind::Usage, o.boot_dir.string() +
                                      " does not exist: pass the mounted boot partition or an image file (.img, "
                                      ".img.xz, ...)");
  if (!fs::is_directory(o.boot_dir, ec))
    throw Error(ErrorKind::Usage, o.boot_dir.string() +
                                      " is not a directory: pass the mounted boot partition or an image file (.img, "
                                      ".img.xz, ...)");
  auto text = read_partition_file(o.boot_dir, kConfigTxt);  // CONFIG.TXT too: FAT is case-insensitive
  if (!text && autoboot_only(o.boot_dir)) return check_autoboot(o);
  if (!text)
    throw Error(ErrorKind::Usage, o.boot_dir.string() + " has no config.txt: not a Raspberry Pi boot partition");
  require_text_config(*text, (o.boot_dir / kConfigTxt).string());
  r.layout = detect_layout(o.boot_dir, o.root_dir);
  r.resolved = resolve_boot(o.boot_dir, r.layout, o.board.value_or(default_board()));
  Ctx c{o, r, shell_quote(o.boot_dir.string()), "", short_board(r.resolved.board)};
  c.patch_cmd =
      o.image.empty() ? "piprov boot patch " + c.boot_q : "piprov provision " + shell_quote(o.image) + " DISK";
  if (o.image_is_disk) c.patch_cmd = "mount " + shell_quote(boot_partition_of(o)) + " /mnt && piprov boot patch /mnt";
  // A UTF-8 byte order mark is not skipped by the firmware: line 1 is read with it, so a setting there
  // is a key the firmware does not know. Named once here; the other rules judge the lines without it.
  std::optional<Finding> config_bom;
  if (text->starts_with(kUtf8Bom)) {
    text->erase(0, kUtf8Bom.size());
    const std::string line1(trim(text->substr(0, text->find('\n'))));
    const bool setting = !line1.empty() && line1.front() != '#';
    config_bom = Finding{"config-utf8-bom",
                         setting ? Severity::Error : Severity::Warning,
                         1,
                         "",
                         std::string(kConfigTxt) + " " + utf8_bom_words(line1) +
                             (setting ? ": the firmware reads line 1 with it, so '" + line1 + "' sets nothing"
                                      : ": harmless before a comment, but a setting put on line 1 would set nothing"),
                         check_bom_fix(c, kConfigTxt),
                         "Raspberry Pi documentation, config_txt: file format"};
  }
  auto config = ConfigTxt::parse(*text);
  auto loader = include_loader(o.boot_dir);
  r.firmware = is_bcm2712(r.resolved.board)
                   ? "the " + c.board + " firmware is in the bootloader EEPROM (no start*.elf on the boot partition)"
                   : firmware_info(o.boot_dir, r.resolved.kernel).summary;
  detail::check_kernel(c);
  detail::check_initramfs(c);
  detail::check_config_tree(c, config, kConfigTxt, loader);
  if (config_bom) r.findings.push_back(*config_bom);
  detail::check_config_size(c);
  if (auto ab = read_autoboot(o.boot_dir)) {
    for (auto& f : autoboot_lint(*ab, false)) r.findings.push_back(std::move(f));
    Findings wrong = ab->partition && *ab->partition > 0
                         ? detail::autoboot_partition_findings(o, *ab->partition, ab->partition_line)
                         : Findings{};
    for (auto& f : wrong) r.findings.push_back(std::move(f));
    if (ab->partition && *ab->partition > 0 && wrong.empty())
      Ctx::locate(c.add(Severity::Info, "autoboot-config-unused",
                        "autoboot.txt sends the bootloader to partition " + std::to_string(*ab->partition) +
                            ": this config.txt boots only if " + o.boot_dir.string() + " is partition " +
                            std::to_string(*ab->partition),
                        "", kAutobootSource),
                  ab->partition_line, "boot_partition");
  }
  std::optional<CmdlineTxt> cmdline;
  check_cmdline(c, cmdline);
  if (cmdline) {
    if (c.uboot && cmdline->get("root")) detail::check_uboot_bootargs(c, *cmdline);
    detail::check_cmdline_text(c, *cmdline);
    detail::check_root(c, cmdline);
  }
  detail::check_fstab(c);
  if (r.layout.id == LayoutId::UbuntuAb) detail::check_ab(c);
  detail::check_raspi_firmware(c, *text, cmdline);
  detail::check_hook(c);
  check_usb(c, cmdline);
  c.add(Severity::Info, "firmware", r.firmware);
  std::stable_sort(r.findings.begin(), r.findings.end(),
                   [](const Finding& a, const Finding& b) { return a.severity < b.severity; });
  return r;
}

}  // namespace piprov::boot
