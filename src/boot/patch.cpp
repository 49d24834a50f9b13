#include "boot/patch.hpp"

#include "boot/apt_hook.hpp"
#include "boot/cmdline_txt.hpp"
#include "boot/firmware.hpp"
#include "boot/sync.hpp"
#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/file.hpp"

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
    if (name.empty() || name.find("..") != std::string::npos) return std::nullopt;
    try {
      auto text = read_file_if_exists(boot_dir / name);
      if (!text) return std::nullopt;
      return ConfigTxt::parse(*text);
    } catch (const Error&) {
      return std::nullopt;
    }
  };
}

std::string effective_cmdline_name(const ConfigTxt& config, const fs::path& boot_dir) {
  auto eff = config.effective("cmdline", Board{kPi4}, include_loader(boot_dir));
  return eff && !eff->value.empty() ? eff->value : "cmdline.txt";
}

PatchReport patch_boot(const PatchOptions& o) {
  PatchReport rep;
  const fs::path& boot = o.boot_dir;
  std::error_code ec;
  if (!fs::is_directory(boot, ec))
    throw Error(ErrorKind::Usage, boot.string() + " is not a directory: pass the mounted boot partition (system-boot)");
  auto config_text = read_file_if_exists(boot / kConfigTxt);
  if (!config_text)
    throw Error(ErrorKind::Usage, boot.string() + " has no config.txt: not a Raspberry Pi boot partition");
  if (!fs::is_regular_file(boot / kVmlinuz, ec))
    throw Error(ErrorKind::Usage, boot.string() + " has no vmlinuz: not an Ubuntu Raspberry Pi boot partition");
  if (!fs::is_regular_file(boot / "initrd.img", ec))
    throw Error(ErrorKind::Usage, boot.string() +
                                      " has no initrd.img, which `initramfs initrd.img followkernel` needs; "
                                      "reinstall the image's boot files");
  for (const auto& q : o.uas_quirks) normalize_vid_pid(q);  // validate before changing anything
  if (o.root_dir && !fs::is_directory(*o.root_dir / "etc/apt", ec))
    throw Error(ErrorKind::Usage, o.root_dir->string() +
                                      " has no etc/apt: not the root filesystem of a Debian/Ubuntu system (pass the "
                                      "mounted 'writable' partition as --root)");

  rep.notes.push_back(firmware_info(boot).summary);

  // 1. vmlinux, verified, before config.txt names it.
  auto sync = sync_kernel(boot, {.force = false, .dry_run = o.dry_run, .full = true});
  if (sync.outcome == SyncResult::Outcome::Failed)
    throw Error(ErrorKind::Verify, sync.message + "; config.txt was not changed");
  for (auto& a : sync.actions) rep.actions.push_back((o.dry_run ? "would " : "") + a);
  if (o.dry_run && sync.outcome == SyncResult::Outcome::Regenerated) rep.notes.push_back(sync.message);

  // 2. config.txt [pi4].
  auto config = ConfigTxt::parse(*config_text);
  auto loader = include_loader(boot);
  set_effective(config, loader, "kernel", "vmlinux", "kernel=vmlinux", [&] { config.set(kPi4, "kernel", "vmlinux"); });
  set_effective(config, loader, "initramfs", "initrd.img followkernel", "initramfs initrd.img followkernel",
                [&] { config.set_directive(kPi4, "initramfs", "initrd.img followkernel"); });
  auto set_int = [&](const char* key, std::optional<int> v) {
    if (!v) return;
    std::string s = std::to_string(*v);
    set_effective(config, loader, key, s, std::string(key) + "=" + s, [&] { config.set(kPi4, key, s); });
  };
  set_int("gpu_mem", o.gpu_mem);
  set_int("max_framebuffers", o.max_framebuffers);
  set_int("boot_delay", o.boot_delay);
  if (o.fkms) config.ensure_line(kPi4, "dtoverlay", "vc4-fkms-v3d");
  std::string updated = config.to_string();
  if (updated != *config_text) {
    rep.config_diff =
        unified_diff(*config_text, updated, (boot / kConfigTxt).string(), (boot / kConfigTxt).string() + " (patched)");
    write_with_backup(boot / kConfigTxt, *config_text, updated, boot / kConfigBackup, o.dry_run, rep.actions);
  }

  // 3. cmdline.txt UAS quirks.
  if (!o.uas_quirks.empty()) {
    std::string name = effective_cmdline_name(config, boot);
    fs::path file = boot / name;
    auto text = read_file_if_exists(file);
    if (!text) throw Error(ErrorKind::Usage, file.string() + " (the cmdline file config.txt names) does not exist");
    auto cmd = CmdlineTxt::parse(*text);
    for (const auto& q : o.uas_quirks) cmd.add_uas_quirk(q);
    if (cmd.to_string() != *text) {
      rep.cmdline_diff = unified_diff(*text, cmd.to_string(), file.string(), file.string() + " (patched)");
      write_with_backup(file, *text, cmd.to_string(), boot / (name + kCmdlineBackupSuffix), o.dry_run, rep.actions);
    }
  }

  // 4. The apt hook.
  if (o.root_dir)
    for (auto& a : install_hook(*o.root_dir, boot, o.dry_run)) rep.actions.push_back(std::move(a));
  return rep;
}

}  // namespace piprov::boot
