// boot check under U-Boot on the tenth new-user trial of issue 29: what the kernel gets is U-Boot's
// bootargs as boot.scr leaves it, also when cmdline.txt has a root= (finding 2: v1, v4, v5); the
// cmdline-no-root fix names the root partition's real PARTUUID (nit 8a); the headline shows the
// root= the kernel gets and where it is set (nit 8b). Every boot.scr is made by mkimage.
#include <gtest/gtest.h>

#include <string>

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

constexpr const char* kT10Mkimage = "mkimage -A arm64 -T script -C none -d boot.cmd boot.scr";
constexpr const char* kT10Good = "console=tty1 root=PARTUUID=6c586e13-02 rootwait\n";

/// The trial's base: a boot partition whose firmware loads U-Boot (kernel=u-boot.bin), with `cmdline`.
fs::path t10_uboot_dir(const fs::path& dir, const std::string& cmdline) {
  write_file(dir / "config.txt", "[all]\narm_64bit=1\nkernel=u-boot.bin\n");
  write_file(dir / "cmdline.txt", cmdline);
  write_file(dir / "u-boot.bin", bt::uboot_binary());
  bt::write_dtbs(dir);
  return dir;
}

}  // namespace

// bootargs starts unset (U-Boot's default environment has none): left unset or deleted, the firmware's
// command line (/chosen/bootargs) reaches the kernel; read with fdt get, its root= counts; the last root= wins.
TEST(Trial10Boot, BootargsStartAsTheFirmwaresCommandLine) {
  using piprov::boot::uboot_script_root;
  using piprov::boot::UbootRoot;
  const std::string fw = "console=tty1 root=/dev/mmcblk0p2 rootwait";
  const std::string get = "fdt addr ${fdt_addr} && fdt get value bootargs /chosen bootargs\n";
  auto r = uboot_script_root(get + "setenv bootargs \"${bootargs} root=PARTUUID=6c586e13-02\"\nbooti\n", fw);
  EXPECT_EQ(r.root, UbootRoot::Sets);
  EXPECT_EQ(r.value, "PARTUUID=6c586e13-02");
  EXPECT_EQ(r.line, 2);
  EXPECT_EQ(r.all, (std::vector<std::string>{"/dev/mmcblk0p2", "PARTUUID=6c586e13-02"}));
  // without the fdt get, ${bootargs} is empty: the script's root= alone
  r = uboot_script_root("setenv bootargs \"${bootargs} root=PARTUUID=6c586e13-02\"\nbooti\n", fw);
  EXPECT_EQ(r.all, (std::vector<std::string>{"PARTUUID=6c586e13-02"}));
  EXPECT_EQ(r.line, 1);
  // ${bootargs} without the fdt get and without root=: none reaches the kernel
  r = uboot_script_root("setenv bootargs \"${bootargs} quiet\"\nbooti\n", fw);
  EXPECT_EQ(r.root, UbootRoot::None);
  EXPECT_EQ(r.line, 1);
  // left unset, deleted, or fetched from /chosen (again): the firmware's (line 0)
  for (const std::string& script : {std::string("booti\n"), get + "setenv bootargs \"${bootargs} quiet\"\n",
                                    std::string("setenv bootargs x\nsetenv bootargs\nbooti\n"),
                                    std::string("setenv bootargs x\nfdt get value bootargs /chosen bootargs\n")}) {
    r = uboot_script_root(script, fw);
    EXPECT_EQ(r.root, UbootRoot::Sets) << script;
    EXPECT_EQ(r.value, "/dev/mmcblk0p2") << script;
    EXPECT_EQ(r.line, 0) << script;
  }
  // the root= before ${bootargs}: the firmware's is last
  r = uboot_script_root(get + "setenv bootargs \"root=/dev/sda2 ${bootargs}\"\n", fw);
  EXPECT_EQ(r.value, "/dev/mmcblk0p2");
  EXPECT_EQ(r.line, 0);
  // replaced: none left, line 1
  r = uboot_script_root("setenv bootargs \"console=tty1\"\n", fw);
  EXPECT_EQ(r.root, UbootRoot::None);
  EXPECT_EQ(r.line, 1);
  EXPECT_EQ(r.why, "line 1 replaces bootargs with a value without root=");
  // without a firmware line: as before, no root=
  EXPECT_EQ(uboot_script_root("booti\n").root, UbootRoot::None);
}

// v4: cmdline.txt's root= is right, boot.scr replaces bootargs with root=/dev/mmcblk0p2. Was: OK.
TEST(Trial10Boot, ScriptRootReplacesCmdlineRoot) {
  PIPROV_REQUIRE_MKIMAGE();
  TempDir t;
  const fs::path boot = t10_uboot_dir(t.path, kT10Good);
  write_file(boot / "boot.scr",
             bt::mkimage_script("setenv bootargs \"root=/dev/mmcblk0p2 rootwait\"\nbooti ${kernel_addr_r}\n"));
  auto r = bt::check_on_image_disk(boot);
  const auto* f = bt::find_rule(r, "root-not-on-device");
  ASSERT_NE(f, nullptr) << bt::findings_text(r);
  EXPECT_EQ(f->severity, Severity::Error);
  EXPECT_EQ(f->message,
            "root=/dev/mmcblk0p2 (boot.scr line 1) is a partition of the SD card or eMMC (mmcblk: the mmc "
            "controller), not of raspios.img (unknown), which the Pi sees as /dev/sdX or "
            "/dev/nvme0n1: booting from it, the kernel waits for the card (rootwait) or mounts the card's root");
  EXPECT_EQ(f->fix, std::string("set root=PARTUUID=6c586e13-02 (the root partition, raspios.img partition 2) in the "
                                "setenv bootargs on boot.scr line 1 (boot.cmd), then ") +
                        kT10Mkimage);
  const auto* info = bt::find_rule(r, "cmdline-root-from-uboot");
  ASSERT_NE(info, nullptr) << bt::findings_text(r);
  EXPECT_EQ(info->message,
            "cmdline.txt's root=PARTUUID=6c586e13-02 does not reach the kernel: U-Boot's boot script boot.scr "
            "replaces bootargs, and the root= it leaves there is root=/dev/mmcblk0p2 (boot.scr line 1)");
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.headline().find(": does not boot from USB as it is ("), std::string::npos) << r.headline();
  EXPECT_NE(r.headline().find(", root=/dev/mmcblk0p2 (boot.scr line 1))"), std::string::npos) << r.headline();
  EXPECT_EQ(r.summary(), "1 error(s), 0 warning(s), 3 info");
}

// v5: boot.scr replaces bootargs with console=tty1: no root= reaches the kernel. Was: OK.
TEST(Trial10Boot, ScriptDropsEveryRoot) {
  PIPROV_REQUIRE_MKIMAGE();
  TempDir t;
  const fs::path boot = t10_uboot_dir(t.path, kT10Good);
  write_file(boot / "boot.scr", bt::mkimage_script("setenv bootargs \"console=tty1\"\nbooti ${kernel_addr_r}\n"));
  auto r = bt::check_on_image_disk(boot);
  const auto* f = bt::find_rule(r, "cmdline-no-root");
  ASSERT_NE(f, nullptr) << bt::findings_text(r);
  EXPECT_EQ(f->severity, Severity::Error);
  EXPECT_EQ(f->message,
            "no root= reaches the kernel: U-Boot's boot script boot.scr line 1 replaces bootargs with a value "
            "without root= (the last wins), so cmdline.txt's line, root=PARTUUID=6c586e13-02 with it, never reaches "
            "the kernel: it will not find the root filesystem");
  EXPECT_EQ(f->fix, std::string("add root=PARTUUID=6c586e13-02 to the setenv bootargs on boot.scr line 1 (boot.cmd), "
                                "then ") +
                        kT10Mkimage);
  EXPECT_EQ(f->line, 1);
  EXPECT_EQ(bt::find_rule(r, "root-not-on-device"), nullptr)
      << bt::findings_text(r);  // cmdline.txt's is not the kernel's
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.headline().find(", root=(none) (boot.scr line 1 replaces bootargs))"), std::string::npos) << r.headline();
}

// v1: cmdline.txt's root=/dev/mmcblk0p2, then boot.scr appends the right PARTUUID: the kernel takes
// the last. Was: error root-not-on-device for cmdline.txt.
TEST(Trial10Boot, LastRootInBootargsWins) {
  PIPROV_REQUIRE_MKIMAGE();
  TempDir t;
  const fs::path boot = t10_uboot_dir(t.path, "console=tty1 root=/dev/mmcblk0p2 rootwait\n");
  // Without boot.scr, cmdline.txt's root= is the kernel's: the error.
  auto r = bt::check_on_image_disk(boot);
  ASSERT_NE(bt::find_rule(r, "root-not-on-device"), nullptr) << bt::findings_text(r);
  // ${bootargs} unset (U-Boot's default environment has none): the kernel gets the script's root= alone.
  write_file(boot / "boot.scr",
             bt::mkimage_script("setenv bootargs \"${bootargs} root=PARTUUID=6c586e13-02\"\nbooti ${kernel_addr_r}\n"));
  r = bt::check_on_image_disk(boot);
  EXPECT_EQ(piprov::count_findings(r.findings).errors + piprov::count_findings(r.findings).warnings, 0)
      << bt::findings_text(r);
  EXPECT_NE(r.headline().find(", root=PARTUUID=6c586e13-02 (boot.scr line 1))"), std::string::npos) << r.headline();
  // Read from /chosen first, as Ubuntu's boot.scr does: cmdline.txt's root= and then the script's.
  write_file(boot / "boot.scr", bt::mkimage_script("fdt addr ${fdt_addr} && fdt get value bootargs /chosen bootargs\n"
                                                   "setenv bootargs \"${bootargs} root=PARTUUID=6c586e13-02\"\n"
                                                   "booti ${kernel_addr_r}\n"));
  r = bt::check_on_image_disk(boot);
  EXPECT_EQ(piprov::count_findings(r.findings).errors, 0) << bt::findings_text(r);
  EXPECT_EQ(bt::find_rule(r, "root-not-on-device"), nullptr) << bt::findings_text(r);
  const auto* f = bt::find_rule(r, "cmdline-duplicate");
  ASSERT_NE(f, nullptr) << bt::findings_text(r);
  EXPECT_EQ(f->severity, Severity::Warning);
  EXPECT_EQ(f->message,
            "U-Boot's bootargs (the kernel's command line: cmdline.txt's line, then what boot.scr adds) sets root= 2 "
            "times (root=/dev/mmcblk0p2, root=PARTUUID=6c586e13-02): the kernel uses the last, "
            "root=PARTUUID=6c586e13-02 (boot.scr line 2)");
  EXPECT_EQ(f->fix, "keep only the root= you mean, once: drop root=/dev/mmcblk0p2 from cmdline.txt");
  EXPECT_NE(r.headline().find(", root=PARTUUID=6c586e13-02 (boot.scr line 2))"), std::string::npos) << r.headline();
  // The same root= twice: nothing to warn about.
  write_file(boot / "cmdline.txt", kT10Good);
  r = bt::check_on_image_disk(boot);
  EXPECT_EQ(piprov::count_findings(r.findings).errors + piprov::count_findings(r.findings).warnings, 0)
      << bt::findings_text(r);
  // The last root= is boot.scr's wrong one: judged, named by its line.
  write_file(boot / "boot.scr", bt::mkimage_script("setenv bootargs \"${bootargs} root=PARTUUID=deadbeef-02\"\n"));
  r = bt::check_on_image_disk(boot);
  ASSERT_NE(bt::find_rule(r, "root-not-on-device"), nullptr) << bt::findings_text(r);
  EXPECT_EQ(bt::find_rule(r, "root-not-on-device")
                ->message.rfind("root=PARTUUID=deadbeef-02 (boot.scr line 1) names "
                                "no partition of raspios.img",
                                0),
            0u);
}

// A script that passes cmdline.txt's line on: cmdline.txt's root= is the kernel's, no U-Boot finding.
// The layout is one piprov does not know: the verdict says it cannot tell, as the headline does.
TEST(Trial10Boot, PassedOnRootAndTheVerdictAgreesWithTheHeadline) {
  PIPROV_REQUIRE_MKIMAGE();
  TempDir t;
  const fs::path boot = t10_uboot_dir(t.path, kT10Good);
  write_file(boot / "boot.scr", bt::mkimage_script("fdt addr ${fdt_addr} && fdt get value bootargs /chosen bootargs\n"
                                                   "setenv bootargs \"${bootargs} quiet\"\nbooti ${kernel_addr_r}\n"));
  auto r = bt::check_on_image_disk(boot);
  ASSERT_TRUE(r.ok()) << bt::findings_text(r);
  EXPECT_EQ(bt::find_rule(r, "cmdline-root-from-uboot"), nullptr) << bt::findings_text(r);
  EXPECT_EQ(bt::find_rule(r, "cmdline-root-uboot-unknown"), nullptr) << bt::findings_text(r);
  EXPECT_NE(r.headline().find(": piprov cannot tell whether it boots from USB (a layout it does not know) ("),
            std::string::npos)
      << r.headline();
  EXPECT_NE(r.headline().find(", root=PARTUUID=6c586e13-02)"), std::string::npos) << r.headline();
  EXPECT_EQ(r.summary(),
            "no problems found, but piprov cannot tell whether it boots from USB (a layout it does not know; kernel "
            "u-boot.bin, root=PARTUUID=6c586e13-02)");

  // A script piprov cannot evaluate: info cmdline-root-uboot-unknown, as before; the headline and
  // the verdict say boot.scr may change root=.
  write_file(boot / "boot.scr",
             bt::mkimage_script("if test -e mmc 0:1 x; then\n  setenv bootargs \"root=/dev/sda2\"\nfi\nbooti\n"));
  r = bt::check_on_image_disk(boot);
  ASSERT_TRUE(r.ok()) << bt::findings_text(r);
  const auto* f = bt::find_rule(r, "cmdline-root-uboot-unknown");
  ASSERT_NE(f, nullptr) << bt::findings_text(r);
  EXPECT_EQ(f->severity, Severity::Info);
  EXPECT_EQ(f->message,
            "piprov cannot tell whether the kernel gets cmdline.txt's root=PARTUUID=6c586e13-02: U-Boot's boot "
            "script boot.scr may change bootargs, the kernel's command line: which root= is last there piprov cannot "
            "tell (a root= set under a condition, or an edit with setexpr)");
  EXPECT_EQ(r.summary(),
            "no problems found, but piprov cannot tell whether it boots from USB (a layout it does not know; kernel "
            "u-boot.bin, root=PARTUUID=6c586e13-02 (cmdline.txt; boot.scr may change it))");
  // Replaced under a condition only: cmdline.txt's root= may or may not reach the kernel.
  write_file(boot / "boot.scr",
             bt::mkimage_script("if test -e mmc 0:1 x; then\n  setenv bootargs console=tty1\nfi\nbooti\n"));
  r = bt::check_on_image_disk(boot);
  ASSERT_NE(bt::find_rule(r, "cmdline-root-uboot-unknown"), nullptr) << bt::findings_text(r);
  EXPECT_EQ(bt::find_rule(r, "cmdline-root-uboot-unknown")->message,
            "piprov cannot tell whether the kernel gets cmdline.txt's root=PARTUUID=6c586e13-02: U-Boot's boot "
            "script boot.scr may change bootargs, the kernel's command line: line 2 sets bootargs under a condition "
            "(without root=); otherwise it stays as it was");
  EXPECT_EQ(piprov::count_findings(r.findings).errors, 0) << bt::findings_text(r);
}

// Nits 8a and 8b on the trial's u3 and u6 (cmdline.txt without root=): the fix names the root
// partition's real PARTUUID where the disk is known, and the headline the root= boot.scr sets.
TEST(Trial10Boot, RealPartuuidInFixesAndScriptRootInHeadline) {
  PIPROV_REQUIRE_MKIMAGE();
  TempDir t;
  const fs::path boot = t10_uboot_dir(t.path, "console=tty1 rootwait\n");
  // u6
  write_file(boot / "boot.scr", bt::mkimage_script("setenv bootargs \"root=PARTUUID=6c586e13-02\"\n"
                                                   "setenv bootargs \"console=tty1\"\nbooti ${kernel_addr_r}\n"));
  auto r = bt::check_on_image_disk(boot);
  const auto* f = bt::find_rule(r, "cmdline-no-root");
  ASSERT_NE(f, nullptr) << bt::findings_text(r);
  EXPECT_EQ(f->fix,
            std::string("add root=PARTUUID=6c586e13-02 to the setenv bootargs on boot.scr line 2 (boot.cmd), then ") +
                kT10Mkimage);
  // No disk known: piprov cannot name it.
  r = bt::check_on_image_disk(boot, false);
  ASSERT_NE(bt::find_rule(r, "cmdline-no-root"), nullptr) << bt::findings_text(r);
  EXPECT_EQ(bt::find_rule(r, "cmdline-no-root")->fix,
            std::string("add root=PARTUUID=<the root partition's PARTUUID> to the setenv bootargs on boot.scr line 2 "
                        "(boot.cmd), then ") +
                kT10Mkimage);
  // u3: boot.scr sets a wrong PARTUUID; the headline shows it and its line, not root=(none).
  write_file(boot / "boot.scr",
             bt::mkimage_script("setenv bootargs \"root=PARTUUID=deadbeef-02 rootwait\"\nbooti ${kernel_addr_r}\n"));
  r = bt::check_on_image_disk(boot);
  ASSERT_NE(bt::find_rule(r, "root-not-on-device"), nullptr) << bt::findings_text(r);
  EXPECT_NE(r.headline().find(", root=PARTUUID=deadbeef-02 (boot.scr line 1))"), std::string::npos) << r.headline();
  EXPECT_EQ(r.headline().find("root=(none)"), std::string::npos) << r.headline();
}
