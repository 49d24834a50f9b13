// `piprov boot patch|check|sync-kernel`: wiring and printing only; the logic is
// in src/boot/ (patch.hpp, check.hpp, sync.hpp). docs/boot.md has the details.
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include "boot/check.hpp"
#include "boot/patch.hpp"
#include "boot/sync.hpp"
#include "cli/commands.hpp"
#include "core/error.hpp"

namespace piprov::cli {
namespace {

using nlohmann::json;

struct PatchArgs {
  std::string boot, root;
  bool dry_run = false, json = false, seed = false;
  int gpu_mem = -1, max_fb = -1, boot_delay = -1;
  bool fkms = false;
  std::vector<std::string> quirks;
};

void run_patch(const PatchArgs& a) {
  boot::PatchOptions o;
  o.boot_dir = a.boot;
  if (!a.root.empty()) o.root_dir = a.root;
  o.dry_run = a.dry_run;
  if (a.gpu_mem >= 0) o.gpu_mem = a.gpu_mem;
  if (a.max_fb >= 0) o.max_framebuffers = a.max_fb;
  if (a.boot_delay >= 0) o.boot_delay = a.boot_delay;
  o.fkms = a.fkms;
  if (a.seed) {  // the usual Pi 4 USB-boot [pi4] block, with boot_delay given the value it needs
    if (!o.gpu_mem) o.gpu_mem = 16;
    if (!o.max_framebuffers) o.max_framebuffers = 2;
    if (!o.boot_delay) o.boot_delay = 1;
    o.fkms = true;
  }
  o.uas_quirks = a.quirks;
  auto rep = boot::patch_boot(o);
  if (a.json) {
    fmt::print("{}\n", json{{"boot_dir", a.boot},
                            {"root_dir", a.root},
                            {"dry_run", a.dry_run},
                            {"changed", rep.changed()},
                            {"actions", rep.actions},
                            {"config_diff", rep.config_diff},
                            {"cmdline_diff", rep.cmdline_diff},
                            {"notes", rep.notes}}
                           .dump(2));
    return;
  }
  if (a.dry_run) {
    fmt::print("{}{}", rep.config_diff, rep.cmdline_diff);
    if (rep.config_diff.empty()) fmt::print("config.txt: no change\n");
    fmt::print("file actions{}:\n", rep.changed() ? "" : " (none: already patched)");
    for (const auto& x : rep.actions) fmt::print("  {}\n", x);
  } else if (!rep.changed()) {
    fmt::print("{}: already patched, nothing changed\n", a.boot);
  } else {
    for (const auto& x : rep.actions) fmt::print("{}\n", x);
    fmt::print("{}: patched for USB boot on a Pi 4 ([pi4] kernel=vmlinux, initramfs initrd.img followkernel)\n",
               a.boot);
  }
  for (const auto& n : rep.notes) fmt::print("note: {}\n", n);
}

void run_check(const std::string& boot_dir, const std::string& root, const std::vector<std::string>& usb_ids, bool js,
               int& exit_code) {
  boot::CheckOptions o;
  o.boot_dir = boot_dir;
  if (!root.empty()) o.root_dir = root;
  o.usb_ids = usb_ids;
  auto rep = boot::check_boot(o);
  int errors = 0, warnings = 0;
  for (const auto& f : rep.findings) {
    if (f.severity == boot::Severity::Error) ++errors;
    if (f.severity == boot::Severity::Warning) ++warnings;
  }
  if (js) {
    json fs = json::array();
    for (const auto& f : rep.findings)
      fs.push_back(
          {{"severity", boot::to_string(f.severity)}, {"code", f.code}, {"message", f.message}, {"fix", f.fix}});
    fmt::print("{}\n", json{{"boot_dir", boot_dir},
                            {"root_dir", root},
                            {"ok", rep.ok()},
                            {"errors", errors},
                            {"warnings", warnings},
                            {"kernel", rep.kernel_file},
                            {"vmlinux_state", boot::to_string(rep.kernel.state)},
                            {"initramfs", rep.initramfs},
                            {"cmdline_file", rep.cmdline_file},
                            {"firmware", rep.firmware},
                            {"findings", fs}}
                           .dump(2));
  } else {
    for (const auto& f : rep.findings)
      fmt::print("{}: {}{}\n", boot::to_string(f.severity), f.message, f.fix.empty() ? "" : " -- fix: " + f.fix);
    if (rep.ok())
      fmt::print("boot check: OK ([pi4] kernel={}, vmlinux {}, initramfs {})\n",
                 rep.kernel_file.empty() ? "(default)" : rep.kernel_file, boot::to_string(rep.kernel.state),
                 rep.initramfs.empty() ? "(none)" : rep.initramfs);
    else
      fmt::print("boot check: {} error(s), {} warning(s)\n", errors, warnings);
  }
  if (!rep.ok()) exit_code = 1;
}

void run_sync(const std::string& boot_dir, bool force, bool dry_run, bool strict, bool js, int& exit_code) {
  auto r = boot::sync_kernel(boot_dir, {.force = force, .dry_run = dry_run, .full = false});
  const char* outcome = r.outcome == boot::SyncResult::Outcome::UpToDate ? "up-to-date"
                        : r.outcome == boot::SyncResult::Outcome::Regenerated
                            ? (dry_run ? "would-regenerate" : "regenerated")
                        : r.outcome == boot::SyncResult::Outcome::Failed ? "failed"
                                                                         : "not-a-pi";
  if (js) {
    fmt::print(
        "{}\n",
        json{{"boot_dir", boot_dir}, {"outcome", outcome}, {"message", r.message}, {"actions", r.actions}}.dump(2));
  } else if (r.outcome == boot::SyncResult::Outcome::Failed || r.outcome == boot::SyncResult::Outcome::NotAPi) {
    fmt::print(stderr, "piprov: warning: {}\n", r.message);
  } else if (r.outcome == boot::SyncResult::Outcome::Regenerated) {
    for (const auto& x : r.actions) fmt::print("{}\n", x);
    fmt::print("{}\n", r.message);
  }
  // Like the apt hook: a failure is a warning (exit 0) unless --strict.
  if (strict && r.outcome == boot::SyncResult::Outcome::Failed) exit_code = static_cast<int>(ErrorKind::Verify);
  if (strict && r.outcome == boot::SyncResult::Outcome::NotAPi) exit_code = static_cast<int>(ErrorKind::Usage);
}

}  // namespace

void add_boot_command(CLI::App& app, Globals&, int& exit_code) {
  auto* boot = app.add_subcommand("boot", "Make an Ubuntu boot partition boot a Pi 4 from USB, and keep it bootable");
  boot->require_subcommand(1);

  auto pa = std::make_shared<PatchArgs>();
  auto* patch = boot->add_subcommand(
      "patch", "vmlinuz -> vmlinux, [pi4] kernel=vmlinux + initramfs initrd.img followkernel, apt hook (--root)");
  patch->add_option("BOOT_DIR", pa->boot, "Mounted boot partition (system-boot)")->required();
  patch->add_option("--root", pa->root, "Mounted root filesystem (writable): install the apt hook there");
  patch->add_flag("--dry-run", pa->dry_run, "Print the config.txt diff and the file actions; change nothing");
  patch->add_option("--gpu-mem", pa->gpu_mem, "Also set [pi4] gpu_mem=N (MiB; 16 for a headless Pi)")
      ->check(CLI::Range(16, 1024));
  patch->add_option("--max-framebuffers", pa->max_fb, "Also set [pi4] max_framebuffers=N")->check(CLI::Range(0, 4));
  patch->add_option("--boot-delay", pa->boot_delay, "Also set [pi4] boot_delay=N (seconds)")->check(CLI::Range(0, 60));
  patch->add_flag("--fkms", pa->fkms, "Also add [pi4] dtoverlay=vc4-fkms-v3d");
  patch->add_flag(
      "--seed-settings", pa->seed,
      "The usual Pi 4 USB-boot [pi4] settings: gpu_mem=16 max_framebuffers=2 dtoverlay=vc4-fkms-v3d boot_delay=1");
  patch->add_option("--uas-quirk", pa->quirks, "Add usb-storage.quirks=VID:PID:u to cmdline.txt (repeatable)");
  patch->add_flag("--json", pa->json, "Print JSON");
  patch->callback([pa] { run_patch(*pa); });

  struct CheckArgs {
    std::string boot, root;
    std::vector<std::string> usb;
    bool json = false;
  };
  auto ca = std::make_shared<CheckArgs>();
  auto* check = boot->add_subcommand("check", "Re-check a boot partition after updates; exit 1 when anything is wrong");
  check->add_option("BOOT_DIR", ca->boot, "Mounted boot partition")->required();
  check->add_option("--root", ca->root, "Mounted root filesystem: check the apt hook there");
  check->add_option("--usb-id", ca->usb, "USB VID:PID of the SSD's bridge (as lsusb prints it), repeatable");
  check->add_flag("--json", ca->json, "Print JSON");
  check->callback([ca, &exit_code] { run_check(ca->boot, ca->root, ca->usb, ca->json, exit_code); });

  struct SyncArgs {
    std::string boot;
    bool force = false, dry_run = false, strict = false, json = false;
  };
  auto sa = std::make_shared<SyncArgs>();
  auto* sync = boot->add_subcommand("sync-kernel",
                                    "What the apt hook runs: re-decompress vmlinuz to vmlinux only when it changed");
  sync->add_option("BOOT_DIR", sa->boot, "Boot partition (on the Pi: /boot/firmware)")->required();
  sync->add_flag("--force", sa->force, "Regenerate even when vmlinux is fresh");
  sync->add_flag("--dry-run", sa->dry_run, "Say what would be done");
  sync->add_flag("--strict", sa->strict, "Exit 4 (2 for a non-Pi dir) on failure instead of warning with exit 0");
  sync->add_flag("--json", sa->json, "Print JSON");
  sync->callback([sa, &exit_code] { run_sync(sa->boot, sa->force, sa->dry_run, sa->strict, sa->json, exit_code); });
}

}  // namespace piprov::cli
