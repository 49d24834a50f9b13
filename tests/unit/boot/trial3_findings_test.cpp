// boot check and boot patch on the third new-user trial of issue 29: U-Boot's root= decided by the
// boot script's content, an empty device_tree= whose fallback DTB is missing too, every template
// value in the cmdline, config.txt findings in line order, kernel=/NAME beside os_prefix, and a
// BOOT_DIR that does not exist.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "boot/check.hpp"
#include "boot/patch.hpp"
#include "boot/uboot_script.hpp"
#include "core/error.hpp"
#include "core/file.hpp"
#include "support/boot_fixture.hpp"
#include "support/testsupport.hpp"

namespace fs = std::filesystem;
using piprov::PiBoard;
using piprov::Severity;
using piprov::test::TempDir;
using piprov::test::write_file;
namespace bt = piprov::boot::test;

namespace {

piprov::boot::CheckReport t3_check(const fs::path& boot, PiBoard b = PiBoard::Pi4) {
  return piprov::boot::check_boot({.boot_dir = boot, .scan_usb = false, .board = b});
}

std::vector<std::string> t3_rules(const piprov::boot::CheckReport& r) {
  std::vector<std::string> v;
  for (const auto& f : r.findings) v.push_back(f.rule + "@" + std::to_string(f.line));
  return v;
}

#define T3_REQUIRE_MKIMAGE()                                                                         \
  do {                                                                                               \
    if (auto why = piprov::test::tool_unavailable_reason("mkimage"); !why.empty()) PIPROV_SKIP(why); \
  } while (0)

}  // namespace

// Finding 6: Ubuntu 20.04 (ubuntu-uboot) with a cmdline without root= was called right ("U-Boot's
// boot script adds root="), and boot patch printed "patched" leaving cmdline-no-root. Ubuntu's
// boot.scr (flash-kernel bootscr.rpi) adds no root=; a HAOS-style script does: decided by content.
TEST(Trial3Boot, UbuntuUbootCmdlineWithoutRootIsAnErrorAndPatchRefuses) {
  T3_REQUIRE_MKIMAGE();
  bt::BootTree tr;
  write_file(tr.boot / "cmdline.txt", "console=tty1 rootwait\n");
  auto r = t3_check(tr.boot);
  ASSERT_NE(bt::find_rule(r, "cmdline-no-root"), nullptr) << testing::PrintToString(t3_rules(r));
  EXPECT_EQ(bt::find_rule(r, "cmdline-no-root")->severity, Severity::Error);
  EXPECT_NE(bt::find_rule(r, "cmdline-no-root")->message.find("flash-kernel's bootscr.rpi, sets none either"),
            std::string::npos);
  EXPECT_EQ(bt::find_rule(r, "cmdline-root-from-uboot"), nullptr);
  ASSERT_NE(bt::find_rule(r, "kernel-uboot"), nullptr);
  EXPECT_EQ(
      bt::find_rule(r, "kernel-uboot")->fix.rfind("add root=LABEL=writable to cmdline.txt (cmdline-no-root), then ", 0),
      0u)
      << bt::find_rule(r, "kernel-uboot")->fix;

  // boot patch refuses (usage, exit 2) and changes nothing, dry run or not.
  const std::string config = piprov::read_file(tr.boot / "config.txt");
  for (bool dry : {true, false}) {
    try {
      piprov::boot::patch_boot({.boot_dir = tr.boot, .dry_run = dry});
      ADD_FAILURE() << "boot patch did not refuse a cmdline without root=";
    } catch (const piprov::Error& e) {
      EXPECT_EQ(e.kind(), piprov::ErrorKind::Usage);
      EXPECT_NE(std::string(e.what()).find("cmdline.txt has no root=: after the patch"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(piprov::read_file(tr.boot / "config.txt"), config);
  EXPECT_FALSE(fs::exists(tr.boot / "vmlinux"));

  // Ubuntu's boot.scr on the partition, without root=: the same error.
  write_file(tr.boot / "boot.scr",
             bt::mkimage_script("fdt addr ${fdt_addr}\nfdt get value bootargs /chosen bootargs\n"));
  ASSERT_NE(bt::find_rule(t3_check(tr.boot), "cmdline-no-root"), nullptr);
  // A boot script that sets root= supplies it: info, not an error; from a variable U-Boot sets at
  // run time, not judged.
  write_file(tr.boot / "boot.scr",
             bt::mkimage_script("setenv bootargs \"${bootargs} root=PARTUUID=${uuid} rootwait\"\n"));
  r = t3_check(tr.boot);
  EXPECT_EQ(bt::find_rule(r, "cmdline-no-root"), nullptr) << testing::PrintToString(t3_rules(r));
  ASSERT_NE(bt::find_rule(r, "cmdline-root-from-uboot"), nullptr);
  EXPECT_EQ(bt::find_rule(r, "cmdline-root-from-uboot")->message,
            "cmdline.txt has no root=: U-Boot's boot script boot.scr sets root=PARTUUID=${uuid} (line 1) from a "
            "variable U-Boot sets at run time, which piprov does not know: not judged");
  EXPECT_EQ(bt::find_rule(r, "root-partuuid-invalid"), nullptr);
  EXPECT_EQ(bt::find_rule(r, "template-value"), nullptr);
}

// Trial 4, B6: a root= in boot.scr counts only where the script sets it (setenv, env set, a
// setexpr sub/gsub replacement), not in a comment, an echo, or a gsub pattern that removes it.
TEST(Trial4Boot, BootScriptRootIsTheOneItSets) {
  T3_REQUIRE_MKIMAGE();
  using piprov::boot::UbootRoot;
  auto root_of = [](const std::string& script) {
    const std::string file = bt::mkimage_script(script);  // the text is a view into it
    const auto text = piprov::boot::uboot_script_text(file);
    EXPECT_TRUE(text.ok) << text.why;
    EXPECT_EQ(text.text, script);
    return piprov::boot::uboot_script_root(text.text).root;
  };
  for (const char* adds : {"setenv bootargs \"${bootargs} root=PARTUUID=${uuid} rootwait\"\n",
                           "env set bootargs_a 'root=PARTUUID=8d3d53e3-6d49-4c38-8349-aff6859e82fd rauc.slot=A'\n"
                           "setenv bootargs \"${bootargs} ${bootargs_a}\"\n"})
    EXPECT_EQ(root_of(adds), UbootRoot::Sets) << adds;
  for (const char* none :
       {"# the kernel takes root= from cmdline.txt, which the firmware passes on\n"
        "setenv bootargs \"${bootargs} rootwait\"\nload mmc 0:1 ${kernel_addr_r} Image\n",
        "setexpr bootargs gsub \"root=/dev/mmcblk0p2\" \"\" \"${bootargs}\"\n", "echo no root= here; booti\n",
        "setenv bootargs \"${bootargs} rootwait\" # root= comes from cmdline.txt\n",
        // a gsub whose pattern needs a root= that bootargs does not have changes nothing
        "setexpr bootargs gsub \"root=[^ ]*\" \"root=LABEL=writable\" \"${bootargs}\"\n"})
    EXPECT_EQ(root_of(none), UbootRoot::None) << none;
  // Set only under a condition: piprov cannot tell.
  EXPECT_EQ(root_of("if test -n ${x}; then setenv bootargs root=/dev/sda2; fi\n"), UbootRoot::Unknown);

  TempDir t;
  write_file(t.path / "config.txt", "[all]\narm_64bit=1\nkernel=u-boot.bin\n");
  write_file(t.path / "cmdline.txt", "console=tty0 rootwait\n");
  write_file(t.path / "u-boot.bin", bt::uboot_binary());
  bt::write_dtbs(t.path);
  write_file(t.path / "boot.scr",
             bt::mkimage_script("# the kernel takes root= from cmdline.txt, which the firmware passes "
                                "on\nsetenv bootargs \"${bootargs} rootwait\"\n"));
  auto r = t3_check(t.path);
  EXPECT_EQ(bt::find_rule(r, "cmdline-root-from-uboot"), nullptr) << testing::PrintToString(t3_rules(r));
  ASSERT_NE(bt::find_rule(r, "cmdline-no-root"), nullptr) << testing::PrintToString(t3_rules(r));
  EXPECT_NE(bt::find_rule(r, "cmdline-no-root")->message.find("boot.scr sets none either"), std::string::npos);
}

// Trial 8, finding 7: bootargs evaluated in order, as U-Boot runs the script: a later setenv without
// root= replaces an earlier one with it; ${bootargs} in the value keeps the earlier value; a variable
// expanded into bootargs carries its value; root= put in another variable only does not count; what
// piprov cannot evaluate (a condition, a variable the script does not set, run) is an info saying so.
TEST(Trial8Boot, BootScriptBootargsAreEvaluatedInOrder) {
  T3_REQUIRE_MKIMAGE();
  TempDir t;
  write_file(t.path / "config.txt", "[all]\narm_64bit=1\nkernel=u-boot.bin\n");
  write_file(t.path / "cmdline.txt", "console=tty1 rootwait\n");
  write_file(t.path / "u-boot.bin", bt::uboot_binary());
  bt::write_dtbs(t.path);
  struct Case {
    std::string script, rule, message;
  };
  const std::string no_root = "cmdline.txt has no root= parameter: the kernel will not find the root filesystem; ";
  const std::vector<Case> cases = {
      // the trial's script: the second setenv replaces the first
      {"setenv bootargs \"root=PARTUUID=abcd-02\"\nsetenv bootargs \"console=tty1\"\nbooti ${kernel_addr_r}\n",
       "cmdline-no-root",
       no_root + "U-Boot's boot script boot.scr sets none either: line 2 replaces bootargs with a value without root= "
                 "(the last wins)"},
      {"setenv bootargs \"console=tty1\"\nsetenv bootargs \"${bootargs} root=PARTUUID=abcd1234-02\"\n",
       "cmdline-root-from-uboot",
       "cmdline.txt has no root=: U-Boot's boot script boot.scr sets root=PARTUUID=abcd1234-02 (line 2)"},
      {"setenv bootargs \"root=PARTUUID=abcd1234-02\"\nsetenv bootargs \"${bootargs} console=tty1\"\n",
       "cmdline-root-from-uboot",
       "cmdline.txt has no root=: U-Boot's boot script boot.scr sets root=PARTUUID=abcd1234-02 (line 1)"},
      // root= in another variable, never put into bootargs
      {"setenv myroot root=/dev/sda2\nbooti ${kernel_addr_r}\n", "cmdline-no-root",
       no_root + "U-Boot's boot script boot.scr sets none either: it passes this command line on"},
      // ... and expanded into it
      {"setenv myargs \"root=PARTUUID=abcd1234-02 rootwait\"\nsetenv bootargs ${myargs}\n", "cmdline-root-from-uboot",
       "cmdline.txt has no root=: U-Boot's boot script boot.scr sets root=PARTUUID=abcd1234-02 (line 1)"},
      {"setenv myargs console=tty1\nsetenv bootargs ${myargs}\n", "cmdline-no-root",
       no_root + "U-Boot's boot script boot.scr sets none either: line 2 replaces bootargs with a value without root= "
                 "(the last wins)"},
      // a boot before the root= is set: the kernel got none
      {"booti ${kernel_addr_r}\nsetenv bootargs root=/dev/sda2\n", "cmdline-no-root",
       no_root + "U-Boot's boot script boot.scr sets none either: it passes this command line on"},
      // what piprov cannot tell
      {"setenv bootargs ${myargs}\n", "cmdline-root-uboot-unknown",
       "cmdline.txt has no root=: piprov cannot tell whether U-Boot's boot script boot.scr puts root= in bootargs: "
       "line 1 expands ${myargs}, which the script does not set"},
      {"if load mmc 0:1 ${a} x; then\n  setenv bootargs \"${bootargs} root=/dev/sda2\"\nfi\n",
       "cmdline-root-uboot-unknown",
       "cmdline.txt has no root=: piprov cannot tell whether U-Boot's boot script boot.scr puts root= in bootargs: "
       "line 2 sets bootargs under a condition (with root=); otherwise it stays as it was"},
      {"setenv bootargs root=/dev/sda2\nrun mybootcmd\n", "cmdline-root-uboot-unknown",
       "cmdline.txt has no root=: piprov cannot tell whether U-Boot's boot script boot.scr puts root= in bootargs: "
       "line 2 runs `run mybootcmd`, which may set any variable"},
  };
  for (const auto& c : cases) {
    write_file(t.path / "boot.scr", bt::mkimage_script(c.script));
    auto r = t3_check(t.path);
    const auto* f = bt::find_rule(r, c.rule);
    ASSERT_NE(f, nullptr) << c.script << testing::PrintToString(t3_rules(r));
    EXPECT_EQ(f->message, c.message) << c.script;
    EXPECT_EQ(f->severity, c.rule == "cmdline-no-root" ? Severity::Error : Severity::Info) << c.script;
    for (const char* other : {"cmdline-no-root", "cmdline-root-from-uboot", "cmdline-root-uboot-unknown"})
      if (c.rule != other) EXPECT_EQ(bt::find_rule(r, other), nullptr) << c.script << other;
  }
}

// Another U-Boot (by content) whose boot.scr sets no root=: the error too.
TEST(Trial3Boot, OtherUbootWithABootScriptWithoutRootIsAnError) {
  T3_REQUIRE_MKIMAGE();
  TempDir t;
  write_file(t.path / "config.txt", "[all]\narm_64bit=1\nkernel=u-boot.bin\n");
  write_file(t.path / "cmdline.txt", "console=tty0 rootwait\n");
  write_file(t.path / "u-boot.bin", bt::uboot_binary());
  bt::write_dtbs(t.path);
  EXPECT_NE(bt::find_rule(t3_check(t.path), "cmdline-root-from-uboot"), nullptr);  // no script to read: trusted
  write_file(t.path / "boot.scr", bt::mkimage_script("load mmc 0:1 ${kernel_addr_r} Image\nbooti ${kernel_addr_r}\n"));
  auto r = t3_check(t.path);
  ASSERT_NE(bt::find_rule(r, "cmdline-no-root"), nullptr) << testing::PrintToString(t3_rules(r));
  EXPECT_NE(bt::find_rule(r, "cmdline-no-root")->message.find("boot.scr sets none either"), std::string::npos);
}

// Trial 7, finding 2: a real mkimage boot.scr that sets root= was read as setting none. The
// header's magic starts with 0x27 (a quote), which swallowed the script, depending on the CRC and
// timestamp bytes. The header is parsed (magic, CRCs, ih_size, ih_type script), the length table
// skipped. A plain-text boot.scr (boot.cmd saved as boot.scr) U-Boot's source command refuses (U-Boot
// docs, "source command": legacy image or FIT only): it sets no root= (trial 9, finding 5).
TEST(Trial7Boot, RealMkimageBootScrThatSetsRootIsRead) {
  T3_REQUIRE_MKIMAGE();
  TempDir t;
  write_file(t.path / "config.txt", "[all]\narm_64bit=1\nkernel=u-boot.bin\n");
  write_file(t.path / "cmdline.txt", "console=tty1 rootwait\n");
  write_file(t.path / "u-boot.bin", bt::uboot_binary());
  bt::write_dtbs(t.path);
  const std::string sets = "setenv bootargs \"${bootargs} root=PARTUUID=abcd1234-02\"\n";
  // The trial's three scripts, and 12 more whose differing text gives other CRC bytes.
  std::vector<std::string> scripts = {sets, "# HAOS-like\n" + sets,
                                      "env set bootargs \"${bootargs} root=PARTUUID=abcd1234-02\"\n"};
  for (int i = 0; i < 12; ++i) scripts.push_back("echo " + std::string(i, 'x') + "\n" + sets);
  piprov::boot::CheckReport r;
  for (const auto& script : scripts) {
    const std::string scr = bt::mkimage_script(script);
    ASSERT_EQ(scr.compare(0, 4, "\x27\x05\x19\x56"), 0);  // mkimage's legacy header, as U-Boot reads it
    write_file(t.path / "boot.scr", scr);
    r = t3_check(t.path);
    EXPECT_EQ(bt::find_rule(r, "cmdline-no-root"), nullptr) << script << testing::PrintToString(t3_rules(r));
    EXPECT_NE(bt::find_rule(r, "cmdline-root-from-uboot"), nullptr) << script;
    EXPECT_EQ(piprov::count_findings(r.findings).errors, 0) << script << testing::PrintToString(t3_rules(r));
    // The same script as plain text (no header): U-Boot does not run it.
    write_file(t.path / "boot.scr", script);
    r = t3_check(t.path);
    EXPECT_EQ(bt::find_rule(r, "cmdline-root-from-uboot"), nullptr) << script;
    const auto* f = bt::find_rule(r, "cmdline-no-root");
    ASSERT_NE(f, nullptr) << script << testing::PrintToString(t3_rules(r));
    EXPECT_EQ(f->message,
              "cmdline.txt has no root= parameter: the kernel will not find the root filesystem; boot.scr is plain "
              "text, not an mkimage script: U-Boot does not run it (U-Boot: Wrong image format for \"source\" "
              "command)");
    EXPECT_EQ(f->fix,
              "make it a script U-Boot runs: mv boot.scr boot.cmd, then mkimage -A arm64 -T script -C none -d "
              "boot.cmd boot.scr");
  }
  // A root= only after the script (past ih_size's data) does not count: U-Boot never runs it.
  write_file(t.path / "boot.scr", bt::mkimage_script("setenv bootargs \"${bootargs} rootwait\"\n") + "\n" + sets);
  r = t3_check(t.path);
  ASSERT_NE(bt::find_rule(r, "cmdline-no-root"), nullptr) << testing::PrintToString(t3_rules(r));
  EXPECT_NE(bt::find_rule(r, "cmdline-no-root")->message.find("boot.scr sets none either"), std::string::npos);
}

// The header as U-Boot's source command checks it: a boot.scr it refuses runs no script, named.
TEST(Trial7Boot, BootScrThatUbootRefusesIsNamed) {
  T3_REQUIRE_MKIMAGE();
  using piprov::boot::uboot_script_text;
  const std::string sets = "setenv bootargs \"${bootargs} root=PARTUUID=abcd-02\"\n";
  const std::string good = bt::mkimage_script(sets);
  ASSERT_EQ(good.size(), 64u + 8u + sets.size());  // header, length table (len, 0), script
  EXPECT_EQ(uboot_script_text(good).text, sets);

  std::string bad = good;
  bad[good.size() - 3] ^= 0x01;  // a byte of the script: the data CRC no longer matches
  EXPECT_FALSE(uboot_script_text(bad).ok);
  EXPECT_EQ(uboot_script_text(bad).why, "its data CRC-32 is wrong (U-Boot: Bad data crc)");
  bad = good;
  bad[16] ^= 0x01;  // ih_load: the header CRC no longer matches
  EXPECT_EQ(uboot_script_text(bad).why, "its header CRC-32 is wrong (U-Boot: Bad header crc)");
  EXPECT_EQ(uboot_script_text(good.substr(0, good.size() - 1)).why,
            "its header says " + std::to_string(8 + sets.size()) + " bytes of data, the file has " +
                std::to_string(7 + sets.size()) + " after the header: cut short");
  EXPECT_EQ(uboot_script_text(good.substr(0, 40)).why, "it ends inside its 64-byte mkimage header (40 bytes)");
  EXPECT_EQ(uboot_script_text(bt::mkimage_script(sets, "-T kernel -C none -a 0x80000 -e 0x80000")).why,
            "its mkimage type is 2, not a script (6) (U-Boot: Bad image type)");
  EXPECT_EQ(uboot_script_text(bt::mkimage_script(sets, "-T script -C gzip")).why,
            "its script is compressed, which U-Boot's source command does not undo");

  TempDir t;
  write_file(t.path / "config.txt", "[all]\narm_64bit=1\nkernel=u-boot.bin\n");
  write_file(t.path / "cmdline.txt", "console=tty1 rootwait\n");
  write_file(t.path / "u-boot.bin", bt::uboot_binary());
  bt::write_dtbs(t.path);
  bad = good;
  bad[good.size() - 3] ^= 0x01;
  write_file(t.path / "boot.scr", bad);
  auto r = t3_check(t.path);
  ASSERT_NE(bt::find_rule(r, "cmdline-no-root"), nullptr) << testing::PrintToString(t3_rules(r));
  EXPECT_NE(
      bt::find_rule(r, "cmdline-no-root")
          ->message.find("U-Boot runs no boot script boot.scr either: its data CRC-32 is wrong (U-Boot: Bad data crc)"),
      std::string::npos)
      << bt::find_rule(r, "cmdline-no-root")->message;
}

// Finding 7: device-tree-empty's fix promised the Pi 5's own bcm2712-rpi-5-b.dtb, which was not on
// the partition (following it gave dtb-missing): the fix says to put it there too.
TEST(Trial3Boot, EmptyDeviceTreeWithTheBoardsDtbMissingSaysSo) {
  TempDir t;
  write_file(t.path / "config.txt", "[all]\narm_64bit=1\n[pi5]\ndevice_tree=\n[all]\n");
  write_file(t.path / "cmdline.txt", "console=tty1 root=PARTUUID=1234abcd-02 rootwait\n");
  write_file(t.path / "kernel_2712.img", bt::fake_image(200000, 3));
  auto r = t3_check(t.path, PiBoard::Pi5);
  ASSERT_NE(bt::find_rule(r, "device-tree-empty"), nullptr) << testing::PrintToString(t3_rules(r));
  EXPECT_EQ(bt::find_rule(r, "device-tree-empty")->fix,
            "remove the empty device_tree= line and put the Pi 5's own bcm2712-rpi-5-b.dtb on the partition (it is "
            "not there either), or name a .dtb that is on the partition");
  // Following the fix's first half alone gives the error the fix warned of.
  write_file(t.path / "config.txt", "[all]\narm_64bit=1\n[pi5]\n[all]\n");
  EXPECT_NE(bt::find_rule(t3_check(t.path, PiBoard::Pi5), "dtb-missing"), nullptr);
  write_file(t.path / "config.txt", "[all]\narm_64bit=1\n[pi5]\ndevice_tree=\n[all]\n");
  // With the DTB there: the fix promises it, and no dtb-missing.
  bt::write_dtbs(t.path);
  r = t3_check(t.path, PiBoard::Pi5);
  EXPECT_EQ(bt::find_rule(r, "dtb-missing"), nullptr);
  ASSERT_NE(bt::find_rule(r, "device-tree-empty"), nullptr);
  EXPECT_EQ(bt::find_rule(r, "device-tree-empty")->fix,
            "remove the empty device_tree= line (the firmware then loads the Pi 5's own bcm2712-rpi-5-b.dtb) or name "
            "a .dtb on the partition");
}

// Finding 8: every template value in the cmdline, one finding per parameter (was only the first:
// `@X@` of `resume=SWAPDEV foo=@X@ bar=${Y}`; `${ROOT_PART}` of `root=${ROOT_PART} ... resume=SWAPDEV`).
TEST(Trial3Boot, EveryTemplateValueInTheCmdlineIsReported) {
  TempDir t;
  write_file(t.path / "config.txt", "[all]\narm_64bit=1\nkernel=Image\n");
  write_file(t.path / "Image", bt::fake_image(200000, 3));
  bt::write_dtbs(t.path);
  auto messages = [&] {
    std::vector<std::string> v;
    for (const auto& f : t3_check(t.path).findings)
      if (f.rule == "template-value") v.push_back(f.key + ": " + f.message);
    return v;
  };
  write_file(t.path / "cmdline.txt",
             "console=tty1 root=PARTUUID=1234abcd-02 rootwait resume=SWAPDEV foo=@X@ bar=${Y}\n");
  EXPECT_EQ(
      messages(),
      (std::vector<std::string>{
          "resume: cmdline.txt: resume=SWAPDEV holds the placeholder SWAPDEV, which the image build replaces: "
          "this cmdline is a template",
          "foo: cmdline.txt: foo=@X@ holds the unexpanded template value @X@: this cmdline is a template, not the "
          "one an image boots with",
          "bar: cmdline.txt: bar=${Y} holds the unexpanded template value ${Y}: this cmdline is a template, not "
          "the one an image boots with"}));
  write_file(t.path / "cmdline.txt", "console=tty1 root=${ROOT_PART} rootwait resume=SWAPDEV x=@A@${B}\n");
  EXPECT_EQ(messages(),
            (std::vector<std::string>{
                "root: cmdline.txt: root=${ROOT_PART} holds the unexpanded template value ${ROOT_PART}: this cmdline "
                "is a template, not the one an image boots with",
                "resume: cmdline.txt: resume=SWAPDEV holds the placeholder SWAPDEV, which the image build replaces: "
                "this cmdline is a template",
                "x: cmdline.txt: x=@A@${B} holds the unexpanded template values @A@, ${B}: this cmdline is a "
                "template, not the one an image boots with"}));
}

// Finding 9: config.txt's findings in line order, as docs/boot.md says (include-missing of line 5
// came before device-tree-missing of line 3 and armstub-missing of line 4).
TEST(Trial3Boot, ConfigTxtFindingsAreInLineOrder) {
  TempDir t;
  write_file(t.path / "config.txt",
             "[all]\narm_64bit=1\ndevice_tree=my.dtb\narmstub=armstub8-gic.bin\ninclude extra.txt\nkernel=Image\n");
  write_file(t.path / "cmdline.txt", "console=tty1 root=PARTUUID=1234abcd-02 rootwait\n");
  write_file(t.path / "Image", bt::fake_image(200000, 3));
  auto r = t3_check(t.path);
  std::vector<std::string> errors;
  for (const auto& f : r.findings)
    if (f.severity == Severity::Error) errors.push_back(f.rule + "@" + std::to_string(f.line));
  EXPECT_EQ(errors, (std::vector<std::string>{"device-tree-missing@3", "armstub-missing@4", "include-missing@5"}));
}

// Finding 10: kernel=/NAME beside os_prefix is taken from the partition root (Raspberry Pi
// documentation, config_txt: os_prefix): no "falls back to the top level" note.
TEST(Trial3Boot, AbsoluteKernelPathGetsNoOsPrefixFallbackNote) {
  TempDir t;
  write_file(t.path / "config.txt", "[all]\nos_prefix=slot-A/\nkernel=/kernel_2712.img\n");
  write_file(t.path / "slot-A/cmdline.txt", "console=tty1 root=PARTUUID=1234abcd-02 rootwait\n");
  write_file(t.path / "slot-A/kernel_2712.img", bt::fake_image(200000, 3));
  bt::write_dtbs(t.path / "slot-A");
  auto r = t3_check(t.path, PiBoard::Pi5);
  ASSERT_NE(bt::find_rule(r, "kernel-missing"), nullptr) << testing::PrintToString(t3_rules(r));
  const std::string& m = bt::find_rule(r, "kernel-missing")->message;
  EXPECT_EQ(m.find("falls back to the top level"), std::string::npos) << m;
  EXPECT_NE(m.find("(kernel=/kernel_2712.img starts with /: os_prefix=slot-A/ does not apply to it)"),
            std::string::npos)
      << m;
}

// Finding 14a: a BOOT_DIR that does not exist is named as such (was "is not a directory").
TEST(Trial3Boot, MissingBootDirSaysItDoesNotExist) {
  TempDir t;
  try {
    t3_check(t.path / "nonexist.img.xz");
    ADD_FAILURE() << "no error";
  } catch (const piprov::Error& e) {
    EXPECT_EQ(e.kind(), piprov::ErrorKind::Usage);
    EXPECT_EQ(std::string(e.what()), (t.path / "nonexist.img.xz").string() +
                                         " does not exist: pass the mounted boot partition or an image file (.img, "
                                         ".img.xz, ...)");
  }
}
