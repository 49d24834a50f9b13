// boot patch + boot check on an Ubuntu 20.04-style boot dir (fake kernel), through the library.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "boot/apt_hook.hpp"
#include "boot/check.hpp"
#include "boot/patch.hpp"
#include "core/board.hpp"
#include "core/error.hpp"
#include "support/boot_fixture.hpp"
#include "support/testsupport.hpp"

namespace fs = std::filesystem;
using namespace piprov::boot;
using piprov::Severity;
using piprov::test::read_file;
using piprov::test::read_tree;
using piprov::test::run;
using piprov::test::TempDir;
using piprov::test::write_file;

namespace {

std::vector<std::string> codes(const CheckReport& r, bool with_info = false) {
  std::vector<std::string> v;
  for (const auto& f : r.findings)
    if (with_info || f.severity != Severity::Info) v.push_back(f.rule);
  return v;
}

using Tree = test::BootTree;

const char* kPatchedConfig =
    "# Please DO NOT modify this file; if you need to modify the boot config, the\n"
    "# \"usercfg.txt\" file is the place to include user changes. Please refer to\n"
    "# the README file for a description of the various configuration files on\n"
    "# the boot partition.\n"
    "\n"
    "[pi4]\n"
    "kernel=vmlinux\n"
    "max_framebuffers=2\n"
    "initramfs initrd.img followkernel\n"
    "\n"
    "[pi2]\n";

}  // namespace

TEST(BootPatch, PatchesOnceAndIsIdempotent) {
  Tree tr;
  std::string original = read_file(tr.boot / "config.txt");
  auto rep = patch_boot({.boot_dir = tr.boot, .root_dir = tr.root});
  std::string cfg = read_file(tr.boot / "config.txt");
  EXPECT_EQ(cfg.substr(0, std::string(kPatchedConfig).size()), kPatchedConfig);
  // Everything after [pi2] is untouched.
  EXPECT_EQ(cfg.substr(cfg.find("[pi2]")), original.substr(original.find("[pi2]")));
  EXPECT_EQ(read_file(tr.boot / "config.txt.piprov-orig"), original);
  EXPECT_EQ(read_file(tr.boot / "vmlinux"), tr.image);
  EXPECT_EQ(read_file(tr.root / kHookScriptRel), hook_script());
  EXPECT_EQ(read_file(tr.root / kHookConfRel), hook_conf());
  EXPECT_EQ(fs::status(tr.root / kHookScriptRel).permissions(), static_cast<fs::perms>(0755));
  EXPECT_EQ(read_file(piprov::test::source_dir() / "apt-hooks/piprov-kernel-sync"), hook_script());
  EXPECT_EQ(read_file(tr.root / kHookPathUnitRel),
            read_file(piprov::test::source_dir() / "apt-hooks/piprov-kernel-sync.path"));
  EXPECT_EQ(read_file(tr.root / kHookServiceUnitRel),
            read_file(piprov::test::source_dir() / "apt-hooks/piprov-kernel-sync.service"));
  EXPECT_EQ(fs::read_symlink(tr.root / kHookPathUnitWantsRel), fs::path("/etc/systemd/system/piprov-kernel-sync.path"));

  auto before = read_tree(tr.t.path);
  auto again = patch_boot({.boot_dir = tr.boot, .root_dir = tr.root});
  EXPECT_FALSE(again.changed());
  EXPECT_TRUE(again.config_diff.empty());
  EXPECT_EQ(read_tree(tr.t.path), before);

  auto chk = check_boot({.boot_dir = tr.boot, .root_dir = tr.root});
  EXPECT_TRUE(chk.ok()) << testing::PrintToString(codes(chk));
  EXPECT_EQ(chk.kernel_file, "vmlinux");
  EXPECT_EQ(chk.resolved.initramfs, "initrd.img");
  auto j = check_json({.boot_dir = tr.boot}, chk);
  EXPECT_EQ(j["initramfs"], "initrd.img");  // the file, not the directive's "initrd.img followkernel"
  EXPECT_EQ(j["vmlinux_state"], "fresh");
  EXPECT_EQ(chk.cmdline_file, "cmdline.txt");
}

// --root / on a PC would install the hook into the PC's own apt.
TEST(BootPatch, RootSlashOnAMachineThatIsNoPiIsRefused) {
  if (piprov::detect_board().raspberry_pi()) PIPROV_SKIP("this machine is a Raspberry Pi: --root / is its own system");
  Tree tr;
  auto before = read_tree(tr.t.path);
  piprov::test::expect_error(piprov::ErrorKind::Usage, "--root / is this machine's own root",
                             [&] { patch_boot({.boot_dir = tr.boot, .root_dir = "/"}); });
  EXPECT_EQ(read_tree(tr.t.path), before);
}

// ROOT/etc -> /elsewhere/etc (an absolute symlink): the hook would land outside the root (the
// fresh-user test reached the host's /etc this way). Refused before any byte changes.
TEST(BootPatch, ASymlinkOutOfTheRootIsRefused) {
  Tree tr;
  TempDir outside("outside-root");
  fs::create_directories(outside.path / "etc/apt/apt.conf.d");
  fs::path root = tr.t.path / "symroot";
  fs::create_directories(root);
  fs::create_symlink(outside.path / "etc", root / "etc");
  auto before = read_tree(tr.t.path);
  piprov::test::expect_error(piprov::ErrorKind::Usage, "outside " + root.string() + " (a symlink leads out",
                             [&] { patch_boot({.boot_dir = tr.boot, .root_dir = root}); });
  piprov::test::expect_error(piprov::ErrorKind::Usage, "resolves to " + (outside.path / "etc/apt/apt.conf.d").string(),
                             [&] { install_hook(root, tr.boot, false); });
  piprov::test::expect_error(piprov::ErrorKind::Usage, "a symlink leads out", [&] { remove_hook(root, false); });
  EXPECT_EQ(read_tree(tr.t.path), before);
  EXPECT_TRUE(fs::is_empty(outside.path / "etc/apt/apt.conf.d"));
  // A relative symlink that stays inside the root (as merged-/usr roots have: lib -> usr/lib) is fine.
  fs::path inside = tr.t.path / "inroot";
  fs::create_directories(inside / "real-etc/apt");
  fs::create_symlink("real-etc", inside / "etc");
  EXPECT_NO_THROW(check_hook_paths(inside));
}

// A config.txt that is not text (a truncated copy, a disk image): one error, not a warning per byte run.
TEST(BootPatch, ABinaryConfigTxtIsOneErrorForCheckAndPatch) {
  Tree tr;
  write_file(tr.boot / "config.txt", std::string("[pi4]\nkernel=vmlinux\n") + std::string(4096, '\0') +
                                         "\x7f"
                                         "ELF");
  auto before = read_tree(tr.t.path);
  piprov::test::expect_error(piprov::ErrorKind::Usage, "config.txt is not a text file (a NUL byte at offset 21)",
                             [&] { check_boot({.boot_dir = tr.boot}); });
  piprov::test::expect_error(piprov::ErrorKind::Usage, "config.txt is not a text file",
                             [&] { patch_boot({.boot_dir = tr.boot, .root_dir = tr.root}); });
  EXPECT_EQ(read_tree(tr.t.path), before);
}

TEST(BootPatch, DryRunPrintsDiffAndChangesNothing) {
  Tree tr;
  auto before = read_tree(tr.t.path);
  auto rep = patch_boot({.boot_dir = tr.boot, .root_dir = tr.root, .dry_run = true});
  EXPECT_EQ(read_tree(tr.t.path), before);
  std::string b = tr.boot.string();
  EXPECT_EQ(rep.config_diff, "--- " + b + "/config.txt\n+++ " + b + "/config.txt (patched)\n" +
                                 "@@ -4,8 +4,9 @@\n # the boot partition.\n \n [pi4]\n-kernel=uboot_rpi_4.bin\n"
                                 "+kernel=vmlinux\n max_framebuffers=2\n+initramfs initrd.img followkernel\n \n"
                                 " [pi2]\n kernel=uboot_rpi_2.bin\n");
  std::vector<std::string> want = {
      "would decompress vmlinuz to vmlinux (atomic replace)",
      "would write vmlinux.stamp",
      "would keep the original config.txt as " + b + "/config.txt.piprov-orig",
      "would update " + b + "/config.txt",
      "would install " + (tr.root / kHookScriptRel).string() + " (mode 0755)",
      "would install " + (tr.root / kHookConfRel).string() + " (mode 0644)",
      "would install " + (tr.root / kHookServiceUnitRel).string() + " (mode 0644)",
      "would install " + (tr.root / kHookPathUnitRel).string() + " (mode 0644)",
      "would enable piprov-kernel-sync.path: " + (tr.root / kHookPathUnitWantsRel).string() +
          " -> /etc/systemd/system/piprov-kernel-sync.path",
  };
  EXPECT_EQ(rep.actions, want);
}

TEST(BootPatch, SeedSettingsQuirkAndOverridingAllSection) {
  TempDir t;
  test::make_boot_dir(t.path, test::fake_image(100000, 1));
  // A later [all] kernel= would override an edit inside [pi4]. (A real [all] kernel=vmlinuz is
  // ubuntu-direct, which boots from USB as shipped and is not patched: layout_test.cpp.)
  write_file(t.path / "config.txt",
             "[pi4]\nmax_framebuffers=2\nboot_delay\n\n[all]\nkernel=uboot_rpi_4.bin\ncmdline=cmdline.txt\n");
  patch_boot({.boot_dir = t.path, .gpu_mem = 16, .boot_delay = 1, .fkms = true, .uas_quirks = {"152d:0578"}});
  EXPECT_EQ(read_file(t.path / "config.txt"),
            "[pi4]\nmax_framebuffers=2\nboot_delay=1\n\n[all]\nkernel=uboot_rpi_4.bin\ncmdline=cmdline.txt\n\n[pi4]\n"
            "kernel=vmlinux\ninitramfs initrd.img followkernel\ngpu_mem=16\ndtoverlay=vc4-fkms-v3d\n");
  EXPECT_EQ(read_file(t.path / "cmdline.txt"),
            std::string(test::kUbuntuCmdline)
                .insert(std::string(test::kUbuntuCmdline).size() - 1, " usb-storage.quirks=152d:0578:u"));
  EXPECT_EQ(read_file(t.path / "cmdline.txt.piprov-orig"), test::kUbuntuCmdline);
  auto chk = check_boot({.boot_dir = t.path, .usb_ids = {"152d:0578"}, .scan_usb = false});
  EXPECT_TRUE(chk.ok()) << testing::PrintToString(codes(chk));
  EXPECT_EQ(codes(chk, true), (std::vector<std::string>{"hook-not-checked", "uas-quirk-set", "firmware"}));
}

TEST(BootPatch, CorruptVmlinuzLeavesConfigAlone) {
  Tree tr;
  write_file(tr.boot / "vmlinuz", std::string("\x1f\x8b\x08\x00garbage", 12));
  std::string before = read_file(tr.boot / "config.txt");
  piprov::test::expect_error(piprov::ErrorKind::Verify, "config.txt was not changed",
                             [&] { patch_boot({.boot_dir = tr.boot}); });
  EXPECT_EQ(read_file(tr.boot / "config.txt"), before);
  EXPECT_FALSE(fs::exists(tr.boot / "vmlinux"));
}

TEST(BootPatch, ReplacesTheSeedHook) {
  Tree tr;
  write_file(tr.root / kSeedHookConfRel,
             "DPkg::Post-Invoke {\"/bin/bash /boot/firmware/auto_decompress_kernel\"; };\n");
  // The how-to's hand-made script as its unquoted heredoc installed it.
  write_file(tr.boot / "auto_decompress_kernel",
             "#!/bin/bash -e\nBTPATH=/boot/firmware\nCKPATH=/vmlinuz\nDKPATH=/vmlinux\n"
             "if [ -e /check.md5 ]; then\n\tif md5sum --status --ignore-missing -c /check.md5; then\n\texit 0\n"
             "\telse echo -e \"\\e[31mHash failed, kernel will be compressed\\e[0m\"\n\tfi\nfi\n"
             "mv /vmlinux /vmlinux.bak\nif [ ! 0 == 0 ]; then exit 1; fi\nzcat /vmlinuz > /vmlinux\n"
             "if [ ! $? == 0 ]; then exit 1; fi\n");
  patch_boot({.boot_dir = tr.boot});  // no --root: the hook is not touched
  auto chk = check_boot({.boot_dir = tr.boot, .root_dir = tr.root});
  EXPECT_EQ(codes(chk),
            (std::vector<std::string>{"seed-hook", "seed-hook-fault", "seed-hook-fault", "seed-hook-fault",
                                      "seed-hook-fault", "seed-hook-fault", "seed-hook-fault", "hook-missing"}));
  EXPECT_FALSE(chk.ok());
  auto rep = patch_boot({.boot_dir = tr.boot, .root_dir = tr.root});
  EXPECT_FALSE(fs::exists(tr.root / kSeedHookConfRel));
  EXPECT_FALSE(fs::exists(tr.boot / "auto_decompress_kernel"));
  EXPECT_TRUE(check_boot({.boot_dir = tr.boot, .root_dir = tr.root}).ok());
}

TEST(BootCheck, PatchedThenBrokenTreeReportsEachProblem) {
  Tree tr;
  patch_boot({.boot_dir = tr.boot, .root_dir = tr.root});
  // stale vmlinux (kernel update without the hook), bare boot_delay, missing hook.
  test::compress_to(tr.boot / "vmlinuz", test::fake_image(400000, 12));
  std::string cfg = read_file(tr.boot / "config.txt");
  cfg.replace(cfg.find("max_framebuffers=2\n"), 19, "max_framebuffers=2\nboot_delay\n");
  write_file(tr.boot / "config.txt", cfg);
  fs::remove(tr.root / kHookConfRel);
  auto chk = check_boot({.boot_dir = tr.boot, .root_dir = tr.root});
  // Errors first, then warnings (config-bare-key), then infos.
  EXPECT_EQ(codes(chk), (std::vector<std::string>{"vmlinux-stale", "hook-missing", "config-bare-key"}));
  EXPECT_FALSE(chk.ok());
  for (const auto& f : chk.findings)
    if (f.severity != Severity::Info) {
      EXPECT_FALSE(f.fix.empty()) << f.rule;
    }

  // kernel= pointing at a missing file.
  cfg.replace(cfg.find("kernel=vmlinux"), 14, "kernel=vmlinux-5.4");
  write_file(tr.boot / "config.txt", cfg);
  chk = check_boot({.boot_dir = tr.boot, .root_dir = tr.root});
  EXPECT_EQ(codes(chk), (std::vector<std::string>{"kernel-missing", "hook-missing", "config-bare-key"}));
  EXPECT_EQ(chk.findings[0].message,
            "the Pi 4 kernel vmlinux-5.4 (config.txt line 7) does not exist in " + tr.boot.string());
  EXPECT_EQ(chk.findings[0].line, 7);  // the line the message names, for --json and the text block
  EXPECT_EQ(chk.findings[0].key, "kernel");

  // An include of a missing file: its line and the directive.
  write_file(tr.boot / "config.txt", "include nosuch.txt\n" + cfg);
  chk = check_boot({.boot_dir = tr.boot, .root_dir = tr.root});
  auto inc = std::find_if(chk.findings.begin(), chk.findings.end(),
                          [](const piprov::Finding& f) { return f.rule == "include-missing"; });
  ASSERT_NE(inc, chk.findings.end());
  EXPECT_EQ(inc->line, 1);
  EXPECT_EQ(inc->key, "include");
  EXPECT_EQ(chk.findings[0].line, 8);
}

// piprov's .deb installs the units in lib/systemd/system and its postinst
// removes boot patch's identical copies from etc/systemd/system (found by the
// QEMU boot test: boot check --root / then warned hook-unit-missing).
TEST(BootCheck, HookUnitsInstalledByThePackageCount) {
  Tree tr;
  patch_boot({.boot_dir = tr.boot, .root_dir = tr.root});
  fs::create_directories(tr.root / "lib/systemd/system");
  for (const char* u : {"piprov-kernel-sync.path", "piprov-kernel-sync.service"})
    fs::rename(tr.root / "etc/systemd/system" / u, tr.root / "lib/systemd/system" / u);
  fs::remove(tr.root / kHookPathUnitWantsRel);
  fs::create_symlink("/lib/systemd/system/piprov-kernel-sync.path", tr.root / kHookPathUnitWantsRel);
  auto chk = check_boot({.boot_dir = tr.boot, .root_dir = tr.root});
  EXPECT_EQ(codes(chk), (std::vector<std::string>{})) << testing::PrintToString(codes(chk));
  EXPECT_TRUE(chk.ok());
  // A wants link to a directory systemd does not search is not enabled.
  fs::remove(tr.root / kHookPathUnitWantsRel);
  fs::create_symlink("/opt/piprov-kernel-sync.path", tr.root / kHookPathUnitWantsRel);
  EXPECT_EQ(codes(check_boot({.boot_dir = tr.boot, .root_dir = tr.root})),
            (std::vector<std::string>{"hook-unit-disabled"}));
  // An edited package unit is outdated like an edited etc one.
  write_file(tr.root / "lib/systemd/system/piprov-kernel-sync.service",
             std::string(hook_service_unit()) + "# edited\n");
  fs::remove(tr.root / kHookPathUnitWantsRel);
  fs::create_symlink("/lib/systemd/system/piprov-kernel-sync.path", tr.root / kHookPathUnitWantsRel);
  EXPECT_FALSE(inspect_hooks(tr.root, tr.boot).units_current);
}

TEST(BootCheck, HookUnitMissingOrDisabledIsReportedAndRemoveHookTakesEverything) {
  Tree tr;
  patch_boot({.boot_dir = tr.boot, .root_dir = tr.root});
  fs::remove(tr.root / kHookPathUnitWantsRel);
  auto chk = check_boot({.boot_dir = tr.boot, .root_dir = tr.root});
  EXPECT_EQ(codes(chk), (std::vector<std::string>{"hook-unit-disabled"}));
  fs::remove(tr.root / kHookServiceUnitRel);
  chk = check_boot({.boot_dir = tr.boot, .root_dir = tr.root});
  EXPECT_EQ(codes(chk), (std::vector<std::string>{"hook-unit-missing"}));
  EXPECT_NE(chk.findings.front().fix.find("boot patch"), std::string::npos) << chk.findings.front().fix;
  // patch puts them back (and enables the path unit) ...
  auto rep = patch_boot({.boot_dir = tr.boot, .root_dir = tr.root});
  EXPECT_EQ(rep.actions.size(), 2u) << testing::PrintToString(rep.actions);
  EXPECT_TRUE(check_boot({.boot_dir = tr.boot, .root_dir = tr.root}).ok());
  // ... an edited unit is outdated ...
  write_file(tr.root / kHookPathUnitRel, std::string(hook_path_unit()) + "# edited\n");
  EXPECT_EQ(codes(check_boot({.boot_dir = tr.boot, .root_dir = tr.root})), (std::vector<std::string>{"hook-outdated"}));
  // ... and remove_hook takes all five files (dry run first: nothing goes).
  auto plan = remove_hook(tr.root, true);
  EXPECT_EQ(plan.size(), 5u) << testing::PrintToString(plan);
  EXPECT_TRUE(fs::is_symlink(tr.root / kHookPathUnitWantsRel));
  auto removed = remove_hook(tr.root, false);
  EXPECT_EQ(removed.size(), 5u);
  for (const char* rel : {kHookPathUnitWantsRel, kHookPathUnitRel, kHookServiceUnitRel, kHookConfRel, kHookScriptRel})
    EXPECT_FALSE(fs::is_symlink(tr.root / rel) || fs::exists(tr.root / rel)) << rel;
  EXPECT_TRUE(remove_hook(tr.root, false).empty());
  EXPECT_EQ(codes(check_boot({.boot_dir = tr.boot, .root_dir = tr.root})), (std::vector<std::string>{"hook-missing"}));
}

TEST(BootCheck, CorruptVmlinuzIsNamedAndSyncKernelIsNotTheOnlyFix) {
  Tree tr;
  patch_boot({.boot_dir = tr.boot, .root_dir = tr.root});
  // A kernel update cut short: vmlinuz truncated, so vmlinux is stale and
  // sync-kernel would fail on it; the fix is reinstalling the kernel package.
  std::string z = read_file(tr.boot / "vmlinuz");
  write_file(tr.boot / "vmlinuz", z.substr(0, z.size() / 2));
  auto chk = check_boot({.boot_dir = tr.boot, .root_dir = tr.root});
  EXPECT_EQ(codes(chk), (std::vector<std::string>{"vmlinuz-corrupt", "vmlinux-stale"}));
  EXPECT_FALSE(chk.ok());
  ASSERT_FALSE(chk.findings.empty());
  EXPECT_NE(chk.findings[0].message.find((tr.boot / "vmlinuz").string() + " is corrupt or truncated"),
            std::string::npos)
      << chk.findings[0].message;
  EXPECT_EQ(chk.findings[0].message.find("nothing was replaced"), std::string::npos) << chk.findings[0].message;
  EXPECT_EQ(chk.findings[0].fix,
            "reinstall the kernel package (apt install --reinstall linux-image-raspi), then "
            "piprov boot sync-kernel " +
                tr.boot.string());
  EXPECT_EQ(chk.findings[1].fix, "(after the reinstall) piprov boot sync-kernel " + tr.boot.string());
}

TEST(BootCheck, UnpatchedUbuntuAndQuirks) {
  Tree tr;
  auto chk =
      check_boot({.boot_dir = tr.boot, .root_dir = tr.root, .usb_ids = {"174c:55aa", "1234:5678"}, .scan_usb = false});
  EXPECT_EQ(codes(chk), (std::vector<std::string>{"kernel-uboot", "hook-missing", "uas-quirk-missing"}));
  EXPECT_EQ(chk.findings.back().rule, "firmware");
  for (const auto& f : chk.findings)
    if (f.rule == "uas-quirk-missing") {
      EXPECT_EQ(f.fix,
                "piprov boot patch " + tr.boot.string() +
                    " --uas-quirk 174c:55aa (appends ' usb-storage.quirks=174c:55aa:u' to the line in cmdline.txt)");
    }
}

TEST(BootPatchSettings, SeedSettingsFillWhatIsNotGiven) {
  EXPECT_EQ(seed_settings_words(), "gpu_mem=16 max_framebuffers=2 boot_delay=1 dtoverlay=vc4-fkms-v3d");
  PatchOptions none = apply_seed_settings({.gpu_mem = 64});
  EXPECT_EQ(none.gpu_mem, 64);
  EXPECT_FALSE(none.max_framebuffers);
  EXPECT_FALSE(none.fkms);
  PatchOptions seed = apply_seed_settings({.gpu_mem = 64, .seed_settings = true});
  EXPECT_EQ(seed.gpu_mem, 64);  // given explicitly: kept
  EXPECT_EQ(seed.max_framebuffers, 2);
  EXPECT_EQ(seed.boot_delay, 1);
  EXPECT_TRUE(seed.fkms);
  ASSERT_EQ(pi4_settings().size(), 3u);
  EXPECT_STREQ(pi4_settings()[0].option, "--gpu-mem");
  EXPECT_EQ(pi4_settings()[0].min, 16);
  EXPECT_EQ(pi4_settings()[0].max, 1024);
  EXPECT_EQ(pi4_settings()[2].max, 60);
}

TEST(BootPatchSettings, PatchAppliesTheSeedSettings) {
  TempDir t;
  test::make_boot_dir(t.path, test::fake_image(100000, 1));
  write_file(t.path / "config.txt", "[pi4]\nmax_framebuffers=4\n");
  patch_boot({.boot_dir = t.path, .max_framebuffers = 3, .seed_settings = true});
  EXPECT_EQ(read_file(t.path / "config.txt"),
            "[pi4]\nmax_framebuffers=3\nkernel=vmlinux\ninitramfs initrd.img followkernel\ngpu_mem=16\nboot_delay=1\n"
            "dtoverlay=vc4-fkms-v3d\n");
}

TEST(BootJson, CheckAndPatchSchemas) {
  Tree tr;
  CheckOptions co{.boot_dir = tr.boot, .root_dir = tr.root};
  auto chk = check_boot(co);
  auto j = check_json(co, chk);
  EXPECT_EQ(j["schema"], "piprov.boot.check/5");
  EXPECT_EQ(j["layout"]["id"], "ubuntu-uboot");
  EXPECT_EQ(j["layout"]["usb_boot"], false);
  EXPECT_EQ(j["boot_dir"], tr.boot.string());
  EXPECT_EQ(j["root_dir"], tr.root.string());
  EXPECT_EQ(j["ok"], false);
  EXPECT_EQ(j["kernel"], "uboot_rpi_4.bin");
  ASSERT_TRUE(j["findings"].is_array());
  ASSERT_EQ(j["findings"].size(), chk.findings.size());
  EXPECT_EQ(j["findings"][0]["rule"], "kernel-uboot");
  EXPECT_EQ(j["findings"][0]["severity"], "error");
  EXPECT_FALSE(j["findings"][0].contains("code"));
  EXPECT_EQ(j["summary"]["exit_code"], 1);
  EXPECT_EQ(j["summary"]["errors"], j["errors"]);

  PatchOptions po{.boot_dir = tr.boot, .dry_run = true};
  auto p = patch_json(po, patch_boot(po));
  EXPECT_EQ(p["schema"], "piprov.boot.patch/2");
  EXPECT_EQ(p["method"], "vmlinux");
  EXPECT_EQ(p["dry_run"], true);
  EXPECT_EQ(p["changed"], true);  // would change: Ansible's check mode reports this
  EXPECT_EQ(p["summary"].get<std::string>().rfind("would be patched for USB boot", 0), 0u) << p["summary"];
  for (const auto& a : p["actions"]) EXPECT_EQ(a.get<std::string>().rfind("would ", 0), 0u) << a;
  EXPECT_EQ(p["root_dir"], "");
  EXPECT_NE(p["config_diff"].get<std::string>().find("+kernel=vmlinux"), std::string::npos);
}

// Ubuntu 20.04 cannot boot a Pi 5: boot check says so instead of advising boot patch (which refuses).
TEST(BootCheck, UbootLayoutOnAPi5AdvisesACurrentImageNotBootPatch) {
  Tree tr;
  auto chk = check_boot({.boot_dir = tr.boot, .board = piprov::PiBoard::Pi5});
  auto it =
      std::find_if(chk.findings.begin(), chk.findings.end(), [](const auto& f) { return f.rule == "kernel-missing"; });
  ASSERT_NE(it, chk.findings.end()) << testing::PrintToString(codes(chk));
  EXPECT_EQ(it->fix.find("piprov boot patch"), std::string::npos) << it->fix;
  EXPECT_NE(it->fix.find("write a current image (Ubuntu 24.04 LTS or later, or Raspberry Pi OS)"), std::string::npos)
      << it->fix;
  piprov::test::expect_error(piprov::ErrorKind::Usage, "write a current image instead",
                             [&] { patch_boot({.boot_dir = tr.boot, .board = piprov::PiBoard::Pi5}); });
}
