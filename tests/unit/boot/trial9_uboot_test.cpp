// boot check under U-Boot on the ninth new-user trial of issue 29: the root= boot.scr sets is judged
// as cmdline.txt's is (finding 4), a plain-text boot.scr runs no script (finding 5), the
// cmdline-no-root fix points at the boot.scr line that replaces bootargs (finding 6), and a
// conditional bootargs names which branch sets root= (finding 14). Every boot.scr is made by mkimage.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "boot/check.hpp"
#include "boot/uboot_script.hpp"
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

constexpr const char* kT9Mkimage = "mkimage -A arm64 -T script -C none -d boot.cmd boot.scr";

/// A BOOT_DIR whose firmware loads U-Boot (kernel=u-boot.bin) with a cmdline.txt without root=.
fs::path t9_uboot_dir(const fs::path& dir) {
  write_file(dir / "config.txt", "[all]\narm_64bit=1\nkernel=u-boot.bin\n");
  write_file(dir / "cmdline.txt", "console=tty1 rootwait\n");
  write_file(dir / "u-boot.bin", bt::uboot_binary());
  bt::write_dtbs(dir);
  return dir;
}

}  // namespace

// Finding 4: root=PARTUUID=deadbeef-02 or root=/dev/mmcblk0p2 set by boot.scr gave OK; the same in
// cmdline.txt are errors. The value boot.scr leaves in bootargs gets cmdline.txt's root= checks,
// named by its line, the fix on that line of boot.cmd.
TEST(Trial9Boot, RootSetByBootScrIsJudgedLikeCmdlineRoot) {
  PIPROV_REQUIRE_MKIMAGE();
  TempDir t;
  const fs::path boot = t9_uboot_dir(t.path);
  const std::string fix_at_1 = std::string(" in the setenv bootargs on boot.scr line 1 (boot.cmd), then ") + kT9Mkimage;
  const std::string fix_at_2 = std::string(" in the setenv bootargs on boot.scr line 2 (boot.cmd), then ") + kT9Mkimage;
  const std::string parts =
      "u3.img (u3.img partition 1 LABEL=bootfs PARTUUID=6c586e13-01, u3.img partition 2 LABEL=rootfs "
      "PARTUUID=6c586e13-02)";

  // The trial's u3.img: a PARTUUID of no partition of the disk.
  write_file(boot / "boot.scr",
             bt::mkimage_script("setenv bootargs \"root=PARTUUID=deadbeef-02 rootwait\"\nbooti ${kernel_addr_r}\n"));
  auto r = bt::check_on_image_disk(boot, true, "u3.img");
  const auto* f = bt::find_rule(r, "root-not-on-device");
  ASSERT_NE(f, nullptr) << bt::findings_text(r);
  EXPECT_EQ(f->severity, Severity::Error);
  EXPECT_EQ(f->message, "root=PARTUUID=deadbeef-02 (boot.scr line 1) names no partition of " + parts +
                            ": the Pi would mount another disk's root, or none");
  EXPECT_EQ(f->fix, "set root=PARTUUID=6c586e13-02 (the root partition, u3.img partition 2)" + fix_at_1);
  ASSERT_NE(bt::find_rule(r, "cmdline-root-from-uboot"), nullptr) << bt::findings_text(r);
  EXPECT_EQ(bt::find_rule(r, "cmdline-root-from-uboot")->message,
            "cmdline.txt has no root=: U-Boot's boot script boot.scr sets root=PARTUUID=deadbeef-02 (line 1)");
  EXPECT_FALSE(r.ok());
  EXPECT_FALSE(r.usb_boot());
  // The same value in cmdline.txt, with no boot.scr to replace it: the same rule, naming cmdline.txt.
  fs::remove(boot / "boot.scr");
  write_file(boot / "cmdline.txt", "console=tty1 root=PARTUUID=deadbeef-02 rootwait\n");
  auto c = bt::check_on_image_disk(boot, true, "u3.img");
  ASSERT_NE(bt::find_rule(c, "root-not-on-device"), nullptr) << bt::findings_text(c);
  EXPECT_EQ(bt::find_rule(c, "root-not-on-device")->message,
            "root=PARTUUID=deadbeef-02 (cmdline.txt) names no partition of " + parts +
                ": the Pi would mount another disk's root, or none");
  write_file(boot / "cmdline.txt", "console=tty1 rootwait\n");

  // u5.img: the SD card's name on a disk the Pi boots over USB; the last assignment (line 2) wins.
  write_file(boot / "boot.scr", bt::mkimage_script("setenv bootargs \"root=PARTUUID=6c586e13-02\"\n"
                                                   "setenv bootargs \"root=/dev/mmcblk0p2 rootwait\"\n"));
  r = bt::check_on_image_disk(boot, true, "u3.img");
  f = bt::find_rule(r, "root-not-on-device");
  ASSERT_NE(f, nullptr) << bt::findings_text(r);
  EXPECT_EQ(f->message,
            "root=/dev/mmcblk0p2 (boot.scr line 2) is a partition of the SD card or eMMC (mmcblk: the mmc "
            "controller), not of u3.img (unknown), which the Pi sees as /dev/sdX or /dev/nvme0n1: booting from it, "
            "the kernel waits for the card (rootwait) or mounts the card's root");
  EXPECT_EQ(f->fix, "set root=PARTUUID=6c586e13-02 (the root partition, u3.img partition 2)" + fix_at_2);

  // The disk's own root partition: right, no error.
  write_file(boot / "boot.scr", bt::mkimage_script("setenv bootargs \"${bootargs} root=PARTUUID=6c586e13-02\"\n"));
  r = bt::check_on_image_disk(boot, true, "u3.img");
  EXPECT_EQ(piprov::count_findings(r.findings).errors, 0) << bt::findings_text(r);
  EXPECT_TRUE(r.ok());

  // Without a known disk: the kernel-name and PARTUUID-form rules, as for cmdline.txt.
  write_file(boot / "boot.scr", bt::mkimage_script("setenv bootargs \"root=/dev/sda2 rootwait\"\n"));
  r = bt::check_on_image_disk(boot, false, "u3.img");
  f = bt::find_rule(r, "root-kernel-name");
  ASSERT_NE(f, nullptr) << bt::findings_text(r);
  EXPECT_EQ(f->severity, Severity::Warning);
  EXPECT_EQ(f->message,
            "boot.scr line 1: root=/dev/sda2 is a kernel device name, which depends on probe order (booting from "
            "USB, the SD card's names change)");
  EXPECT_EQ(f->fix, "use root=PARTUUID=... or root=LABEL=... of the root partition (blkid shows both)" + fix_at_1);
  write_file(boot / "boot.scr", bt::mkimage_script("setenv bootargs \"root=PARTUUID=abcd-02\"\n"));
  r = bt::check_on_image_disk(boot, false, "u3.img");
  ASSERT_NE(bt::find_rule(r, "root-partuuid-invalid"), nullptr) << bt::findings_text(r);
  EXPECT_EQ(bt::find_rule(r, "root-partuuid-invalid")->message,
            "boot.scr line 1: root=PARTUUID=abcd-02 is not a partition UUID (1234abcd-02 on MBR, a GUID on GPT)");

  // A template value left in the script: template-value, as in cmdline.txt.
  write_file(boot / "boot.scr", bt::mkimage_script("setenv bootargs \"root=@ROOTDEV@ rootwait\"\n"));
  r = bt::check_on_image_disk(boot, true, "u3.img");
  f = bt::find_rule(r, "template-value");
  ASSERT_NE(f, nullptr) << bt::findings_text(r);
  EXPECT_EQ(f->message,
            "boot.scr line 1: root=@ROOTDEV@ holds the unexpanded template value @ROOTDEV@: this script is a "
            "template, not the one an image boots with");
  EXPECT_EQ(f->fix, "write the real value" + fix_at_1);
  EXPECT_EQ(bt::find_rule(r, "root-not-on-device"), nullptr) << bt::findings_text(r);

  // A variable U-Boot sets at run time: not judged, said so.
  for (const char* script : {"setenv bootargs \"root=PARTUUID=${uuid} rootwait\"\n",
                             "setenv bootargs \"root=PARTUUID=deadbeef-02 ${extra_args}\"\n"}) {
    write_file(boot / "boot.scr", bt::mkimage_script(script));
    r = bt::check_on_image_disk(boot, true, "u3.img");
    EXPECT_EQ(piprov::count_findings(r.findings).errors, 0) << script << bt::findings_text(r);
    ASSERT_NE(bt::find_rule(r, "cmdline-root-from-uboot"), nullptr) << script << bt::findings_text(r);
    EXPECT_NE(bt::find_rule(r, "cmdline-root-from-uboot")
                  ->message.find("(line 1) from a variable U-Boot sets at run time, which piprov does not know: not "
                                 "judged"),
              std::string::npos)
        << bt::find_rule(r, "cmdline-root-from-uboot")->message;
  }
}

// Finding 5: a plain-text boot.scr (boot.cmd saved as boot.scr) counted as setting root=. U-Boot's
// source command runs only a legacy image or a FIT (U-Boot docs, "source command"); anything else
// is "Wrong image format for "source" command": no script runs, nothing sets root=.
TEST(Trial9Boot, PlainTextBootScrRunsNoScript) {
  PIPROV_REQUIRE_MKIMAGE();
  using piprov::boot::uboot_script_text;
  const std::string sets = "setenv bootargs \"root=PARTUUID=6c586e13-02 rootwait\"\nbooti ${kernel_addr_r}\n";
  const auto plain = uboot_script_text(sets);
  EXPECT_FALSE(plain.ok);
  EXPECT_TRUE(plain.plain_text);
  EXPECT_TRUE(plain.text.empty());
  EXPECT_EQ(plain.why, "it is plain text, not an mkimage script (U-Boot: Wrong image format for \"source\" command)");
  const std::string fit_file = bt::mkimage_script(sets, "-f auto -T script -C none");
  ASSERT_EQ(fit_file.compare(0, 4, "\xd0\x0d\xfe\xed"), 0);  // a FIT: a flattened device tree
  const auto fit = uboot_script_text(fit_file);
  EXPECT_TRUE(fit.ok);
  EXPECT_TRUE(fit.fit);
  const auto legacy = uboot_script_text(bt::mkimage_script(sets));
  EXPECT_TRUE(legacy.ok);
  EXPECT_FALSE(legacy.plain_text);

  TempDir t;
  const fs::path boot = t9_uboot_dir(t.path);
  const std::string no_root = "cmdline.txt has no root= parameter: the kernel will not find the root filesystem; ";
  const std::string why =
      "boot.scr is plain text, not an mkimage script: U-Boot does not run it (U-Boot: Wrong image format for "
      "\"source\" command)";
  // The trial's pl.img: a script that would set root= if it ran: wrap it with mkimage.
  write_file(boot / "boot.scr", sets);
  auto r = bt::check_on_image_disk(boot, true, "u3.img");
  EXPECT_EQ(bt::find_rule(r, "cmdline-root-from-uboot"), nullptr) << bt::findings_text(r);
  const auto* f = bt::find_rule(r, "cmdline-no-root");
  ASSERT_NE(f, nullptr) << bt::findings_text(r);
  EXPECT_EQ(f->severity, Severity::Error);
  EXPECT_EQ(f->message, no_root + why);
  EXPECT_EQ(f->fix, std::string("make it a script U-Boot runs: mv boot.scr boot.cmd, then ") + kT9Mkimage);
  EXPECT_EQ(f->source,
            "U-Boot docs, source command (\"Two formats for script files exist: legacy U-Boot image format, Flat "
            "Image Tree (FIT)\"); U-Boot cmd/source.c");
  EXPECT_FALSE(r.ok());
  // A plain-text script that would set none either: root= in cmdline.txt.
  write_file(boot / "boot.scr", "setenv bootargs \"${bootargs} rootwait\"\n");
  r = bt::check_on_image_disk(boot, true, "u3.img");
  ASSERT_NE(bt::find_rule(r, "cmdline-no-root"), nullptr) << bt::findings_text(r);
  EXPECT_EQ(bt::find_rule(r, "cmdline-no-root")->message, no_root + why);
  EXPECT_EQ(bt::find_rule(r, "cmdline-no-root")->fix, "add root=PARTUUID=6c586e13-02 to the first line");
  // The same script wrapped by mkimage sets root=: no error.
  write_file(boot / "boot.scr", bt::mkimage_script(sets));
  r = bt::check_on_image_disk(boot, true, "u3.img");
  EXPECT_EQ(piprov::count_findings(r.findings).errors, 0) << bt::findings_text(r);
  // A FIT script U-Boot runs, but piprov does not read: unknown (info).
  write_file(boot / "boot.scr", fit_file);
  r = bt::check_on_image_disk(boot, true, "u3.img");
  EXPECT_EQ(piprov::count_findings(r.findings).errors, 0) << bt::findings_text(r);
  ASSERT_NE(bt::find_rule(r, "cmdline-root-uboot-unknown"), nullptr) << bt::findings_text(r);
  EXPECT_EQ(bt::find_rule(r, "cmdline-root-uboot-unknown")->message,
            "cmdline.txt has no root=: boot.scr is a FIT image, whose script piprov does not read");
}

// Finding 6: when boot.scr replaces bootargs, cmdline.txt's line never reaches the kernel: the fix
// points at the boot.scr line that sets bootargs, not at cmdline.txt.
TEST(Trial9Boot, ReplacedBootargsFixPointsAtTheScriptLine) {
  PIPROV_REQUIRE_MKIMAGE();
  TempDir t;
  const fs::path boot = t9_uboot_dir(t.path);
  const std::string no_root = "cmdline.txt has no root= parameter: the kernel will not find the root filesystem; ";
  struct Case {
    std::string script, message, fix;
  };
  const std::vector<Case> cases = {
      // the trial's ubx.img / u6.img
      {"setenv bootargs \"root=PARTUUID=6c586e13-02\"\nsetenv bootargs \"console=tty1\"\nbooti ${kernel_addr_r}\n",
       no_root + "U-Boot's boot script boot.scr sets none either: line 2 replaces bootargs with a value without root= "
                 "(the last wins)",
       std::string("add root=PARTUUID=6c586e13-02 to the setenv bootargs on boot.scr line 2 "
                   "(boot.cmd), then ") +
           kT9Mkimage},
      // replaced on line 1, appended to on line 2: line 1 sets what the kernel gets
      {"setenv bootargs console=tty1\nsetenv bootargs \"${bootargs} rootwait\"\n",
       no_root + "U-Boot's boot script boot.scr sets none either: line 1 replaces bootargs with a value without root= "
                 "(the last wins)",
       std::string("add root=PARTUUID=6c586e13-02 to the setenv bootargs on boot.scr line 1 "
                   "(boot.cmd), then ") +
           kT9Mkimage},
      // ${bootargs} while unset (U-Boot's default environment has none): replaced, the script's line
      {"setenv bootargs \"${bootargs} rootwait\"\n",
       no_root + "U-Boot's boot script boot.scr sets none either: line 1 replaces bootargs with a value without root= "
                 "(the last wins)",
       std::string("add root=PARTUUID=6c586e13-02 to the setenv bootargs on boot.scr line 1 "
                   "(boot.cmd), then ") +
           kT9Mkimage},
      // the firmware's command line read from /chosen and passed on: cmdline.txt is the place
      {"fdt addr ${fdt_addr} && fdt get value bootargs /chosen bootargs\nsetenv bootargs \"${bootargs} rootwait\"\n",
       no_root + "U-Boot's boot script boot.scr sets none either: it passes this command line on",
       "add root=PARTUUID=6c586e13-02 to the first line"},
  };
  for (const auto& c : cases) {
    write_file(boot / "boot.scr", bt::mkimage_script(c.script));
    auto r = bt::check_on_image_disk(boot, true, "u3.img");
    const auto* f = bt::find_rule(r, "cmdline-no-root");
    ASSERT_NE(f, nullptr) << c.script << bt::findings_text(r);
    EXPECT_EQ(f->message, c.message) << c.script;
    EXPECT_EQ(f->fix, c.fix) << c.script;
  }
}

// Finding 14: `if ...; then setenv bootargs root=...; else setenv bootargs console=...; fi` said
// "sets bootargs under a condition (without root=)", though the then-branch sets root=.
TEST(Trial9Boot, ConditionalBootargsSaysRootIsOnOneBranchOnly) {
  PIPROV_REQUIRE_MKIMAGE();
  TempDir t;
  const fs::path boot = t9_uboot_dir(t.path);
  const std::string unknown =
      "cmdline.txt has no root=: piprov cannot tell whether U-Boot's boot script boot.scr puts root= in bootargs: ";
  struct Case {
    std::string script, why;
  };
  const std::vector<Case> cases = {
      // the trial's u1.img, on one line
      {"if test -e mmc 0:1 x; then setenv bootargs \"root=PARTUUID=6c586e13-02\"; else setenv bootargs "
       "\"console=tty1\"; fi\n",
       "line 1 sets bootargs under a condition: root= on one branch only"},
      {"if test -e mmc 0:1 x; then\n  setenv bootargs \"root=PARTUUID=6c586e13-02\"\nelse\n  setenv bootargs "
       "console=tty1\nfi\n",
       "bootargs is set under a condition: root= on one branch only (line 2 sets it with root=, line 4 without)"},
      {"if test -e mmc 0:1 x; then\n  setenv bootargs console=tty1\nelse\n  setenv bootargs "
       "\"root=PARTUUID=6c586e13-02\"\nfi\n",
       "bootargs is set under a condition: root= on one branch only (line 4 sets it with root=, line 2 without)"},
      // one branch only, no else: bootargs otherwise stays as it was
      {"if test -e mmc 0:1 x; then\n  setenv bootargs \"root=PARTUUID=6c586e13-02\"\nfi\n",
       "line 2 sets bootargs under a condition (with root=); otherwise it stays as it was"},
  };
  for (const auto& c : cases) {
    write_file(boot / "boot.scr", bt::mkimage_script(c.script));
    auto r = bt::check_on_image_disk(boot, true, "u3.img");
    const auto* f = bt::find_rule(r, "cmdline-root-uboot-unknown");
    ASSERT_NE(f, nullptr) << c.script << bt::findings_text(r);
    EXPECT_EQ(f->severity, Severity::Info);
    EXPECT_EQ(f->message, unknown + c.why) << c.script;
    EXPECT_EQ(bt::find_rule(r, "cmdline-no-root"), nullptr) << c.script;
  }
}
