// Boot layouts: detect_layout / resolve_boot / boot check / boot patch on boot
// partitions built from every stock config in ../shared/data/config-txt.
#include <gtest/gtest.h>

#include <map>

#include "boot/check.hpp"
#include "boot/firmware.hpp"
#include "boot/layout.hpp"
#include "boot/patch.hpp"
#include "core/error.hpp"
#include "core/strings.hpp"
#include "support/boot_fixture.hpp"
#include "support/layout_fixture.hpp"
#include "support/testsupport.hpp"

namespace fs = std::filesystem;
using namespace piprov::boot;
using piprov::PiBoard;
using piprov::Severity;
using piprov::test::read_file;
using piprov::test::read_tree;
using piprov::test::TempDir;
using piprov::test::write_file;

namespace {

struct StockTree {
  TempDir t;
  fs::path boot = t.path / "boot", root = t.path / "root";
  explicit StockTree(const std::string& name, const fs::path& config_dir) {
    test::make_stock_boot(test::stock(name), config_dir, boot, root);
  }
};

std::vector<std::string> failing(const CheckReport& r) {
  std::vector<std::string> v;
  for (const auto& f : r.findings)
    if (f.severity != Severity::Info) v.push_back(f.rule);
  return v;
}

bool has_rule(const CheckReport& r, const std::string& rule) {
  for (const auto& f : r.findings)
    if (f.rule == rule) return true;
  return false;
}

CheckReport check(const StockTree& t, PiBoard board, bool with_root = true) {
  CheckOptions o{.boot_dir = t.boot, .scan_usb = false, .board = board};
  if (with_root) o.root_dir = t.root;
  return check_boot(o);
}

#define REQUIRE_CONFIGS() PIPROV_REQUIRE_SHARED("config-txt", configs)

}  // namespace

TEST(BootLayout, NamesRoundTrip) {
  for (auto id : {LayoutId::UbuntuUboot, LayoutId::UbuntuDirect, LayoutId::UbuntuAb, LayoutId::Raspios,
                  LayoutId::Piprov, LayoutId::LegacyVmlinux, LayoutId::DebianRaspi, LayoutId::Unknown})
    EXPECT_EQ(parse_layout(layout_name(id)), id);
  EXPECT_EQ(layout_name(LayoutId::UbuntuAb), "ubuntu-ab");
  EXPECT_FALSE(parse_layout("ubuntu"));
  EXPECT_TRUE(boots_from_usb_as_shipped(LayoutId::Raspios));
  EXPECT_FALSE(boots_from_usb_as_shipped(LayoutId::UbuntuUboot));
  EXPECT_TRUE(needs_usb_fix(LayoutId::LegacyVmlinux));
  EXPECT_FALSE(needs_usb_fix(LayoutId::UbuntuAb));
}

// Every stock layout: the right id and release, with and without the root dir.
TEST(BootLayout, DetectsEveryStockLayout) {
  REQUIRE_CONFIGS();
  for (const auto& s : test::stock_layouts()) {
    SCOPED_TRACE(s.name);
    StockTree t(s.name, configs);
    auto with_root = detect_layout(t.boot, t.root);
    EXPECT_EQ(layout_name(with_root.id), s.layout) << testing::PrintToString(with_root.evidence);
    EXPECT_EQ(with_root.release, s.release);
    EXPECT_TRUE(with_root.release_from_root);
    auto boot_only = detect_layout(t.boot);
    EXPECT_EQ(layout_name(boot_only.id), s.layout) << testing::PrintToString(boot_only.evidence);
    EXPECT_FALSE(boot_only.release_from_root);
  }
  StockTree q("questing", configs);
  auto l = detect_layout(q.boot);
  EXPECT_EQ(l.os_prefix, "current/");
  EXPECT_EQ(l.tryboot_prefix, "new/");
  EXPECT_TRUE(l.tryboot_a_b);
  EXPECT_EQ(l.release, "Ubuntu 25.10 or later");
}

TEST(BootLayout, ResolvesWhatTheFirmwareLoads) {
  REQUIRE_CONFIGS();
  StockTree q("questing", configs);
  auto l = detect_layout(q.boot, q.root);
  for (auto b : {PiBoard::Pi4, PiBoard::Pi5}) {
    auto r = resolve_boot(q.boot, l, b);
    EXPECT_EQ(r.kernel, "current/vmlinuz");
    EXPECT_EQ(r.initramfs, "current/initrd.img");
    EXPECT_EQ(r.cmdline, "current/cmdline.txt");
    EXPECT_EQ(r.root, "LABEL=writable");
    EXPECT_FALSE(r.prefix_ignored);
    EXPECT_EQ(r.prefix_missing, "");  // current/ holds the kernel and both boards' DTBs: viable
    auto chk = check(q, b);
    EXPECT_FALSE(has_rule(chk, "os-prefix-ignored"));
    EXPECT_TRUE(chk.ok()) << testing::PrintToString(failing(chk));
  }
  StockTree rb("bookworm", configs);
  auto lr = detect_layout(rb.boot);
  auto r4 = resolve_boot(rb.boot, lr, PiBoard::Pi400);
  EXPECT_EQ(r4.kernel, "kernel8.img");
  EXPECT_TRUE(r4.kernel_default);
  EXPECT_EQ(r4.initramfs, "initramfs8");  // auto_initramfs=1
  EXPECT_EQ(r4.root, "PARTUUID=4e639091-02");
  auto r5 = resolve_boot(rb.boot, lr, PiBoard::Cm5);
  EXPECT_EQ(r5.kernel, "kernel_2712.img");
  EXPECT_EQ(r5.initramfs, "initramfs_2712");
  // arm_64bit=0 on a Pi 4: the 32-bit default; the Pi 5 family is 64-bit only.
  write_file(rb.boot / "config.txt", read_file(rb.boot / "config.txt") + "arm_64bit=0\n");
  EXPECT_EQ(resolve_boot(rb.boot, lr, PiBoard::Pi4).kernel, "kernel7l.img");
  EXPECT_EQ(resolve_boot(rb.boot, lr, PiBoard::Pi5).kernel, "kernel_2712.img");
  // 20.04: [pi4] kernel=uboot_rpi_4.bin, cmdline= from the included syscfg.txt.
  StockTree f("focal", configs);
  auto rf = resolve_boot(f.boot, detect_layout(f.boot), PiBoard::Pi4);
  EXPECT_EQ(rf.kernel, "uboot_rpi_4.bin");
  EXPECT_EQ(rf.cmdline, "cmdline.txt");
  EXPECT_EQ(rf.cmdline_line->file, "syscfg.txt");
  EXPECT_EQ(rf.initramfs, "");
}

// boot check --json's layout: what the firmware loads, paths relative to BOOT_DIR with
// os_prefix, and the kernel command line text (the cmdline file's first line), for each
// layout fixture; the values are the shipped files' (../shared/data/config-txt).
TEST(BootLayout, JsonNamesWhatTheFirmwareLoadsAndItsCommandLine) {
  REQUIRE_CONFIGS();
  const std::string ubuntu_tail = "console=tty1 root=LABEL=writable rootfstype=ext4 rootwait fixrtc";
  const struct {
    const char *stock, *kernel, *initramfs, *cmdline;
    std::string args;
    const char* root;
  } cases[] = {
      {"focal", "uboot_rpi_4.bin", "", "cmdline.txt",
       "net.ifnames=0 dwc_otg.lpm_enable=0 console=serial0,115200 console=tty1 root=LABEL=writable rootfstype=ext4 "
       "elevator=deadline rootwait fixrtc",
       "LABEL=writable"},
      {"noble", "vmlinuz", "initrd.img", "cmdline.txt",
       "console=serial0,115200 multipath=off dwc_otg.lpm_enable=0 " + ubuntu_tail, "LABEL=writable"},
      {"questing", "current/vmlinuz", "current/initrd.img", "current/cmdline.txt",
       "console=serial0,115200 multipath=off dwc_otg.lpm_enable=0 " + ubuntu_tail, "LABEL=writable"},
      {"bookworm", "kernel8.img", "initramfs8", "cmdline.txt",
       "console=serial0,115200 console=tty1 root=PARTUUID=4e639091-02 rootfstype=ext4 fsck.repair=yes rootwait",
       "PARTUUID=4e639091-02"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.stock);
    StockTree t(c.stock, configs);
    auto j = check_json({.boot_dir = t.boot}, check(t, PiBoard::Pi4));
    EXPECT_EQ(j["schema"], "piprov.boot.check/5");
    EXPECT_EQ(j["layout"]["kernel"], c.kernel);
    EXPECT_EQ(j["layout"]["initramfs"], c.initramfs);
    EXPECT_EQ(j["layout"]["cmdline"], c.cmdline);
    EXPECT_EQ(j["layout"]["cmdline_args"], c.args);
    EXPECT_EQ(j["layout"]["root"], c.root);
    // The top level names the same files; no vmlinux is loaded on these layouts, so no vmlinux state.
    EXPECT_EQ(j["kernel"], c.kernel);
    EXPECT_EQ(j["initramfs"], c.initramfs);
    EXPECT_TRUE(j["vmlinux_state"].is_null()) << j["vmlinux_state"];
  }
  // 20.04 after boot patch --method direct: the firmware loads vmlinuz and initrd.img itself.
  StockTree f("focal", configs);
  patch_boot({.boot_dir = f.boot, .root_dir = f.root, .method = PatchMethod::Direct});
  auto j = check_json({.boot_dir = f.boot}, check(f, PiBoard::Pi4));
  EXPECT_EQ(j["layout"]["kernel"], "vmlinuz");
  EXPECT_EQ(j["layout"]["initramfs"], "initrd.img");
  EXPECT_EQ(j["layout"]["cmdline_args"], cases[0].args);
  // Only the first line counts, without its CR LF; a missing cmdline file gives "".
  write_file(f.boot / "cmdline.txt", "root=/dev/sda2 rootwait \r\nquiet\r\n");
  EXPECT_EQ(resolve_boot(f.boot, detect_layout(f.boot), PiBoard::Pi4).cmdline_args, "root=/dev/sda2 rootwait ");
  fs::remove(f.boot / "cmdline.txt");
  EXPECT_EQ(resolve_boot(f.boot, detect_layout(f.boot), PiBoard::Pi4).cmdline_args, "");
}

// Done when: boot check exits 0 and names the layout for --board pi4 and,
// where the release supports it, --board pi5 (20.04 after boot patch).
TEST(BootLayout, CheckPassesEveryStockLayout) {
  REQUIRE_CONFIGS();
  for (const auto& s : test::stock_layouts()) {
    if (std::string(s.layout) == "ubuntu-uboot" || std::string(s.layout) == "legacy-vmlinux") continue;
    for (auto b : {PiBoard::Pi4, PiBoard::Pi5}) {
      if (piprov::is_bcm2712(b) && !s.pi5) continue;
      SCOPED_TRACE(std::string(s.name) + " " + std::string(piprov::board_name(b)));
      StockTree t(s.name, configs);
      auto r = check(t, b);
      EXPECT_TRUE(r.ok()) << testing::PrintToString(failing(r));
      EXPECT_TRUE(r.usb_boot());
      EXPECT_EQ(layout_name(r.layout.id), s.layout);
      auto j = check_json({.boot_dir = t.boot}, r);
      EXPECT_EQ(j["schema"], "piprov.boot.check/5");
      EXPECT_EQ(j["layout"]["id"], s.layout);
      EXPECT_EQ(j["layout"]["release"], s.release);
      EXPECT_EQ(j["layout"]["board"], piprov::board_name(b));
      EXPECT_EQ(j["layout"]["usb_boot"], true);
      const std::string head = "layout " + std::string(s.layout) + " (" + s.release + ") on a " +
                               std::string(piprov::board_title(b)) + ": boots from USB (kernel " + r.resolved.kernel;
      EXPECT_EQ(r.headline().substr(0, head.size()), head);
    }
  }
}

TEST(BootLayout, UbootAndLegacyArePatchedThenPass) {
  REQUIRE_CONFIGS();
  for (const char* name : {"focal", "focal-fixed", "focal-late", "bootfix"}) {
    SCOPED_TRACE(name);
    StockTree t(name, configs);
    // Pi 5: 20.04 cannot boot it; patch refuses rather than pretend.
    piprov::test::expect_error(piprov::ErrorKind::Usage, "cannot boot a Raspberry Pi 5",
                               [&] { patch_boot({.boot_dir = t.boot, .board = PiBoard::Pi5}); });
    auto before = check(t, PiBoard::Pi4);
    EXPECT_FALSE(before.ok());
    EXPECT_FALSE(before.usb_boot() && std::string(name) != "bootfix");
    auto rep = patch_boot({.boot_dir = t.boot, .root_dir = t.root});
    EXPECT_TRUE(rep.changed());
    ASSERT_TRUE(rep.method);
    // 20.04 GA's start4.elf (2020-03) cannot decompress vmlinuz; focal-late's (2021-02) can.
    EXPECT_EQ(rep.method->method, std::string(name) == "focal-late" ? PatchMethod::Direct : PatchMethod::Vmlinux)
        << rep.method->why;
    auto after = check(t, PiBoard::Pi4);
    EXPECT_TRUE(after.ok() || std::string(name) == "bootfix") << testing::PrintToString(failing(after));
    // BootFix's config.txt keeps its bare boot_delay lines: the only findings left.
    if (std::string(name) == "bootfix") EXPECT_EQ(failing(after), std::vector<std::string>(3, "config-bare-key"));
    EXPECT_TRUE(after.usb_boot());
    EXPECT_EQ(layout_name(after.layout.id), std::string(name) == "focal-late" ? "ubuntu-direct" : "piprov");
  }
}

// Done when: boot patch changes no byte on every layout but 20.04 unpatched, and says why.
TEST(BootLayout, PatchChangesNothingWhereNotNeeded) {
  REQUIRE_CONFIGS();
  for (const auto& s : test::stock_layouts()) {
    if (!boots_from_usb_as_shipped(*parse_layout(s.layout))) continue;
    SCOPED_TRACE(s.name);
    StockTree t(s.name, configs);
    auto before = read_tree(t.t.path);
    auto rep = patch_boot({.boot_dir = t.boot, .root_dir = t.root, .seed_settings = true});
    EXPECT_EQ(read_tree(t.t.path), before);
    EXPECT_FALSE(rep.changed());
    EXPECT_FALSE(rep.method);
    EXPECT_EQ(rep.summary, "nothing to do: " + std::string(s.release) + " boots from USB as shipped");
    auto j = patch_json({.boot_dir = t.boot}, rep);
    EXPECT_EQ(j["schema"], "piprov.boot.patch/2");
    EXPECT_EQ(j["layout"]["id"], s.layout);
    EXPECT_TRUE(j["method"].is_null());
  }
  // The UAS quirk is never written inside an A/B slot.
  StockTree q("questing", configs);
  auto before = read_tree(q.t.path);
  piprov::test::expect_error(piprov::ErrorKind::Usage, "inside an A/B slot",
                             [&] { patch_boot({.boot_dir = q.boot, .uas_quirks = {"152d:0578"}}); });
  EXPECT_EQ(read_tree(q.t.path), before);
}

TEST(BootLayout, PatchMethodDirectAndVmlinux) {
  REQUIRE_CONFIGS();
  StockTree t("focal", configs);
  test::write_start4(t.boot / "start4.elf", "Aug 26 2022");
  auto rep = patch_boot({.boot_dir = t.boot, .root_dir = t.root, .dry_run = true});
  ASSERT_TRUE(rep.method);
  EXPECT_EQ(rep.method->method, PatchMethod::Direct);
  EXPECT_EQ(rep.method->why,
            "start4.elf was built on 2022-08-26, on or after 2020-09-14: the firmware decompresses "
            "vmlinuz itself");
  EXPECT_NE(rep.config_diff.find("+kernel=vmlinuz\n"), std::string::npos) << rep.config_diff;
  patch_boot({.boot_dir = t.boot, .root_dir = t.root});
  EXPECT_FALSE(fs::exists(t.boot / "vmlinux"));
  EXPECT_FALSE(fs::exists(t.root / "usr/lib/piprov/piprov-kernel-sync"));
  auto chk = check(t, PiBoard::Pi4);
  EXPECT_TRUE(chk.ok()) << testing::PrintToString(failing(chk));
  EXPECT_TRUE(has_rule(chk, "kernel-gzip"));

  StockTree v("focal", configs);
  test::write_start4(v.boot / "start4.elf", "Aug 26 2022");
  auto rv = patch_boot({.boot_dir = v.boot, .root_dir = v.root, .method = PatchMethod::Vmlinux});
  EXPECT_EQ(rv.method->why, "--method vmlinux was given");
  EXPECT_TRUE(fs::exists(v.boot / "vmlinux"));
  EXPECT_EQ(layout_name(detect_layout(v.boot, v.root).id), "piprov");
  piprov::test::expect_error(piprov::ErrorKind::Usage, "boots vmlinux",
                             [&] { patch_boot({.boot_dir = v.boot, .method = PatchMethod::Direct}); });
}

// Done when: each breakage is one finding with a fix.
TEST(BootLayout, BreakageIsOneFindingWithAFix) {
  REQUIRE_CONFIGS();
  struct Case {
    const char* stock;
    PiBoard board;
    std::function<void(const fs::path&)> brk;
    const char* rule;
  };
  const std::vector<Case> cases = {
      {"questing", PiBoard::Pi4, [](const fs::path& b) { fs::remove(b / "current/vmlinuz"); }, "kernel-missing"},
      {"questing", PiBoard::Pi5, [](const fs::path& b) { fs::remove(b / "current/cmdline.txt"); }, "cmdline-missing"},
      {"bookworm", PiBoard::Pi4, [](const fs::path& b) { fs::remove(b / "kernel8.img"); }, "kernel-missing"},
      {"bookworm", PiBoard::Pi5, [](const fs::path& b) { fs::remove(b / "kernel_2712.img"); }, "kernel-fallback"},
      {"noble", PiBoard::Pi4, [](const fs::path& b) { test::write_start4(b / "start4.elf", "Apr 16 2020"); },
       "kernel-compressed"},
      {"questing", PiBoard::Pi4,
       [](const fs::path& b) { piprov::test::write_file(b / "new/vmlinuz", read_file(b / "current/vmlinuz")); },
       "ab-new-leftover"},
      {"noble", PiBoard::Pi4,
       [](const fs::path& b) { piprov::test::write_file(b / "cmdline.txt", "console=tty1 root=/dev/mmcblk0p2\n"); },
       "root-kernel-name"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(c.stock) + " " + c.rule);
    StockTree t(c.stock, configs);
    c.brk(t.boot);
    auto r = check(t, c.board);
    ASSERT_EQ(failing(r), std::vector<std::string>{c.rule});
    for (const auto& f : r.findings)
      if (f.rule == c.rule) {
        EXPECT_FALSE(f.fix.empty());
        EXPECT_FALSE(f.message.empty());
      }
    EXPECT_FALSE(r.ok());
  }
  // Both Pi 5 kernels gone: the fallback kernel8.img is missing too.
  StockTree t("bookworm", configs);
  fs::remove(t.boot / "kernel_2712.img");
  fs::remove(t.boot / "kernel8.img");
  auto r = check(t, PiBoard::Pi5);
  ASSERT_EQ(failing(r), std::vector<std::string>{"kernel-missing"});
  EXPECT_EQ(r.findings[0].fix,
            "apt install --reinstall linux-image-rpi-2712 (Raspberry Pi OS's kernel package for the Pi 5 writes "
            "kernel_2712.img)");
  EXPECT_FALSE(r.usb_boot());
}

TEST(BootLayout, AbTrybootPendingIsInfo) {
  REQUIRE_CONFIGS();
  StockTree t("questing", configs);
  for (const char* f : {"vmlinuz", "initrd.img", "cmdline.txt"})
    write_file(t.boot / "new" / f, read_file(t.boot / "current" / f));
  auto r = check(t, PiBoard::Pi4);
  EXPECT_TRUE(r.ok()) << testing::PrintToString(failing(r));
  EXPECT_TRUE(has_rule(r, "ab-tryboot-pending"));
  // autoboot.txt without tryboot_a_b: the [tryboot] section is never read.
  fs::remove(t.boot / "autoboot.txt");
  EXPECT_EQ(failing(check(t, PiBoard::Pi4)), std::vector<std::string>{"ab-no-autoboot"});
}

// Trial 7, finding 3: for an image (boot check IMAGE, provision --dry-run), "rm -r IMAGE partition 1:
// /new/" pasted into a shell deleted the image. A fix names the boot partition of a disk written from
// it, and the command to run on the Pi; never a command on the image's path.
TEST(BootLayout, FixesForAnImageNameTheWrittenDiskNotTheImage) {
  REQUIRE_CONFIGS();
  StockTree t("questing", configs);
  write_file(t.boot / "new/vmlinuz", read_file(t.boot / "current/vmlinuz"));
  const std::string cmdline = read_file(t.boot / "current/cmdline.txt");
  write_file(t.boot / "current/cmdline.txt", "\xEF\xBB\xBF" + cmdline);
  auto fixes = [&](const std::string& image) {
    CheckOptions o{.boot_dir = t.boot, .root_dir = t.root, .scan_usb = false, .board = PiBoard::Pi4};
    o.image = image;
    std::map<std::string, std::string> out;
    for (const auto& f : check_boot(o).findings) out[f.rule] = f.fix;
    return out;
  };
  const std::string img = "/var/tmp/r1.img";
  auto on_image = fixes(img);
  EXPECT_EQ(on_image["ab-new-leftover"],
            "remove new/ on the boot partition of a disk written from /var/tmp/r1.img (on the Pi: rm -r "
            "/boot/firmware/new/); the next kernel update writes it again");
  EXPECT_EQ(on_image["cmdline-utf8-bom"],
            "save the file as UTF-8 without a byte order mark (e.g. sed -i '1s/^\\xEF\\xBB\\xBF//' FILE), FILE "
            "being current/cmdline.txt on the boot partition of a disk written from /var/tmp/r1.img");
  for (const auto& [rule, fix] : on_image) {
    EXPECT_EQ(fix.find(t.boot.string()), std::string::npos) << rule << ": " << fix;  // ImageTree::named() would
    EXPECT_EQ(fix.find("rm -r " + img), std::string::npos) << rule << ": " << fix;   // make it "IMAGE partition 1"
  }
  // A boot partition keeps its commands on BOOT_DIR.
  auto on_dir = fixes("");
  EXPECT_EQ(on_dir["ab-new-leftover"],
            "remove it (rm -r " + (t.boot / "new/").string() + "); the next kernel update writes it again");
  EXPECT_EQ(on_dir["cmdline-utf8-bom"], piprov::utf8_bom_fix((t.boot / "current/cmdline.txt").string()));

  fs::remove(t.boot / "autoboot.txt");
  EXPECT_EQ(fixes(img)["ab-no-autoboot"],
            "write autoboot.txt on the boot partition of a disk written from /var/tmp/r1.img with the lines [all] "
            "and tryboot_a_b=1 (as Ubuntu ships it)");
  EXPECT_EQ(fixes("")["ab-no-autoboot"], "write " + (t.boot / "autoboot.txt").string() +
                                             " with the lines [all] and tryboot_a_b=1 (as Ubuntu ships it)");
}

TEST(BootFirmware, SyntheticBuildDateFormats) {
  TempDir t;
  test::write_start4(t.path / "start4.elf", "Sep  3 2020");
  auto fi = firmware_info(t.path);
  EXPECT_EQ(fi.build_date, "2020-09-03");
  EXPECT_EQ(fi.decompresses_gzip, false);
  EXPECT_EQ(firmware_info(t.path, "vmlinuz").summary,
            "start4.elf was built on 2020-09-03: too old to decompress gzip kernels, kernel=vmlinuz must be an "
            "uncompressed Image");
  // The version banner form: date and time in one string.
  write_file(t.path / "start4.elf", std::string(100, 'x') + "Sep 14 2020 12:11:43" + std::string(100, 'y'));
  EXPECT_EQ(firmware_info(t.path).build_date, "2020-09-14");
  EXPECT_EQ(firmware_info(t.path).decompresses_gzip, true);
  // The summary names the kernel the firmware loads (was "(kernel=vmlinuz boots)" for any kernel).
  EXPECT_EQ(firmware_info(t.path, "kernel8.img").summary,
            "start4.elf was built on 2020-09-14: it decompresses gzip arm64 kernels itself (it loads "
            "kernel=kernel8.img)");
  EXPECT_EQ(firmware_info(t.path, "u-boot.bin").summary.find("vmlinuz"), std::string::npos);
  EXPECT_EQ(firmware_info(t.path).summary,
            "start4.elf was built on 2020-09-14: it decompresses gzip arm64 kernels itself");
  // The date in one string, the time in the next.
  using namespace std::string_literals;
  write_file(t.path / "start4.elf", "abc\0Oct  5 2021\0\0"s + "12:01:02\0"s + std::string(40, 'z'));
  EXPECT_EQ(firmware_info(t.path).build_date, "2021-10-05");
  // A date-like text without a time is not a build date.
  write_file(t.path / "start4.elf", std::string(30, 'x') + "Sep 14 2020 and more text here" + std::string(30, 'x'));
  EXPECT_EQ(firmware_info(t.path).build_date, "");
  EXPECT_EQ(firmware_info(t.path).summary,
            "start4.elf carries no readable build date: whether it decompresses gzip kernels is unknown");
}

// Debian's raspi-firmware 1.20220830 start4.elf: "VC_BUILD_ID_TIME: Aug 26 2022" and the time on its own line.
TEST(BootFirmware, RealDebianStart4) {
  TempDir t;
  auto why = test::fetch_real_start4(t.path / "start4.elf");
  if (!why.empty()) PIPROV_SKIP(why);
  auto fi = firmware_info(t.path);
  EXPECT_TRUE(fi.start4_present);
  EXPECT_EQ(fi.build_date, "2022-08-26");
  EXPECT_EQ(fi.decompresses_gzip, true);
  EXPECT_EQ(choose_method(t.path, std::nullopt).method, PatchMethod::Direct);
}
