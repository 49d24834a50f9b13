// autoboot.txt (Raspberry Pi documentation, config_txt: autoboot.txt): parsing, lint,
// and boot check of a BOOT_DIR that holds only autoboot.txt (no device: not followed).
#include <gtest/gtest.h>

#include "boot/autoboot.hpp"
#include "boot/check.hpp"
#include "boot/patch.hpp"
#include "core/error.hpp"
#include "support/testsupport.hpp"

namespace fs = std::filesystem;
using namespace piprov::boot;
using piprov::PiBoard;
using piprov::Severity;
using piprov::test::TempDir;
using piprov::test::write_file;

namespace {

// The documentation's A/B example (also rpi-eeprom issue 575 and rpi-image-gen's ab_userdata BOOTCONFIG).
constexpr const char* kDocAb = "[all]\ntryboot_a_b=1\nboot_partition=2\n[tryboot]\nboot_partition=3\n";

std::vector<std::string> autoboot_rules(const piprov::Findings& f) {
  std::vector<std::string> v;
  for (const auto& x : f) v.push_back(x.rule + ":" + std::string(piprov::severity_name(x.severity)));
  return v;
}

}  // namespace

TEST(Autoboot, DocumentationAbExample) {
  auto a = parse_autoboot(kDocAb);
  ASSERT_TRUE(a.partition);
  EXPECT_EQ(*a.partition, 2);
  EXPECT_EQ(a.partition_line, 3u);
  ASSERT_TRUE(a.tryboot_partition);
  EXPECT_EQ(*a.tryboot_partition, 3);
  EXPECT_EQ(a.tryboot_line, 5u);
  EXPECT_TRUE(a.tryboot_a_b);
  EXPECT_EQ(a.bytes, std::string(kDocAb).size());
  EXPECT_TRUE(autoboot_lint(a, true).empty());
  EXPECT_EQ(autoboot_summary(a), "partition 2 ([tryboot] partition 3, tryboot_a_b=1)");
}

TEST(Autoboot, SwappedAfterCommitAndCrlf) {
  auto a = parse_autoboot("[all]\r\ntryboot_a_b=1\r\nboot_partition=3\r\n[tryboot]\r\nboot_partition=2\r\n");
  EXPECT_EQ(a.partition.value_or(-1), 3);
  EXPECT_EQ(a.tryboot_partition.value_or(-1), 2);
  EXPECT_TRUE(a.tryboot_a_b);
  // The preamble counts as [all]; a later [all] after [tryboot] is [all] again; the later value wins.
  auto b = parse_autoboot("boot_partition=2\n[tryboot]\nboot_partition=3\n[all]\nboot_partition=4\n");
  EXPECT_EQ(b.partition.value_or(-1), 4);
  EXPECT_EQ(b.partition_line, 5u);
  EXPECT_EQ(b.tryboot_partition.value_or(-1), 3);
  EXPECT_FALSE(b.tryboot_a_b);
}

TEST(Autoboot, UbuntuTrybootOnlyHasNoPartition) {
  // Ubuntu 25.10's autoboot.txt (shared data config-txt/autoboot-01): config.txt sits beside it.
  auto a = parse_autoboot("[all]\ntryboot_a_b=1\n");
  EXPECT_FALSE(a.partition);
  EXPECT_TRUE(a.tryboot_a_b);
  EXPECT_TRUE(autoboot_lint(a, false).empty());
  EXPECT_EQ(autoboot_rules(autoboot_lint(a, true)), std::vector<std::string>{"autoboot-no-partition:error"});
  auto z = parse_autoboot("boot_partition=0\n");
  EXPECT_EQ(z.partition.value_or(-1), 0);
  auto lz = autoboot_lint(z, true);
  ASSERT_EQ(autoboot_rules(lz), std::vector<std::string>{"autoboot-no-partition:error"});
  EXPECT_EQ(lz[0].line, 1);
  EXPECT_NE(lz[0].message.find("boot_partition=0"), std::string::npos) << lz[0].message;
}

TEST(Autoboot, TooLargeUnknownSectionBadValue) {
  std::string big = std::string(kDocAb) + "# " + std::string(600, 'x') + "\n";
  auto a = parse_autoboot(big);
  EXPECT_EQ(a.partition.value_or(-1), 2);
  EXPECT_EQ(autoboot_rules(autoboot_lint(a, true)), std::vector<std::string>{"autoboot-too-large:error"});
  EXPECT_TRUE(autoboot_lint(parse_autoboot(std::string(512, '#')), false).empty());  // exactly 512 is fine

  // [pi4] is a config.txt filter, not an autoboot.txt one: its settings are ignored.
  auto p = parse_autoboot("boot_partition=2\n[pi4]\nboot_partition=5\n[none]\nboot_partition=6\n");
  EXPECT_EQ(p.partition.value_or(-1), 2);
  auto lp = autoboot_lint(p, true);
  ASSERT_EQ(autoboot_rules(lp), std::vector<std::string>{"autoboot-unknown-section:warning"});
  EXPECT_EQ(lp[0].line, 2);
  EXPECT_EQ(lp[0].source, kAutobootSource);

  auto v = parse_autoboot("boot_partition=two\n");
  EXPECT_FALSE(v.partition);
  EXPECT_EQ(autoboot_rules(autoboot_lint(v, true)),
            (std::vector<std::string>{"autoboot-bad-partition:error", "autoboot-no-partition:error"}));
}

TEST(Autoboot, CheckWithoutDeviceNamesThePartitions) {
  TempDir t;
  write_file(t.path / "autoboot.txt", kDocAb);
  EXPECT_TRUE(autoboot_only(t.path));
  CheckOptions o{.boot_dir = t.path, .scan_usb = false, .board = PiBoard::Pi5};
  auto r = check_boot(o);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(autoboot_rules(r.findings),
            (std::vector<std::string>{"autoboot-partition:info", "autoboot-not-followed:info"}));
  EXPECT_NE(r.findings[0].message.find("partition 2 ([tryboot] partition 3"), std::string::npos)
      << r.findings[0].message;
  EXPECT_NE(r.findings[1].fix.find("--device"), std::string::npos) << r.findings[1].fix;
  EXPECT_EQ(r.headline(),
            "layout autoboot (autoboot.txt only): boots partition 2 ([tryboot] partition 3, tryboot_a_b=1); boot files "
            "not checked (pass --device DEV)");
  // The last line says what was not checked and how to check it; never "OK (kernel , ...)".
  EXPECT_EQ(r.summary(),
            "partition 2 (autoboot.txt boot_partition=2) was not checked: pass --device DEV (the whole disk) to check "
            "its boot files");
  auto j = check_json(o, r);
  EXPECT_EQ(j["autoboot"]["boot_partition"], 2);
  EXPECT_EQ(j["autoboot"]["tryboot_partition"], 3);
  EXPECT_TRUE(j["autoboot"]["followed"].is_null());
  EXPECT_EQ(j["layout"]["id"], "unknown");

  // No boot_partition and nothing else here: an error, exit 1.
  write_file(t.path / "autoboot.txt", "[all]\ntryboot_a_b=1\n");
  auto bad = check_boot(o);
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(autoboot_rules(bad.findings), std::vector<std::string>{"autoboot-no-partition:error"});
  EXPECT_EQ(bad.summary(), "1 error(s), 0 warning(s), 0 info");

  // With config.txt beside it, autoboot.txt no longer makes the dir autoboot-only.
  write_file(t.path / "config.txt", "arm_64bit=1\n");
  EXPECT_FALSE(autoboot_only(t.path));
  fs::remove(t.path / "config.txt");
  fs::remove(t.path / "autoboot.txt");
  EXPECT_THROW(check_boot(o), piprov::Error);
}

TEST(Autoboot, PatchRefusesAndNamesThePartition) {
  TempDir t;
  write_file(t.path / "autoboot.txt", kDocAb);
  try {
    patch_boot(PatchOptions{.boot_dir = t.path});
    FAIL() << "patch_boot did not throw";
  } catch (const piprov::Error& e) {
    EXPECT_EQ(e.kind(), piprov::ErrorKind::Usage);
    EXPECT_EQ(std::string(e.what()), t.path.string() +
                                         " holds only autoboot.txt (boot_partition=2): mount partition 2 and run boot "
                                         "patch there; nothing was changed");
  }
  EXPECT_EQ(piprov::test::read_tree(t.path).size(), 1u);
  EXPECT_EQ(piprov::test::read_file(t.path / "autoboot.txt"), kDocAb);
}

TEST(Autoboot, BesideConfigTxtIsLintedAndNamed) {
  // A full boot partition with an autoboot.txt that names another partition: the info says this
  // config.txt boots only if BOOT_DIR is that partition; the file's own lint runs too.
  TempDir t;
  write_file(t.path / "config.txt", "arm_64bit=1\n");
  write_file(t.path / "cmdline.txt", "console=tty1 root=LABEL=writable rootwait\n");
  write_file(t.path / "autoboot.txt", "[pi5]\nboot_partition=3\n[all]\nboot_partition=2\n");
  auto r = check_boot(CheckOptions{.boot_dir = t.path, .scan_usb = false, .board = PiBoard::Pi5});
  EXPECT_FALSE(r.autoboot);
  std::vector<std::string> got;
  const piprov::Finding* unused = nullptr;
  for (const auto& f : r.findings)
    if (f.rule.rfind("autoboot-", 0) == 0) {
      got.push_back(f.rule + ":" + std::string(piprov::severity_name(f.severity)));
      if (f.rule == "autoboot-config-unused") unused = &f;
    }
  EXPECT_EQ(got, (std::vector<std::string>{"autoboot-unknown-section:warning", "autoboot-config-unused:info"}));
  ASSERT_TRUE(unused);
  EXPECT_EQ(unused->line, 4);
  EXPECT_NE(unused->message.find("partition 2: this config.txt boots only if"), std::string::npos) << unused->message;
}
