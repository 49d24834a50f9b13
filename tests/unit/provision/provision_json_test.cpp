// provision --json: the one builder next to ProvisionReport.
#include <gtest/gtest.h>

#include "boot/check.hpp"
#include "boot/layout.hpp"
#include "provision/dry_run.hpp"
#include "provision/provision.hpp"
#include "support/testsupport.hpp"

namespace piprov::provision {
namespace {

ProvisionReport sample() {
  ProvisionReport r;
  r.write.image = "ubuntu.img.xz";
  r.write.image_bytes = 4u << 20;
  image::TargetOutcome w;
  w.target = "/dev/loop7";
  w.ok = true;
  w.bytes_written = 4u << 20;
  w.verified = true;
  image::TargetOutcome failed;
  failed.target = "/dev/loop8";
  failed.error = "writing /dev/loop8 failed at byte offset 4096";
  failed.failed_offset = 4096;
  r.write.targets = {w, failed};
  TargetReport t;
  t.target = "/dev/loop7";
  t.ok = true;
  t.write = w;
  t.boot_partition = "/dev/loop7p1";
  t.root_partition = "/dev/loop7p2";
  t.patch.actions = {"decompressed vmlinuz to vmlinux"};
  t.check.findings.push_back(Finding{"usb-bridge-no-quirk", Severity::Warning, 0, "", "the bridge needs a quirk",
                                     "add usb-storage.quirks=152d:0578:u", "Raspberry Pi forums"});
  t.steps = {{Step::Write, "wrote 4.0 MiB", 1.5}, {Step::Partitions, "boot ..., root ...", 0.25}};
  TargetReport f;
  f.target = "/dev/loop8";
  f.write = failed;
  f.error = failed.error;
  r.targets = {t, f};
  return r;
}

TEST(ProvisionJson, HasTheSchemaStepsWithSecondsAndFindingsOfTheSharedShape) {
  auto all = provision_json(sample());
  EXPECT_EQ(all["schema"], "piprov.provision/3");
  EXPECT_EQ(all["write"]["schema"], "piprov.write/3");
  EXPECT_EQ(all["write"]["image_bytes"], 4u << 20);
  EXPECT_EQ(all["succeeded"], 1);
  EXPECT_EQ(all["failed"], 1);
  ASSERT_EQ(all["targets"].size(), 2u);
  const auto& j = all["targets"][0];
  EXPECT_EQ(j["target"], "/dev/loop7");
  EXPECT_EQ(j["ok"], true);
  EXPECT_TRUE(j["error"].is_null());
  EXPECT_EQ(j["boot_partition"], "/dev/loop7p1");
  EXPECT_EQ(j["root_partition"], "/dev/loop7p2");
  EXPECT_EQ(j["write"]["bytes_written"], 4u << 20);
  EXPECT_EQ(j["patch_actions"][0], "decompressed vmlinuz to vmlinux");
  ASSERT_EQ(j["steps"].size(), 2u);
  EXPECT_EQ(j["steps"][1]["step"], "partitions");
  EXPECT_DOUBLE_EQ(j["steps"][0]["seconds"].get<double>(), 1.5);
  ASSERT_EQ(j["findings"].size(), 1u);
  EXPECT_EQ(j["findings"][0]["rule"], "usb-bridge-no-quirk");
  EXPECT_EQ(j["findings"][0]["severity"], "warning");
  EXPECT_EQ(j["findings"][0]["fix"], "add usb-storage.quirks=152d:0578:u");
  EXPECT_FALSE(j["check_ok"].get<bool>());  // a warning fails boot check
  EXPECT_EQ(j["layout"], "unknown");
  EXPECT_TRUE(j["patched"].get<bool>());
  const auto& f = all["targets"][1];
  EXPECT_EQ(f["ok"], false);
  EXPECT_EQ(f["error"], "writing /dev/loop8 failed at byte offset 4096");
  EXPECT_EQ(f["write"]["error"]["offset"], 4096);
  EXPECT_TRUE(f["steps"].empty());
}

TEST(ProvisionJson, LayoutReleaseAndThePatchLine) {
  ProvisionReport r = sample();
  TargetReport& t = r.targets[0];
  t.patch.layout.id = boot::LayoutId::UbuntuDirect;
  t.patch.layout.release = "Ubuntu 24.04 LTS";
  t.patch.summary = "nothing to do: Ubuntu 24.04 LTS boots from USB as shipped";
  t.patch.actions.clear();
  auto j = provision_json(r)["targets"][0];
  EXPECT_EQ(j["layout"], "ubuntu-direct");
  EXPECT_EQ(j["release"], "Ubuntu 24.04 LTS");
  EXPECT_FALSE(j["patched"].get<bool>());
  EXPECT_EQ(patch_summary(t.patch),
            "layout ubuntu-direct (Ubuntu 24.04 LTS): nothing to do: Ubuntu 24.04 LTS boots from USB as shipped");
  t.patch.layout.id = boot::LayoutId::UbuntuUboot;
  t.patch.layout.release = "Ubuntu 20.04 LTS";
  t.patch.summary = "patched for USB boot on a Pi 4 (method vmlinux)";
  t.patch.actions = {"decompressed vmlinuz to vmlinux", "updated config.txt"};
  EXPECT_EQ(patch_summary(t.patch),
            "layout ubuntu-uboot (Ubuntu 20.04 LTS): patched for USB boot on a Pi 4 (method vmlinux): decompressed "
            "vmlinuz to vmlinux; updated config.txt");
}

// The last line of each disk and the exit code: decided here, printed by the cli.
// --wifi-ssid without --wifi-country: the plan notes that the Wi-Fi may stay blocked (rpi-imager
// issues 1066, 1123); with a country it names where the country is set.
TEST(DryRunText, WifiWithoutCountryIsNoted) {
  DryRunReport r;
  r.image = "raspios.img.xz";
  DryRunTarget t;
  t.target = "/dev/loop7";
  t.seed.instance_id = "iid-1";
  t.seed.wifi_ssid = "net";
  t.seed.network_config = "version: 2\n";
  r.targets = {t};
  EXPECT_NE(dry_run_text(r).find("  wifi country: none given: without a country the Pi's Wi-Fi may stay blocked "
                                 "(raspberrypi/rpi-imager issues 1066, 1123) unless the image sets one; give "
                                 "--wifi-country CC (e.g. GB)\n"),
            std::string::npos)
      << dry_run_text(r);
  r.targets[0].seed.wifi_country = "GB";
  r.targets[0].regdom_set = {"cmdline.txt"};
  EXPECT_NE(dry_run_text(r).find("  wifi country: cfg80211.ieee80211_regdom=GB in cmdline.txt\n"), std::string::npos);
  EXPECT_EQ(dry_run_text(r).find("none given"), std::string::npos);
  r.targets[0].seed = {};
  r.targets[0].seed.instance_id = "iid-1";
  r.targets[0].seed.user_data = "#cloud-config\n";
  EXPECT_EQ(dry_run_text(r).find("wifi country"), std::string::npos) << "no Wi-Fi, no note";
}

TEST(ProvisionOutcome, ReadySentenceSaysWhyTheDiskBootsFromUsb) {
  ProvisionReport r = sample();
  TargetReport& t = r.targets[0];
  EXPECT_EQ(ready_sentence(t), "provision: /dev/loop7 was written and patched, but boot check found problems (above)");
  t.check.findings.clear();
  EXPECT_EQ(ready_sentence(t),
            "provision: /dev/loop7 is ready: a Pi 4 boots it from USB ([pi4] kernel=vmlinux), and the apt hook keeps "
            "vmlinux fresh after kernel updates");
  t.patch.method = boot::MethodChoice{boot::PatchMethod::Direct, "start4.elf decompresses gzip"};
  EXPECT_NE(ready_sentence(t).find("is ready: a Pi 4 boots it from USB ([pi4] kernel=vmlinuz"), std::string::npos);
  t.patch = {};
  t.patch.layout.id = boot::LayoutId::UbuntuDirect;
  t.patch.layout.release = "Ubuntu 24.04 LTS";
  EXPECT_EQ(ready_sentence(t),
            "provision: /dev/loop7 is ready: Ubuntu 24.04 LTS (layout ubuntu-direct) boots from USB as shipped; "
            "nothing needed patching");
}

TEST(ProvisionOutcome, ExitCodeIsPartialWhenADiskFailedElseTheChecks) {
  ProvisionReport r = sample();
  EXPECT_EQ(exit_code(r), 5);                        // /dev/loop8 failed
  r.targets[1].error_kind = ErrorKind::Interrupted;  // Ctrl-C before one of its steps: 130, as everywhere
  EXPECT_EQ(exit_code(r), 130);
  r.targets[1].error_kind = ErrorKind::Io;
  r.targets.pop_back();
  EXPECT_EQ(exit_code(r), 1);  // the warning fails boot check
  r.targets[0].check.findings.clear();
  EXPECT_EQ(exit_code(r), 0);
}

// The check step names the initramfs boot check reports (ResolvedBoot): on
// Raspberry Pi OS that is auto_initramfs=1's initramfs8, not an empty
// `initramfs` argument; with no initramfs at all the part is left out.
TEST(ProvisionOutcome, CheckStepNamesTheInitramfsBootCheckReports) {
  test::TempDir d("piprov-checkstep");
  test::write_file(d.path / "config.txt", "[all]\narm_64bit=1\nauto_initramfs=1\n");
  test::write_file(d.path / "kernel8.img", "k");
  test::write_file(d.path / "initramfs8", "i");
  test::write_file(d.path / "cmdline.txt", "console=tty1 root=PARTUUID=4e639091-02 rootwait\n");
  auto report = [&] {
    boot::CheckReport c;
    c.layout.id = boot::LayoutId::Raspios;  // a layout piprov knows: boot check's verdict is "OK (...)"
    c.resolved = boot::resolve_boot(d.path, {}, PiBoard::Pi4);
    c.kernel_file = c.resolved.kernel;
    c.cmdline_file = c.resolved.cmdline;
    return c;
  };
  auto c = report();
  EXPECT_EQ(check_step_text(c, false), "OK: kernel kernel8.img, initramfs initramfs8, cmdline cmdline.txt");
  EXPECT_EQ(c.summary(), "OK (kernel kernel8.img, initramfs initramfs8)");  // boot check's own line agrees
  std::filesystem::remove(d.path / "initramfs8");
  EXPECT_EQ(check_step_text(report(), true), "OK: kernel kernel8.img, cmdline cmdline.txt, apt hook installed");
  // An `initramfs FILE ARGS` line: the file, as boot check names it.
  test::write_file(d.path / "config.txt", "[all]\nkernel=vmlinuz\ninitramfs initrd.img followkernel\n");
  EXPECT_EQ(check_step_text(report(), false), "OK: kernel vmlinuz, initramfs initrd.img, cmdline cmdline.txt");
  // A check that fails counts its findings.
  c.findings.push_back(Finding{"kernel-missing", Severity::Error, 0, "", "no kernel8.img", "", ""});
  EXPECT_EQ(check_step_text(c, false), "1 finding(s), listed below");
}

// Patch actions name files on their partitions, not in provision's temp
// mounts, which are gone when it ends.
TEST(ProvisionOutcome, PathsInTheTempMountsAreNamedOnTheirPartitions) {
  const std::string boot = "/tmp/piprov-provision-JMQjIL/system-boot", root = "/tmp/piprov-provision-JMQjIL/writable";
  auto name = [&](const std::string& text) {
    return on_partition(on_partition(text, boot, "boot", "/dev/loop1p1"), root, "root", "/dev/loop1p2");
  };
  EXPECT_EQ(name("kept the original config.txt as " + boot + "/config.txt.piprov-orig"),
            "kept the original config.txt as config.txt.piprov-orig on the boot partition (/dev/loop1p1)");
  EXPECT_EQ(name("updated " + boot + "/config.txt"), "updated config.txt on the boot partition (/dev/loop1p1)");
  EXPECT_EQ(name("installed " + root + "/usr/lib/piprov/piprov-kernel-sync (mode 0755)"),
            "installed /usr/lib/piprov/piprov-kernel-sync on the root partition (/dev/loop1p2) (mode 0755)");
  EXPECT_EQ(name("--- " + boot + "/config.txt\n+++ " + boot + "/config.txt (patched)\n"),
            "--- config.txt on the boot partition (/dev/loop1p1)\n+++ config.txt on the boot partition "
            "(/dev/loop1p1) (patched)\n");
  EXPECT_EQ(name("decompressed vmlinuz to vmlinux"), "decompressed vmlinuz to vmlinux");
  EXPECT_EQ(name("removed " + boot + "-old/x"), "removed " + boot + "-old/x");  // only paths below the dir
  EXPECT_EQ(on_partition("mounted at " + boot, boot, "boot", "/dev/sdb1"), "mounted at the boot partition (/dev/sdb1)");
  EXPECT_EQ(on_partition("as it is", "", "boot", "/dev/sdb1"), "as it is");
}

// Trial 3 finding 5: the real run's boot check findings named provision's temporary mount
// ("extra.txt does not exist in /tmp/piprov-provision-SOZxHj/system-boot"), removed when the run
// ends; they name the partition, as the patch actions do.
TEST(ProvisionOutcome, BootCheckFindingsNameThePartitionNotTheTempMount) {
  piprov::test::TempDir tmp("piprov-provision");
  const auto boot = tmp.path / "system-boot";
  std::filesystem::create_directories(boot);
  piprov::test::write_file(boot / "config.txt", "[all]\narmstub=armstub8-gic.bin\ninclude extra.txt\n");
  piprov::test::write_file(boot / "cmdline.txt", "console=tty1 root=PARTUUID=6c586e13-02 rootwait\n");
  boot::CheckOptions co;
  co.boot_dir = boot;
  co.scan_usb = false;
  auto check = boot::check_boot(co);
  name_check_on_partitions(check, boot.string(), "/dev/loop4p1", (tmp.path / "writable").string(), "/dev/loop4p2");
  int named = 0;
  for (const auto& f : check.findings) {
    EXPECT_EQ(f.message.find(tmp.path.string()), std::string::npos) << f.message;
    EXPECT_EQ(f.fix.find(tmp.path.string()), std::string::npos) << f.fix;
    if (f.rule == "include-missing") {
      EXPECT_NE(f.message.find("extra.txt does not exist in the boot partition (/dev/loop4p1)"), std::string::npos)
          << f.message;
      ++named;
    }
    if (f.rule == "armstub-missing") {
      EXPECT_NE(f.message.find("armstub8-gic.bin does not exist in the boot partition (/dev/loop4p1)"),
                std::string::npos)
          << f.message;
      ++named;
    }
  }
  EXPECT_EQ(named, 2);
  EXPECT_EQ(on_partition("bcm2711-rpi-4-b.dtb does not exist in " + boot.string() + ": the firmware", boot.string(),
                         "boot", "/dev/loop4p1"),
            "bcm2711-rpi-4-b.dtb does not exist in the boot partition (/dev/loop4p1): the firmware");
}

// Each disk's time: in --json (seconds, steps_seconds) and the summary line;
// a disk that failed after the write names its step, one whose write failed
// ran no step and is not listed.
TEST(ProvisionOutcome, EachDisksTimeInTheJsonAndTheSummaryLine) {
  ProvisionReport r = sample();
  r.steps_seconds = 2.1;
  r.targets[0].seconds = 1.9;
  TargetReport mid;
  mid.target = "/dev/loop9";
  mid.error = "provision failed at step 'mount': ...";
  mid.failed_step = Step::Mount;
  mid.seconds = 0.3;
  mid.steps = {{Step::Write, "wrote 4.0 MiB", 1.5}, {Step::Identity, "MBR disk identifier", 0.01}};
  r.targets.push_back(mid);
  auto j = provision_json(r);
  EXPECT_DOUBLE_EQ(j["steps_seconds"].get<double>(), 2.1);
  EXPECT_DOUBLE_EQ(j["targets"][0]["seconds"].get<double>(), 1.9);
  EXPECT_DOUBLE_EQ(j["targets"][1]["seconds"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(j["targets"][2]["seconds"].get<double>(), 0.3);
  EXPECT_EQ(steps_summary(r),
            "provision: steps after the write: 2 disks in parallel in 2.10 s (/dev/loop7 1.90 s, /dev/loop9 failed at "
            "'mount' after 0.30 s)");
}

}  // namespace
}  // namespace piprov::provision

namespace piprov::provision {
namespace {

// The interrupt's line names each disk's end; any interrupt is exit 130, also when every disk finished.
TEST(ProvisionOutcome, InterruptedRunSaysWhichDiskFinished) {
  ProvisionReport r;
  r.targets.resize(3);
  r.targets[0].target = "/dev/sdb";
  r.targets[0].ok = true;
  r.targets[1].target = "/dev/sdc";
  r.targets[1].steps.push_back({Step::Identity, "ok", 0.1});
  r.targets[1].failed_step = Step::Seed;
  r.targets[1].error_kind = ErrorKind::Interrupted;
  r.targets[2].target = "/dev/sdd";
  EXPECT_EQ(interrupted_text(r), "");
  r.interrupted = true;
  EXPECT_EQ(interrupted_text(r),
            "provision: interrupted (SIGINT or SIGTERM): /dev/sdb finished every step (it is ready as said above); "
            "/dev/sdc did not finish (failed at 'seed'); /dev/sdd did not finish (its write failed)");
  EXPECT_EQ(exit_code(r), 130);
  r.targets.resize(1);
  EXPECT_EQ(exit_code(r), 130);  // the one disk finished, the run was still interrupted
  r.interrupted = false;
  EXPECT_EQ(exit_code(r), 0);
}

// provision --dry-run's first line: a raw image has nothing to decode, so it says what was read
// (was "raw: 0 of 0 blocks decoded, 21.3 MiB"); a compressed one keeps its block counts.
TEST(ProvisionDryRunText, RawImageSaysReadNotBlocksDecoded) {
  DryRunReport r;
  r.image = "focal.img";
  r.format = "raw";
  r.stats.bytes_decoded = 22334668;  // 21.3 MiB
  const std::string raw = dry_run_text(r);
  EXPECT_EQ(raw.substr(0, raw.find('\n')),
            "provision --dry-run: nothing was written; read from focal.img (raw: read 21.3 MiB)");
  r.image = "focal.img.xz";
  r.format = "xz";
  r.stats = {321, 23, 28311552};
  const std::string xz = dry_run_text(r);
  EXPECT_EQ(
      xz.substr(0, xz.find('\n')),
      "provision --dry-run: nothing was written; read from focal.img.xz (xz: 23 of 321 blocks decoded, 27.0 MiB)");
}

}  // namespace
}  // namespace piprov::provision
