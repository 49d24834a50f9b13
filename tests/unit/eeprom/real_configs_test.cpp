// One test per real config in ../shared/data/bootloader-configs: the exact
// findings (rule id, line, severity) for a Pi 4 with --want usb unless noted.
#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>

#include "eeprom/check.hpp"
#include "support/eeprom_fixture.hpp"
#include "support/testsupport.hpp"

using namespace piprov::eeprom;
using piprov::eeprom::test::ids;
using V = std::vector<std::string>;

namespace {
CheckReport check_file(const std::filesystem::path& p, Board board = Board::Pi4, std::optional<Want> want = Want::Usb) {
  CheckInput in;
  in.config_text = piprov::test::read_file(p);
  CheckOptions opt;
  opt.board = board;
  opt.want = want;
  return check_config(in, opt);
}
}  // namespace

#define REAL_CONFIG(name) PIPROV_REQUIRE_SHARED(std::string("bootloader-configs/") + name, path)

TEST(RealConfigs, C01_Default20200903) {
  REAL_CONFIG("01-default-2020-09-03.txt");
  auto r = check_file(path);
  EXPECT_EQ(ids(r.findings), (V{"boot-order-wanted-not-first@10:info"}));
  EXPECT_EQ(r.boot_order.text, "0xf41");
  EXPECT_EQ(findings_exit_code(r.findings, check_fail_on(true)), 0);
}

TEST(RealConfigs, C02_Default20200416_SdOnly) {
  REAL_CONFIG("02-default-2020-04-16.txt");
  auto r = check_file(path);
  EXPECT_EQ(ids(r.findings), (V{"boot-order-no-restart@10:warning", "boot-order-missing-mode@10:error",
                                "section-none-ignored@13:info"}));
  EXPECT_EQ(findings_exit_code(r.findings, check_fail_on(false)), 1);
}

TEST(RealConfigs, C03_2019SpacePaddedParses) {
  REAL_CONFIG("03-2019-07-15-space-padded.txt");
  auto r = check_file(path);
  EXPECT_EQ(r.config.lines.size(), 16u);
  int settings = 0;
  for (const auto& l : r.config.lines) settings += l.kind == LineKind::Setting;
  EXPECT_EQ(settings, 3);
  EXPECT_EQ(r.config.lines[2].key, "POWER_OFF_ON_HALT");
  EXPECT_TRUE(r.config.space_padded);
  EXPECT_EQ(ids(r.findings),
            (V{"space-padded-format@4:info", "boot-order-default@-:info", "boot-order-wanted-not-first@-:info"}));
  EXPECT_EQ(r.boot_order.text, "0xf41");
  EXPECT_TRUE(r.boot_order.is_default());
  EXPECT_EQ(findings_exit_code(r.findings, check_fail_on(true)), 0);
}

TEST(RealConfigs, C04_Cm4Manufacturing) {
  REAL_CONFIG("04-cm4-mfg-2020-10-02.txt");
  EXPECT_EQ(ids(check_file(path, Board::Cm4).findings), (V{"boot-order-wanted-not-first@6:info"}));
  // NVMe wanted on a CM4: 0xf41 never tries it.
  EXPECT_EQ(ids(check_file(path, Board::Cm4, Want::Nvme).findings), (V{"boot-order-missing-mode@6:error"}));
}

TEST(RealConfigs, C05_Pi4Default2026_NoBootOrderLine) {
  REAL_CONFIG("05-pi4-default-2026-05-17.txt");
  auto r = check_file(path);
  EXPECT_EQ(ids(r.findings), (V{"boot-order-default@-:info", "boot-order-wanted-not-first@-:info"}));
  EXPECT_EQ(r.boot_order.text, "0xf41");
  EXPECT_TRUE(r.boot_order.is_default());
}

TEST(RealConfigs, C06_Pi5Default2026) {
  REAL_CONFIG("06-pi5-default-2026-05-26.txt");
  EXPECT_EQ(ids(check_file(path, Board::Pi5).findings), (V{"boot-order-wanted-not-first@3:info"}));
  EXPECT_TRUE(check_file(path, Board::Pi5, Want::Sd).findings.empty());
  // The same config on a Pi 4B: NVMe (6) does not exist there.
  EXPECT_EQ(ids(check_file(path, Board::Pi4).findings),
            (V{"boot-order-mode-unsupported@3:warning", "boot-order-wanted-not-first@3:info"}));
}

TEST(RealConfigs, C07_Issue163Before_SdThenNetwork) {
  REAL_CONFIG("07-issue163-before.txt");
  auto r = check_file(path);
  EXPECT_EQ(ids(r.findings),
            (V{"boot-order-no-restart@9:warning", "boot-order-missing-mode@9:error", "section-none-ignored@12:info"}));
  EXPECT_EQ(
      ids(check_file(path, Board::Pi4, Want::Network).findings),
      (V{"boot-order-no-restart@9:warning", "boot-order-wanted-not-first@9:info", "section-none-ignored@12:info"}));
}

TEST(RealConfigs, C08_Issue163After) {
  REAL_CONFIG("08-issue163-after.txt");
  EXPECT_EQ(ids(check_file(path).findings), (V{"boot-order-wanted-not-first@9:info", "section-none-ignored@14:info"}));
}

TEST(RealConfigs, C09_StaleSdOnlyIsAnErrorWithWantUsb) {
  REAL_CONFIG("09-issue272-stale-sd-only.txt");
  auto r = check_file(path);
  EXPECT_EQ(ids(r.findings), (V{"boot-order-no-restart@10:warning", "boot-order-missing-mode@10:error",
                                "section-none-ignored@13:info"}));
  EXPECT_EQ(
      r.findings[1].message,
      "BOOT_ORDER=0x1 never tries USB mass storage (4): SD card, then stop (no RESTART) — USB boot is never tried");
  EXPECT_EQ(r.findings[1].fix,
            "set BOOT_ORDER=0xf14 (USB mass storage, then SD card, then restart from the top) under [all]: piprov "
            "eeprom set-boot-order 0xf14 --image pieeprom.bin --out new.bin, or sudo rpi-eeprom-config --edit");
  EXPECT_EQ(findings_exit_code(r.findings, check_fail_on(false)), 1);
  // Wanting SD only, it is merely missing a RESTART.
  EXPECT_EQ(findings_exit_code(check_file(path, Board::Pi4, Want::Sd).findings, check_fail_on(false)), 0);
}

TEST(RealConfigs, C10_UsbFirstIsClean) {
  REAL_CONFIG("10-issue423-usb-first.txt");
  auto r = check_file(path);
  EXPECT_TRUE(r.findings.empty()) << ids(r.findings).size();
  EXPECT_EQ(r.boot_order.text, "0xf14");
  EXPECT_EQ(r.boot_order.line, 6);
  EXPECT_EQ(findings_exit_code(r.findings, check_fail_on(true)), 0);
}

TEST(RealConfigs, C11_NoPowerOffLine) {
  REAL_CONFIG("11-issue430-no-poweroff-line.txt");
  auto r = check_file(path);
  EXPECT_TRUE(r.findings.empty());
  EXPECT_EQ(r.boot_order.line, 5);
}

TEST(RealConfigs, C12_GpioConditionalBootOrder) {
  REAL_CONFIG("12-issue493-gpio-conditional.txt");
  auto r = check_file(path);
  EXPECT_EQ(ids(r.findings),
            (V{"boot-order-conditional@6:info", "boot-order-default@-:info", "boot-order-wanted-not-first@-:info"}));
  EXPECT_EQ(r.findings[0].message,
            "BOOT_ORDER=0xf14 applies only when GPIO 3 reads 1 at boot ([gpio3=1]); otherwise 0xf41 (board default) "
            "applies");
  EXPECT_EQ(r.boot_order.text, "0xf41");
  ASSERT_EQ(r.boot_order.conditional.size(), 1u);
  EXPECT_EQ(r.boot_order.conditional[0].section, "[gpio3=1]");
  EXPECT_EQ(r.boot_order.conditional[0].line, 6);
  EXPECT_EQ(r.boot_order.conditional[0].text, "0xf14");
}

// The newer configs: the wanted mode is what `eeprom check` takes without
// --want (default_want: from the board and the config's BOOT_ORDER).
namespace {
CheckReport check_default_want(const std::filesystem::path& p, Board board) {
  CheckInput in;
  in.config_text = piprov::test::read_file(p);
  CheckOptions opt;
  opt.board = board;
  opt.want_from_board = true;
  return check_config(in, opt);
}
}  // namespace

TEST(RealConfigs, C24_Pi4TrybootSectionIsFlagged) {
  REAL_CONFIG("24-issue454-pi4-tryboot-section.txt");
  auto r = check_default_want(path, Board::Pi4);
  EXPECT_EQ(r.want, Want::Usb);
  EXPECT_EQ(ids(r.findings), (V{"boot-order-wanted-not-first@6:info", "tryboot-section-ignored@8:warning"}));
  EXPECT_EQ(r.findings[1].source, "rpi-eeprom issue 454");
  // [tryboot]'s BOOT_ORDER=0xf14 is not applied: the [all] one is.
  EXPECT_EQ(r.boot_order.text, "0xf41");
  EXPECT_EQ(r.boot_order.line, 6);
  EXPECT_TRUE(r.boot_order.conditional.empty());
  EXPECT_EQ(findings_exit_code(r.findings, check_fail_on(false)), 0);
  EXPECT_EQ(findings_exit_code(r.findings, check_fail_on(true)), 1);
}

TEST(RealConfigs, C25_Cm5PcieProbeWithUsbBeforeNvmeWarns) {
  REAL_CONFIG("25-issue618-cm5-usb-before-nvme.txt");
  auto r = check_default_want(path, Board::Cm5);
  EXPECT_EQ(r.want, Want::Usb);  // 0xf2641 tries USB (4) before NVMe (6)
  // POWER_OFF_ON_HALT=1 needs no WAKE_ON_GPIO=0 on a CM5: no power-off-on-halt-ignored.
  EXPECT_EQ(ids(r.findings), (V{"pcie-probe-usb-before-nvme@8:warning", "boot-order-wanted-not-first@15:info"}));
  EXPECT_EQ(r.findings[0].key, "PCIE_PROBE");
  EXPECT_NE(r.findings[0].message.find("BOOT_ORDER=0xf2641"), std::string::npos) << r.findings[0].message;
  EXPECT_NE(r.findings[0].source.find("raspberrypi/linux issue 5836"), std::string::npos);
  EXPECT_EQ(findings_exit_code(r.findings, check_fail_on(true)), 1);
  // Wanting NVMe: also told that SD and USB come first.
  EXPECT_EQ(ids(check_file(path, Board::Cm5, Want::Nvme).findings),
            (V{"pcie-probe-usb-before-nvme@8:warning", "boot-order-wanted-not-first@15:info"}));
  // On a Pi 4B, PCIE_PROBE and NVMe do not exist (and POWER_OFF_ON_HALT needs WAKE_ON_GPIO=0).
  EXPECT_EQ(ids(check_default_want(path, Board::Pi4).findings),
            (V{"power-off-on-halt-ignored@5:warning", "key-wrong-board@8:warning",
               "boot-order-mode-unsupported@15:warning", "boot-order-wanted-not-first@15:info"}));
}

TEST(RealConfigs, C26_Pi5TrailingTabAfterBootOrder) {
  REAL_CONFIG("26-issue531-pi5-trailing-tab.txt");
  auto r = check_default_want(path, Board::Pi5);
  EXPECT_EQ(r.want, Want::Nvme);  // NVMe first: not asked about USB
  EXPECT_EQ(ids(r.findings), (V{"trailing-whitespace@5:info"}));
  ASSERT_TRUE(r.boot_order.order);
  EXPECT_EQ(r.boot_order.order->value, 0xf416u);
  // NVMe before USB: PCIE_PROBE=1 is not the issue-5836 case.
  EXPECT_EQ(findings_exit_code(r.findings, check_fail_on(true)), 0);
}

TEST(RealConfigs, C27_Pi4GpioPairNeverTriesUsb) {
  REAL_CONFIG("27-docs2183-pi4-gpio-filters.txt");
  auto r = check_default_want(path, Board::Pi4);
  EXPECT_EQ(r.boot_order.always_gpio, "21");
  // gpio=21=pu is config.txt syntax; both GPIO 21 levels set a BOOT_ORDER without USB,
  // so the board default 0xf41 never applies and USB is never tried.
  EXPECT_EQ(ids(r.findings),
            (V{"unknown-key@8:warning", "boot-order-conditional@11:info", "boot-order-missing-mode@11:error",
               "boot-order-conditional@14:info", "boot-order-missing-mode@14:error"}));
  EXPECT_NE(r.findings[1].message.find("[gpio21=0] and [gpio21=1] both set BOOT_ORDER"), std::string::npos)
      << r.findings[1].message;
  // Each conditional info's example is a value that passes (was 0xf2 and 0xf1, which missing-mode
  // fails), set at its own line: the pair always overrides [all], so set-boot-order is no remedy
  // (trial 6 finding 5).
  for (std::size_t i : {1u, 3u}) {
    const std::string& fix = r.findings[i].fix;
    ASSERT_EQ(fix.rfind("set BOOT_ORDER=", 0), 0u) << fix;
    std::string value = fix.substr(15, fix.find(" ", 15) - 15);
    EXPECT_NE(fix.find(i == 1 ? "at line 11, under [gpio21=1]: sudo rpi-eeprom-config --edit"
                              : "at line 14, under [gpio21=0]: sudo rpi-eeprom-config --edit"),
              std::string::npos)
        << fix;
    EXPECT_EQ(fix.find("set-boot-order 0x"), std::string::npos) << fix;
    EXPECT_NE(value, i == 1 ? "0xf2" : "0xf1") << fix;
    CheckInput fixed;
    fixed.config_text = "[all]\nBOOT_UART=0\nBOOT_ORDER=" + value + "\n";
    CheckOptions opt;
    opt.board = Board::Pi4;
    opt.want_from_board = true;
    EXPECT_EQ(ids(check_config(fixed, opt).findings), V{}) << fix;
  }
  EXPECT_EQ(findings_exit_code(r.findings, check_fail_on(false)), 1);
}

// Issue 29 (trial 3): on a Pi 5 without --want, an SD-only 0x1 said "want: -" and passed with no
// word, while the GPIO pair 0xf2/0xf1 (neither tries a drive either) got "want: nvme" and two
// errors. One rule now: a board with NVMe wants the first drive mode the applying order(s) try;
// when none does, nothing is wanted and each such value gets a boot-order-no-drive warning.
TEST(RealConfigs, C09_C27_Pi5WithoutADriveModeWarnsTheSameWay) {
  REAL_CONFIG("09-issue272-stale-sd-only.txt");
  auto sd = check_default_want(path, Board::Pi5);
  EXPECT_EQ(sd.want, std::nullopt);
  EXPECT_EQ(ids(sd.findings), (V{"key-wrong-board@3:warning", "boot-order-no-restart@10:warning",
                                 "boot-order-no-drive@10:warning", "section-none-ignored@13:info"}));
  EXPECT_EQ(sd.findings[2].message,
            "BOOT_ORDER=0x1 tries neither USB mass storage (4) nor NVMe (6): this Raspberry Pi 5 boots only from SD "
            "card, then stop (no RESTART)");
  EXPECT_EQ(findings_exit_code(sd.findings, check_fail_on(false)), 0);
  EXPECT_EQ(findings_exit_code(sd.findings, check_fail_on(true)), 1);
  PIPROV_REQUIRE_SHARED(std::string("bootloader-configs/27-docs2183-pi4-gpio-filters.txt"), gpio_path);
  auto pair = check_default_want(gpio_path, Board::Pi5);
  EXPECT_EQ(pair.want, std::nullopt);
  EXPECT_EQ(ids(pair.findings),
            (V{"key-wrong-board@4:warning", "unknown-key@8:warning", "boot-order-conditional@11:info",
               "boot-order-no-drive@11:warning", "boot-order-conditional@14:info", "boot-order-no-drive@14:warning"}));
  EXPECT_EQ(pair.findings[3].message,
            "BOOT_ORDER=0xf2 tries neither USB mass storage (4) nor NVMe (6): under [gpio21=1] this Raspberry Pi 5 "
            "boots only from network, then restart from the top");
  EXPECT_EQ(findings_exit_code(pair.findings, check_fail_on(false)), 0);
  // With --want nvme both are errors, the same way.
  EXPECT_EQ(findings_exit_code(check_file(path, Board::Pi5, Want::Nvme).findings, check_fail_on(false)), 1);
  EXPECT_EQ(findings_exit_code(check_file(gpio_path, Board::Pi5, Want::Nvme).findings, check_fail_on(false)), 1);
  // A GPIO pair where one level tries NVMe: NVMe wanted, the other level's value is the error.
  CheckInput in;
  in.config_text = "[all]\nBOOT_UART=0\n[gpio21=1]\nBOOT_ORDER=0xf1\n[gpio21=0]\nBOOT_ORDER=0xf61\n";
  CheckOptions opt;
  opt.board = Board::Pi5;
  opt.want_from_board = true;
  auto mixed = check_config(in, opt);
  EXPECT_EQ(mixed.want, Want::Nvme);
  EXPECT_EQ(findings_exit_code(mixed.findings, check_fail_on(false)), 1);
}

// Trial 4, B4: boot-order-no-drive's fix sets the value where it applies: a value under [all] with
// set-boot-order as it runs (--image, --out); one under a filter that overrides [all] ([gpio21=0],
// [board-type=0x17]) at its own line, as boot-order-missing-mode's fix does (set-boot-order changes
// only the [all] value, which the filter's value overrides: config_txt conditional filters).
TEST(RealConfigs, C09_C27_NoDriveFixEditsTheValueThatApplies) {
  REAL_CONFIG("09-issue272-stale-sd-only.txt");
  auto sd = check_default_want(path, Board::Pi5);
  ASSERT_EQ(sd.findings.size(), 4u);
  EXPECT_EQ(sd.findings[2].fix,
            "to boot from an SSD set BOOT_ORDER=0xf461 (the Raspberry Pi 5 default) under [all]: piprov eeprom "
            "set-boot-order 0xf461 --image pieeprom.bin --out new.bin, or sudo rpi-eeprom-config --edit; if "
            "SD/network boot is what you want, pass --want sd or --want network");
  PIPROV_REQUIRE_SHARED(std::string("bootloader-configs/27-docs2183-pi4-gpio-filters.txt"), gpio_path);
  auto pair = check_default_want(gpio_path, Board::Pi5);
  ASSERT_EQ(pair.findings.size(), 6u);
  for (const auto& [i, line, gpio] :
       std::vector<std::tuple<std::size_t, int, std::string>>{{3, 11, "1"}, {5, 14, "0"}}) {
    EXPECT_EQ(pair.findings[i].rule, "boot-order-no-drive");
    EXPECT_NE(
        pair.findings[i].fix.find("set BOOT_ORDER=0xf461 (the Raspberry Pi 5 default) at line " + std::to_string(line) +
                                  ", under [gpio21=" + gpio + "]: sudo rpi-eeprom-config --edit"),
        std::string::npos)
        << pair.findings[i].fix;
    EXPECT_EQ(pair.findings[i].fix.find("piprov eeprom set-boot-order 0xf461"), std::string::npos)
        << pair.findings[i].fix;
  }
  CheckInput in;
  in.config_text = "[all]\nBOOT_UART=0\nBOOT_ORDER=0xf461\n[board-type=0x17]\nBOOT_ORDER=0xf1\n";
  CheckOptions opt;
  opt.board = Board::Pi5;
  opt.want_from_board = true;
  auto bt = check_config(in, opt);
  ASSERT_EQ(ids(bt.findings), (V{"boot-order-no-drive@5:warning"}));
  EXPECT_NE(bt.findings[0].fix.find("at line 5, under [board-type=0x17]: sudo rpi-eeprom-config --edit"),
            std::string::npos)
      << bt.findings[0].fix;
}

TEST(RealConfigs, C28_Pi5FactoryDefaultIsClean) {
  REAL_CONFIG("28-usbboot-recovery5-pi5-default.txt");
  auto r = check_default_want(path, Board::Pi5);
  EXPECT_EQ(r.want, Want::Nvme);
  // Only the note that a bootable SD card is tried first; nothing to fix, --strict passes.
  EXPECT_EQ(ids(r.findings), (V{"boot-order-wanted-not-first@4:info"}));
  EXPECT_EQ(findings_exit_code(r.findings, check_fail_on(true)), 0);
  EXPECT_EQ(ids(check_default_want(path, Board::Pi500).findings), ids(r.findings));
  EXPECT_EQ(ids(check_default_want(path, Board::Cm5).findings), ids(r.findings));
}

TEST(RealConfigs, C29_PartitionFilterIsConditionalNotUnknown) {
  REAL_CONFIG("29-docs-partition62-filter.txt");
  for (Board b : {Board::Pi4, Board::Pi5}) {
    auto r = check_default_want(path, b);
    ASSERT_EQ(r.config.sections.size(), 1u);
    EXPECT_EQ(r.config.sections[0].kind, SectionKind::Partition);
    EXPECT_TRUE(r.config.sections[0].conditional());
    // PARTITION, HDMI_DELAY and SD_QUIRKS are documented keys, checked under the filter.
    EXPECT_EQ(ids(r.findings), (V{"boot-order-default@-:info", "boot-order-wanted-not-first@-:info"})) << board_name(b);
    EXPECT_EQ(findings_exit_code(r.findings, check_fail_on(true)), 0);
  }
}

// PlanktoScope's Pi 5 image config: [pi5] and [pi4] sections. The bootloader honours config.txt's
// filters but [EDID=] (Raspberry Pi documentation, eeprom-bootloader): on a Pi 5 the [pi5] settings
// apply and [pi4] can never apply (an info, not an error); on a Pi 4 the other way round.
TEST(RealConfigs, C30_Pi5ImageWithPi4AndPi5Sections) {
  REAL_CONFIG("30-planktoscope-pi5-image-pi4-pi5-sections.txt");
  auto r = check_default_want(path, Board::Pi5);
  EXPECT_EQ(r.want, Want::Nvme);
  EXPECT_EQ(ids(r.findings), (V{"boot-order-wanted-not-first@2:info", "section-never-applies@10:info"}));
  EXPECT_EQ(r.findings[1].message,
            "[pi4] never applies on a Raspberry Pi 5: its 1 setting(s) are not used on this board");
  EXPECT_EQ(findings_exit_code(r.findings, check_fail_on(true)), 0);
  ASSERT_EQ(r.config.sections.size(), 4u);
  EXPECT_TRUE(r.config.sections[1].always());   // [pi5] on a Pi 5
  EXPECT_TRUE(r.config.sections[2].ignored());  // [pi4] on a Pi 5
  EXPECT_EQ(r.config.sections[2].never_on_board, "pi4");
  // The same file judged for a Pi 4B: [pi5] never applies, so its Pi 5-only keys are not judged.
  auto p4 = check_default_want(path, Board::Pi4);
  auto has = [&](const std::string& id) {
    return std::any_of(p4.findings.begin(), p4.findings.end(), [&](const auto& f) { return f.rule == id; });
  };
  EXPECT_TRUE(has("section-never-applies"));
  EXPECT_FALSE(has("key-wrong-board"));  // WAIT_FOR_POWER_BUTTON (Pi 5 only) sits under [pi5]
  EXPECT_FALSE(has("unknown-section"));
}

// Trial 5 finding 1 on a real config: a line "BOOT_ORDER =0xf14" appended to the 2020-09-03
// default sets nothing (the bootloader reads the key "BOOT_ORDER "), so line 10's 0xf41 applies.
TEST(RealConfigs, C01_SpacedKeyAppendedSetsNothing) {
  REAL_CONFIG("01-default-2020-09-03.txt");
  CheckInput in;
  in.config_text = piprov::test::read_file(path) + "BOOT_ORDER =0xf14\n";
  const int added = static_cast<int>(std::count(in.config_text.begin(), in.config_text.end(), '\n'));
  CheckOptions opt;
  auto r = check_config(in, opt);
  EXPECT_EQ(ids(r.findings),
            (V{"boot-order-wanted-not-first@10:info", "space-around-equals@" + std::to_string(added) + ":error"}));
  EXPECT_EQ(r.boot_order.line, 10);
  EXPECT_EQ(r.boot_order.text, "0xf41");
}
