// `piprov boot patch|check|sync-kernel`: wiring and printing only; the logic is
// in src/boot/ (patch.hpp, check.hpp, sync.hpp). docs/boot.md has the details.
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include "boot/check.hpp"
#include "boot/patch.hpp"
#include "boot/sync.hpp"
#include "cli/board_option.hpp"
#include "cli/commands.hpp"
#include "cli/patch_options.hpp"
#include "core/board.hpp"
#include "core/error.hpp"
#include "core/finding.hpp"
#include "core/units.hpp"
#include "provision/image_check.hpp"

namespace piprov::cli {
namespace {

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
    fmt::print("file actions{}:\n", rep.changed() ? "" : rep.method ? " (none: already patched)" : " (none)");
    for (const auto& x : rep.actions) fmt::print("  {}\n", x);
  } else if (rep.method && !rep.changed()) {
    fmt::print("{}: already patched, nothing changed\n", boot_dir);
  } else {
    for (const auto& x : rep.actions) fmt::print("{}\n", x);
    fmt::print("{}: {}\n", boot_dir, rep.summary);
  }
  if (o.dry_run) fmt::print("{}\n", rep.summary);
  for (const auto& n : rep.notes) fmt::print("note: {}\n", n);
}

struct BootCheckArgs {
  std::string boot, root, device;
  std::optional<PiBoard> board;
  std::vector<std::string> usb;
  bool json = false;
};

/// `boot check IMAGE`: an image file instead of a mounted BOOT_DIR (provision/image_check.hpp).
/// A whole disk given as BOOT_DIR is read the same way, read-only (trial 9); --device may only name it.
void run_image_check(const BootCheckArgs& a, int& exit_code) {
  std::error_code ec;
  const bool disk = std::filesystem::is_block_file(a.boot, ec);
  if (!a.root.empty() || (!a.device.empty() && !(disk && a.device == a.boot)))
    throw Error(ErrorKind::Usage, std::string(a.root.empty() ? "--device" : "--root") +
                                      " is for a mounted BOOT_DIR: " + a.boot +
                                      (disk ? " is a whole disk, read as an image: its own partitions and root fs are "
                                              "checked, against the disk itself"
                                            : " is an image, whose own root fs is checked"));
  const provision::ImageCheckOptions o{.image = a.boot, .board = a.board, .usb_ids = a.usb};
  const auto c = provision::check_image(o);
  if (a.json) {
    fmt::print("{}\n", dump_json(provision::image_check_json(o, c)));
  } else {
    const auto& r = c.report;
    fmt::print("{}\n{}", r.headline(), findings_text(r.findings));
    fmt::print("read from {} ({}): partition {}{}; {}\n", a.boot, c.format, c.boot_partition,
               c.root_note.empty() ? " and the root fs" : ", not the root fs (" + c.root_note + ")",
               image::reader_stats_text(c.stats, c.image_bytes));
    if (!c.note.empty()) fmt::print("note: {}\n", c.note);
    fmt::print("boot check: {}\n", r.summary());
  }
  exit_code = findings_exit_code(c.report.findings, boot::kCheckFailOn);
}

void run_check(const BootCheckArgs& a, int& exit_code) {
  if (provision::reads_as_image(a.boot)) return run_image_check(a, exit_code);
  boot::CheckOptions o;
  o.boot_dir = a.boot;
  if (!a.root.empty()) o.root_dir = a.root;
  o.usb_ids = a.usb;
  o.board = a.board;
  if (!a.device.empty()) o.device = a.device;
  auto rep = boot::check_boot(o);
  if (a.json) {
    fmt::print("{}\n", dump_json(boot::check_json(o, rep)));
  } else {
    fmt::print("{}\n{}\nboot check: {}\n", rep.headline(), findings_text(rep.findings), rep.summary());
  }
  exit_code = findings_exit_code(rep.findings, boot::kCheckFailOn);
}

void run_sync(const std::string& boot_dir, bool force, bool dry_run, bool strict, bool js, int& exit_code) {
  const boot::SyncOptions opts{.force = force, .dry_run = dry_run, .full = false, .only_when_booted = true};
  auto r = boot::sync_kernel(boot_dir, opts);
  if (js) {
    fmt::print("{}\n", dump_json(boot::sync_json(boot_dir, opts, r)));
  } else if (boot::sync_failed(r)) {
    fmt::print(stderr, "piprov: {}: {}\n", strict ? "error" : "warning", r.message);  // --strict: it fails
  } else if (r.outcome == boot::SyncResult::Outcome::NotUsed) {
    fmt::print("{}\n", r.message);
  } else if (r.outcome == boot::SyncResult::Outcome::Regenerated || dry_run) {
    // Quiet when up to date (it runs from the apt hook and the path unit), but --dry-run always answers.
    for (const auto& x : r.actions) fmt::print("{}\n", x);
    fmt::print("{}\n", r.message);
  }
  exit_code = boot::sync_exit_code(r, strict);
}

}  // namespace

void add_boot_command(CLI::App& app, Globals&, int& exit_code) {
  auto* boot = app.add_subcommand("boot",
                                  "Boot layouts (Ubuntu 20.04 to 26.04, Raspberry Pi OS, Debian's raspi-firmware): "
                                  "check what the firmware loads, fix USB boot where needed");
  boot->require_subcommand(1);

  auto pa = std::make_shared<PatchArgs>();
  auto* patch = boot->add_subcommand(
      "patch",
      "Make Ubuntu 20.04 boot a Pi 4 from USB (kernel=vmlinux or kernel=vmlinuz); other layouts: nothing to do");
  patch->add_option("BOOT_DIR", pa->opts.boot_dir, "Mounted boot partition (system-boot)")->required();
  patch->add_option("--root", pa->root, "Mounted root filesystem (writable): install the apt hook there");
  patch->add_flag("--dry-run", pa->opts.dry_run, "Print the config.txt diff and the file actions; change nothing");
  add_patch_options(patch, pa->opts);
  add_method_option(patch, pa->opts);
  add_board_option(patch, pa->opts.board,
                   "the Pi the disk is for; a layout that needs the Pi 4 fix is refused for a Pi 5 family board");
  patch->add_flag("--json", pa->json, "Print JSON (schema piprov.boot.patch/2, docs/boot.md)");
  patch->callback([pa] { run_patch(*pa); });

  auto ca = std::make_shared<BootCheckArgs>();
  auto* check = boot->add_subcommand("check", "Re-check a boot partition after updates; exit 1 when anything is wrong");
  check
      ->add_option("BOOT_DIR", ca->boot,
                   "Mounted boot partition, or an image file (.img, .img.xz, ...) or a whole disk (/dev/sdb): its "
                   "boot partition and root fs are read without mounting or writing anything")
      ->required();
  check->add_option("--root", ca->root, "Mounted root filesystem: check the apt hook there");
  check->add_option("--usb-id", ca->usb, "USB VID:PID of the SSD's bridge (as lsusb prints it), repeatable");
  add_board_option(check, ca->board,
                   "check what the firmware loads on this board (default: the Pi this runs on, else pi4)");
  check->add_option("--device", ca->device,
                    "The whole disk the boot partition is on: root= must name one of its partitions, and no other "
                    "attached disk may carry the same root LABEL/PARTUUID");
  check->add_flag("--json", ca->json, "Print JSON (schema piprov.boot.check/5, docs/boot.md)");
  check->callback([ca, &exit_code] { run_check(*ca, exit_code); });

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
  sync->add_flag("--json", sa->json, "Print JSON (schema piprov.boot.sync-kernel/1, docs/boot.md)");
  sync->callback([sa, &exit_code] { run_sync(sa->boot, sa->force, sa->dry_run, sa->strict, sa->json, exit_code); });
}

}  // namespace piprov::cli
