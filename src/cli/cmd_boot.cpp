// `piprov boot patch|check|sync-kernel`: wiring and printing only; the logic is
// in src/boot/ (patch.hpp, check.hpp, sync.hpp). docs/boot.md has the details.
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include "boot/check.hpp"
#include "boot/patch.hpp"
#include "boot/sync.hpp"
#include "cli/commands.hpp"
#include "cli/patch_options.hpp"
#include "core/error.hpp"
#include "core/finding.hpp"

namespace piprov::cli {
namespace {

using nlohmann::json;

struct PatchArgs {
  boot::PatchOptions opts;
  std::string root;
  bool json = false;
};

void run_patch(PatchArgs& a) {
  if (!a.root.empty()) a.opts.root_dir = a.root;
  const auto& o = a.opts;
  auto rep = boot::patch_boot(o);
  if (a.json) {
    fmt::print("{}\n", dump_json(boot::patch_json(o, rep)));
    return;
  }
  const std::string boot_dir = o.boot_dir.string();
  if (o.dry_run) {
    fmt::print("{}{}", rep.config_diff, rep.cmdline_diff);
    if (rep.config_diff.empty()) fmt::print("config.txt: no change\n");
    fmt::print("file actions{}:\n", rep.changed() ? "" : " (none: already patched)");
    for (const auto& x : rep.actions) fmt::print("  {}\n", x);
  } else if (!rep.changed()) {
    fmt::print("{}: already patched, nothing changed\n", boot_dir);
  } else {
    for (const auto& x : rep.actions) fmt::print("{}\n", x);
    fmt::print("{}: patched for USB boot on a Pi 4 ([pi4] kernel=vmlinux, initramfs initrd.img followkernel)\n",
               boot_dir);
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
  if (js) {
    fmt::print("{}\n", dump_json(boot::check_json(o, rep)));
  } else {
    fmt::print("{}\n", findings_text(rep.findings));
    if (rep.ok())
      fmt::print("boot check: OK ([pi4] kernel={}, vmlinux {}, initramfs {})\n",
                 rep.kernel_file.empty() ? "(default)" : rep.kernel_file, boot::to_string(rep.kernel.state),
                 rep.initramfs.empty() ? "(none)" : rep.initramfs);
    else
      fmt::print("boot check: {}\n", findings_summary_text(rep.findings, boot::kCheckFailOn));
  }
  exit_code = findings_exit_code(rep.findings, boot::kCheckFailOn);
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
  patch->add_option("BOOT_DIR", pa->opts.boot_dir, "Mounted boot partition (system-boot)")->required();
  patch->add_option("--root", pa->root, "Mounted root filesystem (writable): install the apt hook there");
  patch->add_flag("--dry-run", pa->opts.dry_run, "Print the config.txt diff and the file actions; change nothing");
  add_patch_options(patch, pa->opts);
  patch->add_flag("--json", pa->json, "Print JSON (schema piprov.boot.patch/1, docs/boot.md)");
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
  check->add_flag("--json", ca->json, "Print JSON (schema piprov.boot.check/2, docs/boot.md)");
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
