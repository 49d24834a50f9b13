// boot check on the eighth new-user trial of issue 29: files named under a conditional filter
// ([gpioN=v], [tryboot], [0xSERIAL], [EDID=...]) are checked (info, finding 8), config-too-large
// counts the files config.txt includes (finding 9), an inline comment in kernel= is one finding
// with no fix that names a file after the comment, and file names are looked up as the firmware
// reads FAT: without regard to case.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "boot/check.hpp"
#include "boot/config_txt.hpp"
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

/// A boot partition at DIR/boot: kernel8.img (an arm64 Image), the Pi 4 and Pi 5 DTBs, cmdline.txt
/// and config.txt = CONFIG.
fs::path t8_boot(const fs::path& dir, const std::string& config) {
  const fs::path boot = dir / "boot";
  write_file(boot / "config.txt", config);
  write_file(boot / "kernel8.img", bt::fake_image(200000, 8));
  write_file(boot / "cmdline.txt", "console=tty1 root=PARTUUID=6c586e13-02 rootfstype=ext4 rootwait\n");
  bt::write_dtbs(boot, true);
  return boot;
}

piprov::boot::CheckReport t8_check(const fs::path& boot, PiBoard board = PiBoard::Pi4) {
  return piprov::boot::check_boot({.boot_dir = boot, .scan_usb = false, .board = board});
}

std::vector<const piprov::Finding*> t8_rules(const piprov::boot::CheckReport& r, const std::string& rule) {
  std::vector<const piprov::Finding*> out;
  for (const auto& f : r.findings)
    if (f.rule == rule) out.push_back(&f);
  return out;
}

}  // namespace

// Finding 8: kernel=nope.img under [gpio4=1] is an info naming the file and when it is loaded; the
// default boot (kernel8.img) is still what is checked and passes.
TEST(Trial8Boot, KernelUnderGpioFilterMissingIsAnInfo) {
  TempDir t;
  const auto boot = t8_boot(t.path, "[all]\narm_64bit=1\n[gpio4=1]\nkernel=nope.img\n[all]\n");
  auto r = t8_check(boot);
  const auto found = t8_rules(r, "conditional-file-missing");
  ASSERT_EQ(found.size(), 1u) << bt::findings_text(r);
  const auto& f = *found.front();
  EXPECT_EQ(f.severity, Severity::Info);
  EXPECT_EQ(f.line, 4);
  EXPECT_EQ(f.key, "kernel");
  EXPECT_EQ(f.message,
            "kernel=nope.img under [gpio4=1] (config.txt line 4): nope.img does not exist on the boot partition (the "
            "firmware loads it when GPIO4 is high; the default boot checked here does not)");
  EXPECT_EQ(f.fix, "put nope.img on the boot partition, or correct or remove the kernel= line under [gpio4=1]");
  EXPECT_EQ(f.source, "Raspberry Pi documentation, config_txt: conditional filters");
  EXPECT_TRUE(r.ok()) << bt::findings_text(r);
  EXPECT_EQ(r.resolved.kernel, "kernel8.img");
  EXPECT_EQ(bt::find_rule(r, "kernel-missing"), nullptr);
}

// Each conditional filter, each file key; a file that is there, [none], and a model filter that does
// not match the board give nothing.
TEST(Trial8Boot, EveryConditionalFilterAndFileKeyIsChecked) {
  struct Case {
    std::string config, key, when;
  };
  const std::vector<Case> cases = {
      {"[tryboot]\ndevice_tree=trial.dtb\n", "device_tree", "in a trial boot (reboot \"0 tryboot\")"},
      {"[0x12345678]\ninitramfs initrd-serial.img followkernel\n", "initramfs",
       "on the board whose serial number is 0x12345678"},
      {"[EDID=VSC-TD2220]\ncmdline=edid-cmdline.txt\n", "cmdline", "with a display whose EDID name is VSC-TD2220"},
      {"[gpio17=0]\narmstub=stub.bin\n", "armstub", "when GPIO17 is low"},
      {"[gpio4=1]\n[tryboot]\nkernel=both.img\n", "kernel",
       "when GPIO4 is high and in a trial boot (reboot \"0 tryboot\")"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.config);
    TempDir t;
    auto r = t8_check(t8_boot(t.path, "[all]\narm_64bit=1\n" + c.config + "[all]\n"));
    const auto found = t8_rules(r, "conditional-file-missing");
    ASSERT_EQ(found.size(), 1u) << bt::findings_text(r);
    EXPECT_EQ(found.front()->key, c.key);
    EXPECT_NE(found.front()->message.find("(the firmware loads it " + c.when + ";"), std::string::npos)
        << found.front()->message;
    EXPECT_TRUE(r.ok()) << bt::findings_text(r);
  }
  for (const std::string config : {"[gpio4=1]\nkernel=kernel8.img\n", "[none]\nkernel=nope.img\n",
                                   "[pi5]\n[gpio4=1]\nkernel=nope.img\n", "[HDMI:1]\nkernel=nope.img\n"}) {
    SCOPED_TRACE(config);
    TempDir t;
    auto r = t8_check(t8_boot(t.path, "[all]\narm_64bit=1\n" + config + "[all]\n"));
    EXPECT_EQ(bt::find_rule(r, "conditional-file-missing"), nullptr) << bt::findings_text(r);
  }
  // A file KERNEL.IMG under [gpio4=1] named in an included file, found under os_prefix.
  TempDir t;
  const auto boot = t8_boot(t.path, "[all]\nos_prefix=slot/\n[gpio4=1]\ninclude gpio.txt\n[all]\n");
  write_file(boot / "gpio.txt", "kernel=gpio.img\n");
  fs::create_directories(boot / "slot");
  fs::copy_file(boot / "kernel8.img", boot / "slot/kernel8.img");
  bt::write_dtbs(boot / "slot", false);  // the prefix is used only with its kernel and .dtb (os_prefix)
  auto r = t8_check(boot);
  const auto* f = bt::find_rule(r, "conditional-file-missing");
  ASSERT_NE(f, nullptr) << bt::findings_text(r);
  EXPECT_EQ(f->message.substr(0, f->message.find(" does not")),
            "kernel=gpio.img under [gpio4=1] (gpio.txt line 1): slot/gpio.img");
  write_file(boot / "slot/gpio.img", "x");
  EXPECT_EQ(bt::find_rule(t8_check(boot), "conditional-file-missing"), nullptr);
}

// The conditions of a line are reported only when asked for (Board::conditions_hold), as written.
TEST(Trial8Boot, EffectiveValuesNameTheirConditions) {
  const auto config = piprov::boot::ConfigTxt::parse(
      "kernel=a.img\n[gpio4=1]\n[EDID=Dell-U2412M]\nkernel=b.img\n[all]\nkernel=c.img\n");
  const piprov::boot::Board plain{"pi4"};
  auto v = config.effective_all("kernel", plain);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].value, "a.img");
  EXPECT_EQ(v[1].value, "c.img");
  piprov::boot::Board hold{"pi4"};
  hold.conditions_hold = true;
  v = config.effective_all("kernel", hold);
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[1].value, "b.img");
  EXPECT_EQ(v[1].conditions, "[EDID=Dell-U2412M][gpio4=1]");
  EXPECT_EQ(v[0].conditions, "");
  EXPECT_EQ(v[2].conditions, "");
}

// Finding 9: config-too-large counts the included files once each, and says how much came from which.
TEST(Trial8Boot, ConfigTooLargeCountsIncludedFiles) {
  TempDir t;
  const std::string base = "[all]\narm_64bit=1\ninclude big.txt\ninclude big.txt\n";
  const auto boot = t8_boot(t.path, base);
  std::string big;
  while (big.size() < 18692) big += "# a comment line of forty-two characters.\n";
  big.resize(18692);
  write_file(boot / "big.txt", big);
  auto r = t8_check(boot);
  const auto* f = bt::find_rule(r, "config-too-large");
  ASSERT_NE(f, nullptr) << bt::findings_text(r);
  EXPECT_EQ(f->severity, Severity::Warning);
  const std::size_t total = base.size() + big.size();
  EXPECT_EQ(f->message, "config.txt and the files it includes are " + std::to_string(total) +
                            " bytes, over 16 KiB (config.txt " + std::to_string(base.size()) +
                            " bytes, big.txt 18692 bytes): include inserts a file's content, so the firmware parses "
                            "them as one config and the included text counts; a Pi 5 has been reported not to boot "
                            "with a 49 KB config.txt (mostly comments)");
  EXPECT_EQ(f->fix, "remove comments and unused sections from config.txt and big.txt");
  EXPECT_NE(f->source.find("raspberrypi/firmware issue 1848"), std::string::npos);
  // Under the limit in total: nothing.
  big.resize(16 * 1024 - base.size());
  write_file(boot / "big.txt", big);
  EXPECT_EQ(bt::find_rule(t8_check(boot), "config-too-large"), nullptr);
  // One byte more: over.
  write_file(boot / "big.txt", big + "#");
  EXPECT_NE(bt::find_rule(t8_check(boot), "config-too-large"), nullptr);
}

// An include loop is read once: its size is not counted twice.
TEST(Trial8Boot, ConfigTooLargeCountsAnIncludeLoopOnce) {
  TempDir t;
  const auto boot = t8_boot(t.path, std::string(9000, '#') + "\n[all]\ninclude a.txt\n");
  write_file(boot / "a.txt", "include config.txt\n");
  auto r = t8_check(boot);
  EXPECT_NE(bt::find_rule(r, "include-loop"), nullptr) << bt::findings_text(r);
  EXPECT_EQ(bt::find_rule(r, "config-too-large"), nullptr) << bt::findings_text(r);
}

// Nit: `kernel=kernel8.img # my kernel` is one finding (kernel-missing) naming the file the firmware
// looks for, and its fix names no file with the comment in it.
TEST(Trial8Boot, InlineCommentInKernelIsOneFinding) {
  TempDir t;
  const auto boot = t8_boot(t.path, "[all]\narm_64bit=1\nkernel=kernel8.img # my kernel\ngpu_mem=16 # MiB\n");
  auto r = t8_check(boot);
  const auto missing = t8_rules(r, "kernel-missing");
  ASSERT_EQ(missing.size(), 1u) << bt::findings_text(r);
  EXPECT_EQ(missing.front()->line, 3);
  EXPECT_NE(missing.front()->message.find("'#' after a value is not a comment, so the firmware looks for a file named "
                                          "\"kernel8.img # my kernel\""),
            std::string::npos)
      << missing.front()->message;
  EXPECT_EQ(missing.front()->fix, "move the comment to its own line: kernel=kernel8.img (config.txt line 3)");
  // The inline-comment warning of the kernel= line is not given as well; gpu_mem's still is.
  const auto comments = t8_rules(r, "config-inline-comment");
  ASSERT_EQ(comments.size(), 1u) << bt::findings_text(r);
  EXPECT_EQ(comments.front()->line, 4);
  // Without kernel8.img either, the fix says so, and still names no file with '#'.
  fs::remove(boot / "kernel8.img");
  r = t8_check(boot);
  const auto* f = bt::find_rule(r, "kernel-missing");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->fix,
            "move the comment to its own line: kernel=kernel8.img (config.txt line 3); kernel8.img is not on the boot "
            "partition either: put the kernel there");
  EXPECT_EQ(f->fix.find("# my"), std::string::npos);
}

// Nit: the firmware reads FAT without regard to case: KERNEL8.IMG, CONFIG.TXT, upper-case DTB and
// cmdline names in a plain (case-sensitive) directory are found, and named as they are spelled.
TEST(Trial8Boot, FileNamesAreFoundInAnyCase) {
  TempDir t;
  const auto boot = t8_boot(t.path, "[all]\narm_64bit=1\ninclude Extra.TXT\n");
  fs::rename(boot / "kernel8.img", boot / "KERNEL8.IMG");
  fs::rename(boot / "config.txt", boot / "CONFIG.TXT");
  fs::rename(boot / "cmdline.txt", boot / "CmdLine.txt");
  fs::rename(boot / "bcm2711-rpi-4-b.dtb", boot / "BCM2711-RPI-4-B.DTB");
  fs::create_directories(boot / "Sub");
  write_file(boot / "Sub/INITRD.IMG", "initrd");
  write_file(boot / "extra.txt", "initramfs sub/initrd.img followkernel\n");
  auto r = t8_check(boot);
  EXPECT_TRUE(r.ok()) << bt::findings_text(r);
  for (const char* rule :
       {"kernel-missing", "dtb-missing", "cmdline-missing", "include-missing", "initramfs-file-missing"})
    EXPECT_EQ(bt::find_rule(r, rule), nullptr) << rule << "\n" << bt::findings_text(r);
  EXPECT_EQ(r.resolved.kernel, "KERNEL8.IMG");
  EXPECT_EQ(r.kernel_file, "KERNEL8.IMG");
  EXPECT_EQ(r.resolved.initramfs, "Sub/INITRD.IMG");
  EXPECT_EQ(r.resolved.cmdline, "CmdLine.txt");
  EXPECT_EQ(r.resolved.root, "PARTUUID=6c586e13-02");
  // The one lookup: partition_file() returns the file as spelled; a missing name stays as written.
  EXPECT_EQ(piprov::boot::partition_file(boot, "sub/initrd.img").value(), boot / "Sub/INITRD.IMG");
  EXPECT_EQ(piprov::boot::partition_file(boot, "sub/none.img").value(), boot / "Sub/none.img");
  EXPECT_EQ(piprov::boot::partition_file(boot, "nodir/x.img").value(), boot / "nodir/x.img");
  // A kernel that is not an Image is named as it is spelled.
  write_file(boot / "KERNEL8.IMG", std::string(4096, 'x'));
  r = t8_check(boot);
  const auto* f = bt::find_rule(r, "kernel-invalid");
  ASSERT_NE(f, nullptr) << bt::findings_text(r);
  EXPECT_NE(f->message.find("KERNEL8.IMG"), std::string::npos) << f->message;
}

// The same for the other files config.txt names: device_tree=, armstub= and include (here in an
// included file, whose line the finding names).
TEST(Trial8Boot, InlineCommentInOtherFileNamesIsOneFinding) {
  TempDir t;
  const auto boot =
      t8_boot(t.path, "[all]\narm_64bit=1\ndevice_tree=bcm2711-rpi-4-b.dtb # mine\ninclude extra.txt # more\n");
  write_file(boot / "extra.txt", "armstub=stub.bin # ARM stub\n");
  write_file(boot / "stub.bin", "stub");
  auto r = t8_check(boot);
  EXPECT_EQ(bt::find_rule(r, "config-inline-comment"), nullptr) << bt::findings_text(r);
  const auto* dt = bt::find_rule(r, "device-tree-missing");
  ASSERT_NE(dt, nullptr) << bt::findings_text(r);
  EXPECT_NE(dt->message.find("the firmware looks for a file named \"bcm2711-rpi-4-b.dtb # mine\""), std::string::npos);
  EXPECT_EQ(dt->fix, "move the comment to its own line: device_tree=bcm2711-rpi-4-b.dtb (config.txt line 3)");
  const auto* inc = bt::find_rule(r, "include-missing");
  ASSERT_NE(inc, nullptr) << bt::findings_text(r);
  EXPECT_EQ(inc->line, 4);
  EXPECT_EQ(inc->fix, "move the comment to its own line: include extra.txt (config.txt line 4)");
  // The include names no file the firmware finds, so extra.txt is not read: its armstub= is not checked.
  EXPECT_EQ(bt::find_rule(r, "armstub-missing"), nullptr) << bt::findings_text(r);
  write_file(boot / "config.txt", "[all]\narm_64bit=1\ninclude extra.txt\n");
  r = t8_check(boot);
  const auto* stub = bt::find_rule(r, "armstub-missing");
  ASSERT_NE(stub, nullptr) << bt::findings_text(r);
  EXPECT_EQ(stub->fix, "move the comment to its own line: armstub=stub.bin (extra.txt line 1)");
  EXPECT_EQ(bt::find_rule(r, "config-inline-comment"), nullptr) << bt::findings_text(r);
  fs::remove(boot / "stub.bin");
  r = t8_check(boot);
  EXPECT_EQ(bt::find_rule(r, "armstub-missing")->fix,
            "move the comment to its own line: armstub=stub.bin (extra.txt line 1); stub.bin is not on the boot "
            "partition either: copy the ARM stub stub.bin to the boot partition");
}

// A Pi 5 with only KERNEL8.IMG falls back to it (kernel-fallback, naming no missing kernel8.img).
TEST(Trial8Boot, Pi5FallbackToUpperCaseKernel8) {
  TempDir t;
  const auto boot = t8_boot(t.path, "[all]\n");
  fs::rename(boot / "kernel8.img", boot / "KERNEL8.IMG");
  auto r = t8_check(boot, PiBoard::Pi5);
  EXPECT_EQ(r.resolved.kernel, "KERNEL8.IMG");
  EXPECT_NE(bt::find_rule(r, "kernel-fallback"), nullptr) << bt::findings_text(r);
  EXPECT_EQ(bt::find_rule(r, "kernel-missing"), nullptr) << bt::findings_text(r);
}
