// `piprov boot check` / `boot patch` through the binary: exit codes, text and
// --json on an Ubuntu 20.04-style boot dir (fake kernel).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "support/boot_fixture.hpp"
#include "support/testsupport.hpp"

using piprov::test::run;
using Tree = piprov::boot::test::BootTree;

TEST(BootCli, PatchCheckAndExitCodes) {
  Tree tr;
  std::string bin = piprov::test::piprov_bin(), b = tr.boot.string(), r = tr.root.string();
  auto c1 = run(bin + " boot check " + b + " --root " + r);
  EXPECT_EQ(c1.exit_code, 1) << c1.out << c1.err;
  EXPECT_NE(
      c1.out.find("line 7   error    kernel-uboot: the Pi 4 boots U-Boot, kernel=uboot_rpi_4.bin (config.txt line 7), "
                  "which cannot boot from USB mass storage\n"
                  "                 fix: piprov boot patch " +
                  b + " (sets [pi4] kernel=vmlinux)\n"),
      std::string::npos)
      << c1.out;
  auto p = run(bin + " boot patch " + b + " --root " + r);
  EXPECT_EQ(p.exit_code, 0) << p.err;
  auto c2 = run(bin + " boot check " + b + " --root " + r + " --json");
  EXPECT_EQ(c2.exit_code, 0) << c2.out;
  EXPECT_NE(c2.out.find("\"vmlinux_state\": \"fresh\""), std::string::npos) << c2.out;
  auto p2 = run(bin + " boot patch " + b + " --root " + r);
  EXPECT_EQ(p2.out.substr(0, p2.out.find('\n')), b + ": already patched, nothing changed");
  // sync-kernel is quiet when vmlinux is fresh (it runs from the hooks), but --dry-run answers.
  auto quiet = run(bin + " boot sync-kernel " + b);
  EXPECT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_EQ(quiet.out, "");
  auto dry = run(bin + " boot sync-kernel " + b + " --dry-run");
  EXPECT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_NE(dry.out.find("vmlinux matches vmlinuz (SHA-256 "), std::string::npos) << dry.out;
  EXPECT_NE(dry.out.find("; nothing to do\n"), std::string::npos) << dry.out;
  auto bad = run(bin + " boot patch " + tr.t.path.string() + "/nope");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err, "piprov: error: " + tr.t.path.string() +
                         "/nope does not exist: pass the mounted boot partition (system-boot)\n");
  auto q = run(bin + " boot patch " + b + " --uas-quirk 12345678");
  EXPECT_EQ(q.exit_code, 2);
}

// A mistyped or missing command: one line naming it, the commands there are, exit 2.
TEST(BootCli, UnknownOrMissingCommandIsNamed) {
  std::string bin = piprov::test::piprov_bin();
  auto r = run(bin + " boot chek /tmp");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(
      r.err,
      "piprov: error: unknown command 'chek': piprov boot has patch, check, sync-kernel; did you mean piprov boot "
      "check? (see --help)\n");
  r = run(bin + " bnech /tmp");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(
      r.err.find(
          "unknown command 'bnech': piprov has devices, write, verify, backup, clone, boot, provision, seed, eeprom, "
          "bench, report; did you mean piprov bench?"),
      std::string::npos)
      << r.err;
  r = run(bin + " eeprom");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "piprov: error: piprov eeprom needs a command: check, explain, set-boot-order (see --help)\n");
  EXPECT_EQ(run(bin + " boot --help").exit_code, 0);
  EXPECT_EQ(run(bin + " eeprom explain 0xf41").exit_code, 0);
}

// boot sync-kernel where config.txt does not boot vmlinux (stock 20.04): nothing written, exit 0.
TEST(BootCli, SyncKernelWritesNoVmlinuxNothingBoots) {
  Tree tr;
  std::string bin = piprov::test::piprov_bin(), b = tr.boot.string();
  auto r = run(bin + " boot sync-kernel " + b + " --strict");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("boots uboot_rpi_4.bin on a Pi 4, not vmlinux: nothing to do"), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(tr.boot / "vmlinux"));
  auto j = run(bin + " boot sync-kernel " + b + " --json");
  EXPECT_NE(j.out.find("\"outcome\": \"not-used\""), std::string::npos) << j.out;
}

// The last line of `boot check`: the kernel it checked, or (a boot partition
// holding only autoboot.txt, no --device) the partition it did not check and
// how to check it; never an empty kernel name.
TEST(BootCli, LastLineNamesTheKernelOrThePartitionNotChecked) {
  Tree tr;
  const std::string bin = piprov::test::piprov_bin();
  ASSERT_EQ(run(bin + " boot patch " + tr.boot.string() + " --root " + tr.root.string()).exit_code, 0);
  auto ok = run(bin + " boot check " + tr.boot.string() + " --root " + tr.root.string());
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  EXPECT_EQ(ok.out.substr(ok.out.rfind("boot check: ")),
            "boot check: OK (kernel vmlinux, initramfs initrd.img, vmlinux fresh)\n")
      << ok.out;

  piprov::test::TempDir d("boot-cli-autoboot");
  piprov::test::write_file(d.path / "autoboot.txt",
                           "[all]\ntryboot_a_b=1\nboot_partition=2\n[tryboot]\nboot_partition=3\n");
  auto ab = run(bin + " boot check " + d.path.string() + " --board pi5");
  EXPECT_EQ(ab.exit_code, 0) << ab.out << ab.err;
  EXPECT_EQ(ab.out.substr(ab.out.rfind("boot check: ")),
            "boot check: partition 2 (autoboot.txt boot_partition=2) was not checked: pass --device DEV (the whole "
            "disk) to check its boot files\n")
      << ab.out;
  EXPECT_EQ(ab.out.find("kernel ,"), std::string::npos) << ab.out;
  EXPECT_EQ(ab.out.find("OK"), std::string::npos) << ab.out;
  EXPECT_EQ(ab.err, "");
}

// A whole disk given as BOOT_DIR is read as an image, without mounting (trial 9: the mount advice
// failed on a host without vfat): this one's FAT partition has no config.txt, which is what it says.
// A partition: the command that checks its whole disk.
TEST(BootCli, WholeDiskIsReadAndPartitionNamesItsDisk) {
  PIPROV_REQUIRE_LOOP();
  for (const char* tool : {"sfdisk", "partx", "mkfs.vfat", "mkfs.ext4"}) PIPROV_REQUIRE_TOOL(tool);
  piprov::test::TempDir t;
  piprov::test::LoopDevice loop(t.path / "disk.img", 48ull << 20);
  const std::string p1 = loop.path + "p1", p2 = loop.path + "p2";
  auto mk = run("printf 'label: dos\\n,16M,c\\n,,83\\n' | sfdisk -q " + loop.path + " && { partx -a " + loop.path +
                " 2>/dev/null || true; }");
  ASSERT_EQ(mk.exit_code, 0) << mk.err;
  for (int i = 0; i < 200 && !std::filesystem::exists(p2); ++i) ::usleep(20000);
  mk = run("mkfs.ext4 -q -F " + p2 + " && mkfs.vfat " + p1 + " >/dev/null");
  ASSERT_EQ(mk.exit_code, 0) << mk.err;
  const std::string bin = piprov::test::piprov_bin();
  auto r = run(bin + " boot check " + loop.path);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find(" has no config.txt: not a Raspberry Pi boot partition\n"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("mount"), std::string::npos) << r.err;
  r = run(bin + " boot check " + p1);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(r.err, "piprov: error: " + p1 +
                       " is a partition, not a directory: check the whole disk it is on, which piprov reads without "
                       "mounting or writing it: piprov boot check " +
                       loop.path + "\n");
}
