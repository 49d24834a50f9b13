#include "boot/patch.hpp"

#include "boot/apt_hook.hpp"
#include "boot/autoboot.hpp"
#include "boot/cmdline_txt.hpp"
#include "boot/firmware.hpp"
#include "boot/sync.hpp"
#include "core/atomic_file.hpp"
#include "core/board.hpp"
#include "core/enum_names.hpp"
#include "core/error.hpp"
#include "core/file.hpp"
#include "core/strings.hpp"

namespace fs = std::filesystem;

namespace piprov::boot {
namespace {

const char* kPi4 = "pi4";

// Applies `edit` to config, then makes sure `key` is effective on a Pi 4 with
// `want`; when a later line (or an included file) overrides it, appends a new
// [pi4] section at the end of config.txt that wins.
template <typename Edit>
void set_effective(ConfigTxt& config, const IncludeLoader& loader, const std::string& key, const std::string& want,
                   const std::string& line_text, Edit edit) {
  ConfigTxt before = config;
  edit();
  auto eff = config.effective(key, Board{kPi4}, loader);
  if (eff && eff->value == want) return;
  config = std::move(before);  // the edit is overridden later on: undo it, add a [pi4] that wins instead
  config.append_section_with(kPi4, line_text);
  eff = config.effective(key, Board{kPi4}, loader);
  if (!eff || eff->value != want)
    throw Error(ErrorKind::Check, "cannot make config.txt set " + key + " to '" + want + "' on a Pi 4");
}

void write_with_backup(const fs::path& file, const std::string& original, const std::string& updated,
                       const fs::path& backup, bool dry_run, std::vector<std::string>& actions) {
  std::error_code ec;
  if (!fs::exists(backup, ec)) {
    if (!dry_run) atomic_write(backup, original);
    actions.push_back(std::string(dry_run ? "would keep" : "kept") + " the original " + file.filename().string() +
                      " as " + backup.string());
  }
  if (!dry_run) atomic_write(file, updated);
  actions.push_back(std::string(dry_run ? "would update " : "updated ") + file.string());
}

}  // namespace

IncludeLoader include_loader(const fs::path& boot_dir) {
  return [boot_dir](const std::string& name) -> std::optional<ConfigTxt> {
    // "include /x.txt" is x.txt on the boot partition; a name leaving it is never read (partition_file).
    try {
      auto text = name.empty() ? std::nullopt : read_partition_file(boot_dir, name);
      if (!text) return std::nullopt;
      return ConfigTxt::parse(*text);
    } catch (const Error&) {
      return std::nullopt;
    }
  };
}

namespace {
constexpr Pi4Setting kPi4Settings[] = {
    {"gpu_mem", "--gpu-mem", "Also set [pi4] gpu_mem=N (MiB; 16 for a headless Pi)", 16, 1024, 16,
     &PatchOptions::gpu_mem},
    {"max_framebuffers", "--max-framebuffers", "Also set [pi4] max_framebuffers=N", 0, 4, 2,
     &PatchOptions::max_framebuffers},
    {"boot_delay", "--boot-delay", "Also set [pi4] boot_delay=N (seconds)", 0, 60, 1, &PatchOptions::boot_delay},
};
}  // namespace

std::span<const Pi4Setting> pi4_settings() { return kPi4Settings; }

std::string seed_settings_words() {
  std::string out;
  for (const auto& s : kPi4Settings) out += std::string(s.key) + "=" + std::to_string(s.recommended) + " ";
  return out + "dtoverlay=vc4-fkms-v3d";
}

PatchOptions apply_seed_settings(PatchOptions o) {
  if (!o.seed_settings) return o;
  for (const auto& s : kPi4Settings)
    if (!(o.*s.field)) o.*s.field = s.recommended;
  o.fkms = true;
  return o;
}

nlohmann::json patch_json(const PatchOptions& o, const PatchReport& r) {
  return {{"schema", "piprov.boot.patch/2"},
          {"boot_dir", o.boot_dir.string()},
          {"layout", {{"id", layout_name(r.layout.id)}, {"release", r.layout.release}}},
          {"method", r.method ? nlohmann::json(to_string(r.method->method)) : nlohmann::json(nullptr)},
          {"method_reason", r.method ? r.method->why : ""},
          {"summary", r.summary},
          {"root_dir", o.root_dir ? o.root_dir->string() : ""},
          {"dry_run", o.dry_run},
          {"changed", r.changed()},
          {"actions", r.actions},
          {"config_diff", r.config_diff},
          {"cmdline_diff", r.cmdline_diff},
          {"notes", r.notes}};
}

namespace {
constexpr EnumName<PatchMethod> kPatchMethodNames[] = {{PatchMethod::Vmlinux, "vmlinux"},
                                                       {PatchMethod::Direct, "direct"}};
}  // namespace

const char* to_string(PatchMethod m) { return enum_name(kPatchMethodNames, m).data(); }
std::optional<PatchMethod> parse_method(std::string_view name) { return parse_enum(kPatchMethodNames, name); }

MethodChoice choose_method(const fs::path& boot_dir, std::optional<PatchMethod> asked) {
  if (asked) return {*asked, std::string("--method ") + to_string(*asked) + " was given"};
  auto fw = firmware_info(boot_dir);
  if (fw.decompresses_gzip.value_or(false))
    return {PatchMethod::Direct, "start4.elf was built on " + fw.build_date + ", on or after " +
                                     kGzipKernelFirmwareDate + ": the firmware decompresses vmlinuz itself"};
  if (fw.build_date.empty())
    return {PatchMethod::Vmlinux, std::string("the firmware's build date is unknown (") +
                                      (fw.start4_present ? "start4.elf carries no readable date" : "no start4.elf") +
                                      "): an uncompressed vmlinux boots with any firmware"};
  return {PatchMethod::Vmlinux, "start4.elf was built on " + fw.build_date + ", before " + kGzipKernelFirmwareDate +
                                    ": it cannot decompress vmlinuz"};
}

namespace {

void validate(const PatchOptions& o) {
  const fs::path& boot = o.boot_dir;
  std::error_code ec;
  if (!fs::exists(boot, ec))
    throw Error(ErrorKind::Usage, boot.string() + " does not exist: pass the mounted boot partition (system-boot)");
  if (!fs::is_directory(boot, ec))
    throw Error(ErrorKind::Usage, boot.string() + " is not a directory: pass the mounted boot partition (system-boot)");
  if (!fs::is_regular_file(boot / kConfigTxt, ec)) {
    if (auto a = autoboot_only(boot) ? read_autoboot(boot) : std::nullopt; a && a->partition && *a->partition > 0)
      throw Error(ErrorKind::Usage, boot.string() +
                                        " holds only autoboot.txt (boot_partition=" + std::to_string(*a->partition) +
                                        "): mount partition " + std::to_string(*a->partition) +
                                        " and run boot patch there; nothing was changed");
    throw Error(ErrorKind::Usage, boot.string() + " has no config.txt: not a Raspberry Pi boot partition");
  }
  require_text_config(read_file(boot / kConfigTxt), (boot / kConfigTxt).string());
  for (const auto& q : o.uas_quirks) normalize_vid_pid(q);  // validate before changing anything
  if (o.root_dir && !fs::is_directory(*o.root_dir / "etc/apt", ec))
    throw Error(ErrorKind::Usage, o.root_dir->string() +
                                      " has no etc/apt: not the root filesystem of a Debian/Ubuntu system (pass the "
                                      "mounted 'writable' partition as --root)");
  if (o.root_dir) check_hook_paths(*o.root_dir);  // ROOT/etc -> /etc would reach this machine's apt
  // --root / on a PC would put the hook into this machine's own apt (a
  // mistyped --root is the likely cause); on a Pi it is the running system.
  if (o.root_dir && fs::equivalent(*o.root_dir, "/", ec)) {
    BoardId id = detect_board();
    if (!id.raspberry_pi())
      throw Error(ErrorKind::Usage, "--root " + o.root_dir->string() +
                                        " is this machine's own root, and this machine is " +
                                        (id.model.empty() ? std::string("not a Raspberry Pi (no device tree)")
                                                          : "a " + id.model + ", not a Raspberry Pi") +
                                        ": pass the Pi disk's root partition, mounted (e.g. /mnt/writable); "
                                        "nothing was changed");
  }
}

/// A layout piprov does not know, but with Ubuntu's vmlinuz and no os_prefix:
/// config.txt boots no Ubuntu kernel on a Pi 4, so the USB fix is what makes it boot.
bool fixable_unknown(const PatchOptions& o, const BootLayout& l) {
  return l.id == LayoutId::Unknown && patch_takes_layout(o.boot_dir, l);
}

/// usb-storage.quirks in the cmdline file the firmware reads on a Pi 4 (never inside an A/B slot).
void apply_uas_quirks(const PatchOptions& o, const std::string& name, PatchReport& rep) {
  if (o.uas_quirks.empty()) return;
  if (in_ab_slot(name))
    throw Error(ErrorKind::Usage, "--uas-quirk: the cmdline file is " + name +
                                      ", inside an A/B slot, which piprov never edits; add usb-storage.quirks=" +
                                      o.uas_quirks.front() + ":u to its line by hand; nothing was changed");
  const fs::path& boot = o.boot_dir;
  fs::path file = boot / name;
  auto text = read_file_if_exists(file);
  if (!text) throw Error(ErrorKind::Usage, file.string() + " (the cmdline file config.txt names) does not exist");
  auto cmd = CmdlineTxt::parse(*text);
  for (const auto& q : o.uas_quirks) cmd.add_uas_quirk(q);
  if (cmd.to_string() == *text) return;
  rep.cmdline_diff = unified_diff(*text, cmd.to_string(), file.string(), file.string() + " (patched)");
  write_with_backup(file, *text, cmd.to_string(), boot / (name + kCmdlineBackupSuffix), o.dry_run, rep.actions);
}

/// debian-raspi and --uas-quirk: raspi-firmware's kernel hook rewrites cmdline.txt from
/// /etc/default/raspi-extra-cmdline at every kernel update, so the quirk goes there too (with
/// --root), or a note says where it must go.
void apply_uas_quirks_debian(const PatchOptions& o, PatchReport& rep) {
  if (o.uas_quirks.empty()) return;
  const std::string q = "usb-storage.quirks=" + o.uas_quirks.front() + ":u";
  if (!o.root_dir) {
    rep.notes.push_back("raspi-firmware's kernel hook rewrites cmdline.txt at the next kernel update: add " + q +
                        " to /etc/default/raspi-extra-cmdline on the root fs too (or rerun with --root)");
    return;
  }
  const fs::path file = *o.root_dir / "etc/default/raspi-extra-cmdline";
  const std::string text = read_file_if_exists(file).value_or("");
  auto cmd = CmdlineTxt::parse(text);
  for (const auto& v : o.uas_quirks) cmd.add_uas_quirk(v);
  std::string updated = cmd.to_string();
  if (updated == text) return;
  if (updated.back() != '\n') updated += '\n';
  write_with_backup(file, text, updated, file.string() + ".piprov-orig", o.dry_run, rep.actions);
}

/// Layouts that boot from USB as shipped: no byte changed, except an explicit --uas-quirk.
PatchReport patch_as_shipped(const PatchOptions& o, PatchReport rep) {
  rep.summary = "nothing to do: " + rep.layout.release + " boots from USB as shipped";
  if (rep.layout.id == LayoutId::DebianRaspi)
    rep.summary =
        "nothing to patch: raspi-firmware's kernel hook (/etc/kernel/postinst.d/z50-raspi-firmware) "
        "rewrites config.txt and cmdline.txt and copies vmlinuz-<version> and initrd.img-<version> on "
        "every kernel update; " +
        rep.layout.release + " boots from USB as shipped";
  rep.notes.push_back("layout " + std::string(layout_name(rep.layout.id)) + ": " + join(rep.layout.evidence, "; "));
  if (o.method)
    rep.notes.push_back(std::string("--method ") + to_string(*o.method) + " ignored: there is nothing to fix");
  bool settings = o.fkms;
  for (const auto& s : pi4_settings()) settings = settings || (o.*s.field).has_value();
  if (settings)
    rep.notes.push_back(
        rep.layout.id == LayoutId::DebianRaspi
            ? "the [pi4] USB-boot settings were not applied: there is nothing to fix (config.txt is regenerated at "
              "every kernel update; settings of your own go in /etc/default/raspi-firmware-custom)"
            : "the [pi4] USB-boot settings were not applied: there is nothing to fix");
  auto rb = resolve_boot(o.boot_dir, rep.layout, PiBoard::Pi4);
  apply_uas_quirks(o, rb.cmdline, rep);
  if (rep.layout.id == LayoutId::DebianRaspi) apply_uas_quirks_debian(o, rep);
  if (!rep.cmdline_diff.empty())
    rep.summary = rep.layout.release + " boots from USB as shipped; " + (o.dry_run ? "would add" : "added") +
                  " the UAS quirk to " + rb.cmdline;
  return rep;
}

/// The method for a layout that needs the fix; legacy-vmlinux and piprov stay on vmlinux.
MethodChoice method_for(const PatchOptions& o, const BootLayout& l) {
  if (l.id != LayoutId::Piprov && l.id != LayoutId::LegacyVmlinux) return choose_method(o.boot_dir, o.method);
  if (o.method == PatchMethod::Direct)
    throw Error(ErrorKind::Usage, "--method direct: " + o.boot_dir.string() + " is " + std::string(layout_name(l.id)) +
                                      ", which boots vmlinux; run without --method to keep (or migrate to) "
                                      "piprov's vmlinux fix; nothing was changed");
  return {PatchMethod::Vmlinux, std::string(layout_name(l.id)) + " boots vmlinux: kept on the vmlinux method"};
}

/// vmlinux method step 1: vmlinux, verified, before config.txt names it.
void make_vmlinux(const PatchOptions& o, PatchReport& rep) {
  auto sync = sync_kernel(o.boot_dir, {.force = false, .dry_run = o.dry_run, .full = true});
  if (sync.outcome == SyncResult::Outcome::Failed)
    throw Error(ErrorKind::Verify, sync.message + "; config.txt was not changed");
  for (auto& a : sync.actions) rep.actions.push_back((o.dry_run ? "would " : "") + a);
  if (o.dry_run && sync.outcome == SyncResult::Outcome::Regenerated) rep.notes.push_back(sync.message);
}

/// config.txt [pi4]: kernel= (vmlinux or vmlinuz), the initramfs line and the optional settings.
void edit_config(const PatchOptions& o, const std::string& kernel, const std::string& original, PatchReport& rep) {
  const fs::path& boot = o.boot_dir;
  auto config = ConfigTxt::parse(original);
  auto loader = include_loader(boot);
  set_effective(config, loader, "kernel", kernel, "kernel=" + kernel, [&] { config.set(kPi4, "kernel", kernel); });
  set_effective(config, loader, "initramfs", "initrd.img followkernel", "initramfs initrd.img followkernel",
                [&] { config.set_directive(kPi4, "initramfs", "initrd.img followkernel"); });
  auto set_int = [&](const char* key, std::optional<int> v) {
    if (!v) return;
    std::string s = std::to_string(*v);
    set_effective(config, loader, key, s, std::string(key) + "=" + s, [&] { config.set(kPi4, key, s); });
  };
  for (const auto& s : pi4_settings()) set_int(s.key, o.*s.field);
  if (o.fkms) config.ensure_line(kPi4, "dtoverlay", "vc4-fkms-v3d");
  std::string updated = config.to_string();
  if (updated == original) return;
  rep.config_diff =
      unified_diff(original, updated, (boot / kConfigTxt).string(), (boot / kConfigTxt).string() + " (patched)");
  write_with_backup(boot / kConfigTxt, original, updated, boot / kConfigBackup, o.dry_run, rep.actions);
}

/// The USB fix with rep.method: kernel, config.txt, cmdline quirks, the apt hook (vmlinux only).
void apply_fix(const PatchOptions& o, PatchReport& rep) {
  const fs::path& boot = o.boot_dir;
  std::error_code ec;
  if (!fs::is_regular_file(boot / kVmlinuz, ec))
    throw Error(ErrorKind::Usage, boot.string() + " has no vmlinuz: not an Ubuntu Raspberry Pi boot partition");
  if (!fs::is_regular_file(boot / "initrd.img", ec))
    throw Error(ErrorKind::Usage, boot.string() +
                                      " has no initrd.img, which `initramfs initrd.img followkernel` needs; "
                                      "reinstall the image's boot files");
  // The patch drops U-Boot: the firmware's command line goes to Linux as it is. Ubuntu's boot.scr
  // (flash-kernel bootscr.rpi) never added root=, so a cmdline without one would leave a patched
  // partition that boot check fails (cmdline-no-root) and the kernel without its root fs.
  const std::string cmdline_name = resolve_boot(boot, rep.layout, PiBoard::Pi4).cmdline;
  if (auto text = read_file_if_exists(boot / cmdline_name); text && !CmdlineTxt::parse(*text).get("root"))
    throw Error(ErrorKind::Usage, (boot / cmdline_name).string() +
                                      " has no root=: after the patch the Pi 4 boots Linux without U-Boot and the "
                                      "kernel would find no root file system; add root=LABEL=writable to its line "
                                      "and run boot patch again; nothing was changed");
  const bool vmlinux = rep.method->method == PatchMethod::Vmlinux;
  rep.notes.push_back(firmware_info(boot).summary);
  rep.notes.push_back(std::string("method ") + to_string(rep.method->method) + ": " + rep.method->why);
  if (vmlinux) make_vmlinux(o, rep);
  edit_config(o, vmlinux ? kVmlinux : kVmlinuz, read_file(boot / kConfigTxt), rep);
  apply_uas_quirks(o, resolve_boot(boot, rep.layout, PiBoard::Pi4).cmdline, rep);
  if (o.root_dir && vmlinux)
    for (auto& a : install_hook(*o.root_dir, boot, o.dry_run)) rep.actions.push_back(std::move(a));
  if (o.root_dir && !vmlinux) rep.notes.push_back("no apt hook needed: the firmware loads vmlinuz itself");
  rep.summary = std::string(o.dry_run ? "would be patched" : "patched") +
                (vmlinux ? " for USB boot on a Pi 4 (method vmlinux: [pi4] kernel=vmlinux, initramfs "
                           "initrd.img followkernel" +
                               std::string(o.root_dir ? ", apt hook" : "") + ")"
                         : " for USB boot on a Pi 4 (method direct: [pi4] kernel=vmlinuz, initramfs initrd.img "
                           "followkernel; no vmlinux, no hook)");
}

}  // namespace

bool patch_takes_layout(const fs::path& boot_dir, const BootLayout& l) {
  std::error_code ec;
  return l.id != LayoutId::Unknown ||
         (l.os_prefix.empty() && !root_not_ubuntu(l) && fs::is_regular_file(boot_dir / kVmlinuz, ec));
}

PatchReport patch_boot(const PatchOptions& opts) {
  const PatchOptions o = apply_seed_settings(opts);
  validate(o);
  PatchReport rep;
  rep.layout = detect_layout(o.boot_dir, o.root_dir);
  const bool fix = needs_usb_fix(rep.layout.id) || rep.layout.id == LayoutId::Piprov || fixable_unknown(o, rep.layout);
  if (!fix && rep.layout.id == LayoutId::Unknown)
    throw Error(ErrorKind::Usage, o.boot_dir.string() + ": unknown boot layout (" + join(rep.layout.evidence, "; ") +
                                      "); piprov patches only Ubuntu 20.04's U-Boot layout; nothing was changed");
  if (!fix) return patch_as_shipped(o, std::move(rep));
  if (o.board && is_bcm2712(*o.board))
    throw Error(ErrorKind::Usage, o.boot_dir.string() + " is " + std::string(layout_name(rep.layout.id)) + " (" +
                                      rep.layout.release + "), which cannot boot a " +
                                      std::string(board_title(*o.board)) +
                                      " (Ubuntu supports the Pi 5 from 23.10); write a current image instead; "
                                      "nothing was changed");
  rep.method = method_for(o, rep.layout);
  apply_fix(o, rep);
  return rep;
}

}  // namespace piprov::boot
