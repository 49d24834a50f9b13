// boot check on the ninth new-user trial of issue 29: os_prefix is used only when the firmware finds
// both the kernel and the .dtb under it; otherwise it is ignored (set to "") and the top-level files
// boot (Raspberry Pi documentation, config_txt: os_prefix).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "boot/check.hpp"
#include "boot/layout.hpp"
#include "support/boot_fixture.hpp"
#include "support/testsupport.hpp"

namespace fs = std::filesystem;
using piprov::PiBoard;
using piprov::Severity;
using piprov::test::TempDir;
using piprov::test::write_file;
namespace bt = piprov::boot::test;

namespace {

piprov::boot::CheckReport t9_check(const fs::path& boot, PiBoard b) {
  return piprov::boot::check_boot({.boot_dir = boot, .scan_usb = false, .board = b});
}

/// The rules of the findings that fail the check (warnings and errors), in report order.
std::vector<std::string> t9_failing(const piprov::boot::CheckReport& r) {
  std::vector<std::string> v;
  for (const auto& f : r.findings)
    if (f.severity != Severity::Info) v.push_back(f.rule);
  return v;
}

std::string t9_all(const piprov::boot::CheckReport& r) {
  std::string s;
  for (const auto& f : r.findings) s += f.rule + "@" + std::to_string(f.line) + ": " + f.message + " | " + f.fix + "\n";
  return s;
}

struct T9Board {
  PiBoard board;
  const char* kernel;  ///< the firmware's default kernel name
  const char* dtb;     ///< the board's own DTB
  const char* title;   ///< as messages name the board
};
const T9Board kT9Boards[] = {{PiBoard::Pi4, "kernel8.img", "bcm2711-rpi-4-b.dtb", "Pi 4"},
                             {PiBoard::Pi5, "kernel_2712.img", "bcm2712-rpi-5-b.dtb", "Pi 5"}};

/// BOOT with `os_prefix=sub/` on config line 2: the top level holds the kernel, the DTBs of both
/// families and cmdline.txt; sub/ holds only the kernel (the trial's d3.img).
fs::path t9_boot(const fs::path& dir, const T9Board& b) {
  const fs::path boot = dir / "boot";
  write_file(boot / "config.txt", "[all]\nos_prefix=sub/\n");
  write_file(boot / b.kernel, bt::fake_image(200000, 9));
  write_file(boot / "cmdline.txt", "console=tty1 root=PARTUUID=6c586e13-02 rootfstype=ext4 rootwait\n");
  bt::write_dtbs(boot, true);
  write_file(boot / "sub" / b.kernel, bt::fake_image(200000, 10));
  return boot;
}

}  // namespace

// (a) The prefixed kernel is there but not the prefixed .dtb: the firmware drops the prefix and
// boots the top-level files. One warning names the missing file; the rest is judged at the top level.
TEST(Trial9Boot, PrefixWithoutItsDtbIsIgnoredAndTheTopLevelBoots) {
  for (const auto& b : kT9Boards) {
    SCOPED_TRACE(b.title);
    TempDir t;
    const auto boot = t9_boot(t.path, b);
    auto r = t9_check(boot, b.board);
    EXPECT_TRUE(r.resolved.prefix_ignored);
    EXPECT_EQ(r.resolved.os_prefix, "");
    EXPECT_EQ(r.resolved.prefix_missing, std::string("sub/") + b.dtb);
    EXPECT_EQ(r.resolved.kernel, b.kernel);
    EXPECT_EQ(r.resolved.cmdline, "cmdline.txt");
    EXPECT_EQ(r.resolved.root, "PARTUUID=6c586e13-02");
    ASSERT_EQ(t9_failing(r), std::vector<std::string>{"os-prefix-ignored"}) << t9_all(r);
    const auto* f = bt::find_rule(r, "os-prefix-ignored");
    EXPECT_EQ(f->severity, Severity::Warning);
    EXPECT_EQ(f->line, 2);
    EXPECT_EQ(f->key, "os_prefix");
    EXPECT_EQ(f->message, "os_prefix=sub/ (config.txt line 2) has no effect: sub/" + std::string(b.dtb) +
                              " does not exist in " + boot.string() +
                              ", and the firmware uses the prefix only when the kernel and the .dtb are both there; "
                              "it boots the top-level " +
                              b.kernel + ", .dtb, cmdline.txt and overlays/ instead");
    EXPECT_EQ(f->fix, "put sub/" + std::string(b.dtb) +
                          " on the boot partition to boot from sub/, or remove the os_prefix line to boot the "
                          "top-level files as now");
    EXPECT_NE(r.headline().find("(kernel " + std::string(b.kernel) + ", initramfs none, cmdline cmdline.txt,"),
              std::string::npos)
        << r.headline();

    // Raspberry Pi OS's files at the top level (pi-gen's issue.txt): its layout, not "unknown" for
    // a prefix the firmware ignores; the evidence says why. The layout is a Pi 4's view (layout.hpp).
    write_file(boot / "issue.txt", "Raspberry Pi reference 2024-11-19\n");
    write_file(boot / "kernel8.img", bt::fake_image(200000, 9));
    write_file(boot / "sub/kernel8.img", bt::fake_image(200000, 10));
    r = t9_check(boot, b.board);
    EXPECT_EQ(piprov::boot::layout_name(r.layout.id), "raspios");
    EXPECT_TRUE(r.usb_boot()) << r.headline();
    const auto& ev = r.layout.evidence;
    EXPECT_NE(std::find(ev.begin(), ev.end(), "os_prefix=sub/ ignored by the firmware (no sub/bcm2711-rpi-4-b.dtb)"),
              ev.end())
        << testing::PrintToString(ev);
    // With its .dtb the prefix is used: a prefix without A/B is no layout piprov knows.
    bt::write_dtbs(boot / "sub", true);
    write_file(boot / "sub/cmdline.txt", "console=tty1 root=PARTUUID=6c586e13-02 rootfstype=ext4 rootwait\n");
    r = t9_check(boot, b.board);
    EXPECT_EQ(piprov::boot::layout_name(r.layout.id), "unknown");
    EXPECT_EQ(r.resolved.kernel, "sub/" + std::string(b.kernel));
    EXPECT_EQ(bt::find_rule(r, "os-prefix-ignored"), nullptr) << t9_all(r);
    fs::remove_all(boot / "sub");
    write_file(boot / "sub" / b.kernel, bt::fake_image(200000, 10));
    if (b.board == PiBoard::Pi5) fs::remove(boot / "kernel8.img");

    // The top-level DTB and cmdline.txt missing too: their findings name the top-level paths.
    for (const auto& e : fs::directory_iterator(boot))
      if (e.path().extension() == ".dtb") fs::remove(e.path());
    fs::remove(boot / "cmdline.txt");
    r = t9_check(boot, b.board);
    const auto* dtb = bt::find_rule(r, "dtb-missing");
    ASSERT_NE(dtb, nullptr) << t9_all(r);
    EXPECT_EQ(dtb->message.substr(0, dtb->message.find(':')),
              std::string("the ") + b.title + " device tree " + b.dtb + " does not exist in " + boot.string())
        << dtb->message;
    const auto* cmd = bt::find_rule(r, "cmdline-missing");
    ASSERT_NE(cmd, nullptr) << t9_all(r);
    EXPECT_EQ(cmd->message, "cmdline.txt (the cmdline file the firmware reads) does not exist");
    EXPECT_EQ(bt::find_rule(r, "kernel-missing"), nullptr) << t9_all(r);
    EXPECT_NE(bt::find_rule(r, "os-prefix-ignored"), nullptr) << t9_all(r);
  }
}

// (b) The prefix is not viable and the top level has no kernel either: one error, on the missing
// prefixed file, saying where the firmware falls back to.
TEST(Trial9Boot, PrefixNotViableAndNoTopLevelKernelIsOneError) {
  for (const auto& b : kT9Boards) {
    SCOPED_TRACE(b.title);
    TempDir t;
    const auto boot = t9_boot(t.path, b);
    fs::remove(boot / b.kernel);
    write_file(boot / "sub/cmdline.txt", "console=tty1 root=PARTUUID=6c586e13-02 rootfstype=ext4 rootwait\n");
    auto r = t9_check(boot, b.board);
    EXPECT_FALSE(r.resolved.prefix_ignored);
    EXPECT_EQ(r.resolved.os_prefix, "sub/");
    EXPECT_EQ(r.resolved.kernel, std::string("sub/") + b.kernel);
    ASSERT_EQ(t9_failing(r), std::vector<std::string>{"dtb-missing"}) << t9_all(r);
    const auto* dtb = bt::find_rule(r, "dtb-missing");
    EXPECT_NE(dtb->message.find(std::string("sub/") + b.dtb + " does not exist in " + boot.string() +
                                " under os_prefix=sub/"),
              std::string::npos)
        << dtb->message;
    EXPECT_NE(dtb->message.find("(os_prefix=sub/ is used only when its kernel and .dtb are both there: without sub/" +
                                std::string(b.dtb) + " the firmware falls back to the top level, where there is no " +
                                b.kernel + " either)"),
              std::string::npos)
        << dtb->message;
    EXPECT_FALSE(r.ok());

    // The prefixed kernel missing instead (its .dtb there): one kernel-missing, with the same note.
    bt::write_dtbs(boot / "sub", true);
    fs::remove(boot / "sub" / b.kernel);
    r = t9_check(boot, b.board);
    ASSERT_EQ(t9_failing(r), std::vector<std::string>{"kernel-missing"}) << t9_all(r);
    const auto* k = bt::find_rule(r, "kernel-missing");
    EXPECT_NE(k->message.find("(os_prefix=sub/ is used only when its kernel and .dtb are both there: without sub/" +
                              std::string(b.kernel) + " the firmware falls back to the top level, where there is no " +
                              b.kernel + " either)"),
              std::string::npos)
        << k->message;
  }
}

// The expected .dtb is device_tree='s when it is set: a prefix holding that file (and not the
// board's own) is viable; an empty device_tree= loads none, so only the kernel is tested.
TEST(Trial9Boot, DeviceTreeNamesTheDtbThePrefixNeeds) {
  TempDir t;
  const auto boot = t9_boot(t.path, kT9Boards[0]);
  write_file(boot / "config.txt", "[all]\nos_prefix=sub/\ndevice_tree=custom.dtb\n");
  write_file(boot / "sub/custom.dtb", "dtb");
  write_file(boot / "sub/cmdline.txt", "console=tty1 root=PARTUUID=6c586e13-02 rootfstype=ext4 rootwait\n");
  auto r = t9_check(boot, PiBoard::Pi4);
  EXPECT_FALSE(r.resolved.prefix_ignored);
  EXPECT_EQ(r.resolved.prefix_missing, "");
  EXPECT_EQ(r.resolved.kernel, "sub/kernel8.img");
  fs::remove(boot / "sub/custom.dtb");
  r = t9_check(boot, PiBoard::Pi4);
  EXPECT_TRUE(r.resolved.prefix_ignored);
  EXPECT_EQ(r.resolved.prefix_missing, "sub/custom.dtb");
  EXPECT_EQ(r.resolved.kernel, "kernel8.img");
  // The device_tree= file is then looked for at the top level.
  const auto* dt = bt::find_rule(r, "device-tree-missing");
  ASSERT_NE(dt, nullptr) << t9_all(r);
  EXPECT_EQ(dt->message, "device_tree=custom.dtb (config.txt line 3): custom.dtb does not exist in " + boot.string());
  write_file(boot / "config.txt", "[all]\nos_prefix=sub/\ndevice_tree=\n");
  r = t9_check(boot, PiBoard::Pi4);
  EXPECT_FALSE(r.resolved.prefix_ignored);
  EXPECT_EQ(r.resolved.kernel, "sub/kernel8.img");
}
