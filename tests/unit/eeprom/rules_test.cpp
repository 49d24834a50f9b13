#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "eeprom/check.hpp"
#include "eeprom/keys.hpp"
#include "support/eeprom_fixture.hpp"
#include "support/testsupport.hpp"

using namespace piprov::eeprom;
using piprov::eeprom::test::ids;
using V = std::vector<std::string>;

static CheckReport run(const std::string& text, Board board = Board::Pi4, std::optional<Want> want = Want::Usb) {
  CheckInput in;
  in.config_text = text;
  CheckOptions opt;
  opt.board = board;
  opt.want = want;
  return check_config(in, opt);
}

TEST(KeyTable, EveryFieldNotesKeyIsThere) {
  for (const char* k : {"BOOT_UART",
                        "WAKE_ON_GPIO",
                        "POWER_OFF_ON_HALT",
                        "BOOT_ORDER",
                        "DHCP_TIMEOUT",
                        "DHCP_REQ_TIMEOUT",
                        "TFTP_FILE_TIMEOUT",
                        "TFTP_PREFIX",
                        "TFTP_PREFIX_STR",
                        "SD_BOOT_MAX_RETRIES",
                        "NET_BOOT_MAX_RETRIES",
                        "ENABLE_SELF_UPDATE",
                        "DISABLE_HDMI",
                        "FREEZE_VERSION",
                        "USB_MSD_DISCOVER_TIMEOUT",
                        "USB_MSD_LUN_TIMEOUT",
                        "USB_MSD_PWR_OFF_TIME",
                        "USB_MSD_STARTUP_DELAY",
                        "USB_MSD_EXCLUDE_VID_PID",
                        "PCIE_PROBE",
                        "PSU_MAX_CURRENT",
                        "NET_INSTALL_ENABLED",
                        "NET_INSTALL_AT_POWER_ON",
                        "PARTITION_WALK",
                        "HDMI_DELAY"}) {
    const KeyRule* r = find_key(k);
    ASSERT_NE(r, nullptr) << k;
    EXPECT_EQ(r->source, "Raspberry Pi documentation, eeprom-bootloader: configuration properties") << k;
  }
  EXPECT_EQ(find_key("DHCP_TIMEOUT")->min, 5000);
  EXPECT_EQ(find_key("DHCP_TIMEOUT")->default_value, "45000");
  EXPECT_EQ(find_key("PCIE_PROBE")->boards, unsigned(kPi5));
  EXPECT_EQ(find_key("USB_MSD_PWR_OFF_TIME")->boards, unsigned(kPi4Family));
}

TEST(KeyTable, UnknownKeysGetTheNearestName) {
  EXPECT_EQ(nearest_key("BOOT_ODER"), "BOOT_ORDER");
  EXPECT_EQ(nearest_key("boot_order"), "BOOT_ORDER");
  EXPECT_EQ(nearest_key("DHCP_TIMOUT"), "DHCP_TIMEOUT");
  EXPECT_EQ(nearest_key("USB_MSD_STARTUP_DELAYS"), "USB_MSD_STARTUP_DELAY");
  EXPECT_FALSE(nearest_key("ARM_FREQ"));
  auto f = check_setting("BOOT_ODER", "0xf14", 3, Board::Pi4);
  ASSERT_EQ(ids(f), (V{"unknown-key@3:warning"}));
  EXPECT_EQ(f[0].message, "unknown key BOOT_ODER: the bootloader ignores it (did you mean BOOT_ORDER?)");
  EXPECT_EQ(f[0].fix, "did you mean BOOT_ORDER?");
}

TEST(KeyTable, LimitsFromFieldNotes) {
  EXPECT_EQ(ids(check_setting("DHCP_TIMEOUT", "4999", 2, Board::Pi4)), (V{"value-out-of-range@2:error"}));
  EXPECT_TRUE(check_setting("DHCP_TIMEOUT", "5000", 2, Board::Pi4).empty());
  EXPECT_EQ(ids(check_setting("DHCP_REQ_TIMEOUT", "499", 2, Board::Pi4)), (V{"value-out-of-range@2:error"}));
  EXPECT_EQ(ids(check_setting("TFTP_FILE_TIMEOUT", "4000", 2, Board::Pi4)), (V{"value-out-of-range@2:error"}));
  EXPECT_EQ(ids(check_setting("TFTP_PREFIX", "3", 2, Board::Pi4)), (V{"value-out-of-range@2:error"}));
  EXPECT_EQ(ids(check_setting("TFTP_PREFIX_STR", std::string(33, 'a'), 2, Board::Pi4)),
            (V{"value-out-of-range@2:error"}));
  EXPECT_TRUE(check_setting("TFTP_PREFIX_STR", std::string(32, 'a'), 2, Board::Pi4).empty());
  EXPECT_TRUE(check_setting("SD_BOOT_MAX_RETRIES", "-1", 2, Board::Pi4).empty());
  EXPECT_EQ(ids(check_setting("NET_BOOT_MAX_RETRIES", "-2", 2, Board::Pi4)), (V{"value-out-of-range@2:error"}));
  EXPECT_EQ(ids(check_setting("USB_MSD_DISCOVER_TIMEOUT", "100", 2, Board::Pi4)), (V{"value-out-of-range@2:error"}));
  EXPECT_EQ(ids(check_setting("USB_MSD_LUN_TIMEOUT", "99", 2, Board::Pi4)), (V{"value-out-of-range@2:error"}));
  EXPECT_EQ(ids(check_setting("USB_MSD_PWR_OFF_TIME", "5001", 2, Board::Pi4)), (V{"value-out-of-range@2:error"}));
  EXPECT_EQ(ids(check_setting("USB_MSD_STARTUP_DELAY", "30001", 2, Board::Pi4)), (V{"value-out-of-range@2:error"}));
  EXPECT_EQ(ids(check_setting("BOOT_UART", "yes", 2, Board::Pi4)), (V{"value-invalid@2:error"}));
  EXPECT_EQ(ids(check_setting("BOOT_UART", "", 2, Board::Pi4)), (V{"value-invalid@2:error"}));
  auto w = check_setting("WAKE_ON_GPIO", "2", 2, Board::Pi4);
  ASSERT_EQ(ids(w), (V{"value-out-of-range@2:error"}));
  EXPECT_EQ(w[0].message, "WAKE_ON_GPIO=2 is out of range: WAKE_ON_GPIO must be 0..1 (2 is for the Pi 400 only)");
  EXPECT_TRUE(check_setting("WAKE_ON_GPIO", "2", 2, Board::Pi400).empty());
}

TEST(KeyTable, VidPidList) {
  EXPECT_TRUE(check_setting("USB_MSD_EXCLUDE_VID_PID", "0bc22322", 1, Board::Pi4).empty());
  EXPECT_TRUE(check_setting("USB_MSD_EXCLUDE_VID_PID", "0bc22322,0bc22323,12345678,abcdef01", 1, Board::Pi4).empty());
  for (const char* bad : {"0bc2:2322", "0bc22322,", "0bc22322,0bc22323,12345678,abcdef01,abcdef02", "xyz"})
    EXPECT_EQ(ids(check_setting("USB_MSD_EXCLUDE_VID_PID", bad, 1, Board::Pi4)), (V{"value-invalid@1:error"})) << bad;
}

TEST(KeyTable, BoardOnlyKeys) {
  auto f = check_setting("PCIE_PROBE", "1", 4, Board::Pi4);
  ASSERT_EQ(ids(f), (V{"key-wrong-board@4:warning"}));
  EXPECT_EQ(f[0].message, "PCIE_PROBE is a Pi 5-only setting; a Raspberry Pi 4B ignores it");
  EXPECT_TRUE(check_setting("PCIE_PROBE", "1", 4, Board::Pi5).empty());
  EXPECT_EQ(ids(check_setting("PSU_MAX_CURRENT", "5000", 4, Board::Cm4)), (V{"key-wrong-board@4:warning"}));
  EXPECT_EQ(ids(check_setting("USB_MSD_PWR_OFF_TIME", "1000", 4, Board::Pi5)), (V{"key-wrong-board@4:warning"}));
}

TEST(CheckRules, PowerOffOnHaltNeedsWakeOnGpioOff) {
  auto r = run("[all]\nWAKE_ON_GPIO=1\nPOWER_OFF_ON_HALT=1\nBOOT_ORDER=0xf14\n");
  EXPECT_EQ(ids(r.findings), (V{"power-off-on-halt-ignored@3:warning"}));
  EXPECT_EQ(r.findings[0].message, "POWER_OFF_ON_HALT=1 has no effect while WAKE_ON_GPIO=1 (line 2)");
  // Absent WAKE_ON_GPIO means its default 1.
  EXPECT_EQ(ids(run("[all]\nPOWER_OFF_ON_HALT=1\nBOOT_ORDER=0xf14\n").findings),
            (V{"power-off-on-halt-ignored@2:warning"}));
  EXPECT_TRUE(run("[all]\nWAKE_ON_GPIO=0\nPOWER_OFF_ON_HALT=1\nBOOT_ORDER=0xf14\n").findings.empty());
}

TEST(CheckRules, FreezeVersion) {
  EXPECT_EQ(ids(run("[all]\nBOOT_ORDER=0xf14\nFREEZE_VERSION=1\n").findings), (V{"freeze-version-set@3:warning"}));
  // Under [none] (as release images have it) it is never applied.
  EXPECT_EQ(ids(run("[all]\nBOOT_ORDER=0xf14\n[none]\nFREEZE_VERSION=1\n").findings),
            (V{"section-none-ignored@3:info"}));
}

TEST(CheckRules, SizeAndLineCount) {
  std::string big = "[all]\nBOOT_ORDER=0xf14\n";
  while (big.size() <= 4076) big += "# padding comment line to make the config too large for the EEPROM\n";
  auto r = run(big);
  EXPECT_EQ(ids(r.findings), (V{"config-too-large@-:error"}));
  EXPECT_EQ(r.findings[0].message, "the config is " + std::to_string(big.size()) +
                                       " bytes; an EEPROM holds at most 4076 bytes of bootconf.txt");
  EXPECT_EQ(ids(run("[all]\nBOOT_ORDER=0xf14\n").findings), (V{"config-too-short@-:warning"}));
  EXPECT_EQ(ids(run("[all]\nBOOT_UART=0\nBOOT_ORDER=0xf14").findings), (V{"config-too-short@-:warning"}));
  EXPECT_TRUE(run("[all]\nBOOT_UART=0\nBOOT_ORDER=0xf14\n").findings.empty());
}

TEST(CheckRules, DuplicatesAndUnknownSections) {
  EXPECT_EQ(ids(run("[all]\nBOOT_ORDER=0x1\nBOOT_UART=0\nBOOT_ORDER=0xf14\n").findings),
            (V{"boot-order-no-restart@2:warning", "duplicate-key@4:warning"}));
  auto r = run("[all]\nBOOT_UART=0\nBOOT_ORDER=0xf14\n[pi6]\nBOOT_ORDER=0x1\n");
  EXPECT_EQ(ids(r.findings), (V{"unknown-section@4:warning"}));
  EXPECT_EQ(r.boot_order.text, "0xf14");
  // [pi4] is a filter the bootloader honours: on a Pi 4 its BOOT_ORDER=0x1 is the one used (was
  // unknown-section and 0xf14 before: wrong).
  r = run("[all]\nBOOT_UART=0\nBOOT_ORDER=0xf14\n[pi4]\nBOOT_ORDER=0x1\n");
  EXPECT_EQ(r.boot_order.text, "0x1");
  EXPECT_EQ(r.boot_order.line, 5);
  EXPECT_EQ(ids(r.findings), (V{"boot-order-no-restart@5:warning", "boot-order-missing-mode@5:error"}));
}

// Model filters on the board checked: a matching one applies like [all] (and overrides [all]'s
// value without a duplicate-key), one that can never match is an info and its keys are not
// judged; a model filter combines with a [gpio] one; [all] resets both.
TEST(CheckRules, ModelFiltersFollowTheBoard) {
  auto run = [](const std::string& text, Board b) { return ::run(text, b, std::nullopt); };
  const char* cfg =
      "[all]\nBOOT_UART=0\nBOOT_ORDER=0xf41\n[pi5]\nBOOT_ORDER=0xf461\nPCIE_PROBE=1\n"
      "[pi4]\nBOOT_ORDER=0xf14\nUSB_MSD_PWR_OFF_TIME=500\n[all]\n";
  auto pi5 = run(cfg, Board::Pi5);
  EXPECT_EQ(pi5.boot_order.text, "0xf461");
  EXPECT_EQ(pi5.boot_order.line, 5);
  EXPECT_EQ(ids(pi5.findings), (V{"section-never-applies@7:info"}));
  EXPECT_EQ(pi5.findings[0].message,
            "[pi4] never applies on a Raspberry Pi 5: its 2 setting(s) are not used on this board");
  auto pi4 = run(cfg, Board::Pi4);
  EXPECT_EQ(pi4.boot_order.text, "0xf14");
  EXPECT_EQ(ids(pi4.findings), (V{"section-never-applies@4:info"}));
  // [cm4] on a Pi 400: never; on a CM4: applies. [board-type=0x13] is the Pi 400.
  EXPECT_EQ(run("[all]\nBOOT_UART=0\nBOOT_ORDER=0xf41\n[cm4]\nBOOT_ORDER=0xf1\n", Board::Pi400).boot_order.text,
            "0xf41");
  EXPECT_EQ(
      run("[all]\nBOOT_UART=0\nBOOT_ORDER=0xf41\n[board-type=0x13]\nBOOT_ORDER=0xf14\n", Board::Pi400).boot_order.text,
      "0xf14");
  // [pi4] then [gpio4=1]: the gpio section is conditional on a Pi 4 and never applies on a Pi 5.
  const char* combined = "[all]\nBOOT_UART=0\nBOOT_ORDER=0xf461\n[pi4]\n[gpio4=1]\nBOOT_ORDER=0xf14\n";
  auto c4 = run(combined, Board::Pi4);
  ASSERT_EQ(c4.boot_order.conditional.size(), 1u);
  EXPECT_EQ(c4.boot_order.conditional[0].section, "[pi4] then [gpio4=1]");
  auto c5 = run(combined, Board::Pi5);
  EXPECT_TRUE(c5.boot_order.conditional.empty());
  EXPECT_EQ(ids(c5.findings), (V{"section-never-applies@5:info"}));
  EXPECT_EQ(c5.findings[0].message,
            "[gpio4=1] never applies on a Raspberry Pi 5 (under [pi4]): its 1 setting(s) are not used on this board");
}

// A key the board ignores is a warning: WAKE_ON_GPIO is a Pi 4 family setting (the Pi 5 wakes
// from its power button / PMIC).
TEST(CheckRules, KeysWithoutEffectOnTheBoard) {
  EXPECT_EQ(ids(run("[all]\nWAKE_ON_GPIO=1\nBOOT_ORDER=0xf461\n", Board::Pi5, std::nullopt).findings),
            (V{"key-wrong-board@2:warning"}));
  EXPECT_TRUE(run("[all]\nWAKE_ON_GPIO=1\nBOOT_ORDER=0xf14\n", Board::Pi4).findings.empty());
}

TEST(CheckRules, EffectiveBootOrderRespectsSections) {
  auto r = run("[all]\nBOOT_UART=0\nBOOT_ORDER=0x1\n[none]\nBOOT_ORDER=0xf14\n[0x1234abcd]\nBOOT_ORDER=0xf41\n");
  EXPECT_EQ(r.boot_order.text, "0x1");
  EXPECT_EQ(r.boot_order.line, 3);
  ASSERT_EQ(r.boot_order.conditional.size(), 1u);
  EXPECT_EQ(r.boot_order.conditional[0].section, "[0x1234abcd]");
  EXPECT_EQ(ids(r.findings),
            (V{"boot-order-no-restart@3:warning", "boot-order-missing-mode@3:error", "section-none-ignored@4:info",
               "boot-order-conditional@7:info", "boot-order-wanted-not-first@7:info"}));
  EXPECT_EQ(r.findings[3].message,
            "BOOT_ORDER=0xf41 applies only when the board's serial number is 0x1234abcd ([0x1234abcd]); otherwise "
            "0x1 applies");
}

TEST(CheckRules, BadBootOrderValue) {
  auto r = run("[all]\nBOOT_UART=0\nBOOT_ORDER=f14\n");
  EXPECT_EQ(ids(r.findings), (V{"boot-order-format@3:error"}));
  EXPECT_FALSE(r.boot_order.order);
  EXPECT_EQ(findings_exit_code(r.findings, check_fail_on(false)), 1);
}

TEST(CheckRules, WantNoneAndStrict) {
  auto r = run("[all]\nBOOT_UART=0\nBOOT_ORDER=0x1\n", Board::Pi4, std::nullopt);
  EXPECT_EQ(ids(r.findings), (V{"boot-order-no-restart@3:warning"}));
  EXPECT_EQ(findings_exit_code(r.findings, check_fail_on(false)), 0);
  EXPECT_EQ(findings_exit_code(r.findings, check_fail_on(true)), 1);
}

TEST(CheckRules, BootloaderVersionAndChannel) {
  CheckInput in;
  in.config_text = "[all]\nBOOT_UART=0\nBOOT_ORDER=0xf14\n";
  in.bootloader = BootloaderInfo{1587057086, "", "image"};  // 2020-04-16
  CheckOptions opt;
  auto r = check_config(in, opt);
  ASSERT_EQ(ids(r.findings), (V{"bootloader-too-old-for-usb@-:error"}));
  EXPECT_EQ(r.findings[0].message,
            "bootloader 2020-04-16 (image) predates USB mass-storage boot in the default channel (2020-09-03; stable "
            "channel from 2020-06-15)");
  in.bootloader = BootloaderInfo{1593000000, "", "image"};  // 2020-06-24, a stable-channel release
  in.release_channel = "stable";
  EXPECT_EQ(ids(check_config(in, opt).findings),
            (V{"release-channel-legacy@-:info", "bootloader-too-old-for-usb@-:warning"}));
  in.release_channel = std::nullopt;  // e.g. --image: no channel known; the date alone decides
  EXPECT_EQ(ids(check_config(in, opt).findings), (V{"bootloader-too-old-for-usb@-:warning"}));
  in.bootloader = BootloaderInfo{1592179199, "", "image"};  // 2020-06-14 23:59:59 UTC
  EXPECT_EQ(ids(check_config(in, opt).findings), (V{"bootloader-too-old-for-usb@-:error"}));
  in.bootloader = BootloaderInfo{1599091200, "", "image"};  // 2020-09-03 00:00:00 UTC
  EXPECT_TRUE(check_config(in, opt).findings.empty());
  in.release_channel = "critical";
  in.bootloader = BootloaderInfo{1587057086, "", "image"};
  EXPECT_EQ(ids(check_config(in, opt).findings),
            (V{"release-channel-legacy@-:info", "bootloader-too-old-for-usb@-:error"}));
  in.bootloader = BootloaderInfo{1599135103, "", "image"};  // 2020-09-03
  in.release_channel = "latest";
  EXPECT_TRUE(check_config(in, opt).findings.empty());
  in.release_channel = "lastest";
  EXPECT_EQ(ids(check_config(in, opt).findings), (V{"release-channel-unknown@-:error"}));
  opt.want = Want::Sd;
  in.release_channel = "default";
  in.bootloader = BootloaderInfo{1587057086, "", "image"};
  EXPECT_EQ(ids(check_config(in, opt).findings),
            (V{"boot-order-wanted-not-first@3:info", "bootloader-too-old-for-usb@-:info"}));
}

TEST(CheckRules, AllAfterAConditionalSectionAppliesAgain) {
  auto r = run("[gpio8=0]\nBOOT_ORDER=0x1\n[all]\nBOOT_UART=0\nBOOT_ORDER=0xf14\n");
  EXPECT_EQ(r.boot_order.text, "0xf14");
  EXPECT_EQ(r.boot_order.line, 5);
  // The later [all] value replaces the conditional one: it never takes effect (was reported as
  // applying when GPIO 8 reads 0, with a missing-mode warning about it).
  EXPECT_TRUE(r.boot_order.conditional.empty());
  ASSERT_EQ(r.boot_order.overridden.size(), 1u);
  EXPECT_EQ(r.boot_order.overridden[0].line, 2);
  EXPECT_EQ(r.boot_order.overridden[0].overridden_by, 5);
  EXPECT_EQ(ids(r.findings), (V{"boot-order-overridden@2:info"}));
  EXPECT_EQ(r.findings[0].message,
            "BOOT_ORDER=0x1 under [gpio8=0] never takes effect: BOOT_ORDER at line 5 (under [all]) applies always and "
            "comes later, and the last value that applies wins");
}

TEST(CheckRules, NvmeOnAPi5AndOnACm4) {
  EXPECT_EQ(ids(run("[all]\nBOOT_UART=1\nBOOT_ORDER=0xf461\n", Board::Pi5, Want::Nvme).findings),
            (V{"boot-order-wanted-not-first@3:info"}));
  EXPECT_TRUE(run("[all]\nBOOT_UART=1\nBOOT_ORDER=0xf416\n", Board::Pi5, Want::Nvme).findings.empty());
  // CM4 default (not set) 0xf641 reaches NVMe after the SD card/eMMC.
  auto r = run("[all]\nBOOT_UART=0\nWAKE_ON_GPIO=1\n", Board::Cm4, Want::Nvme);
  EXPECT_EQ(r.boot_order.text, "0xf641");
  EXPECT_EQ(ids(r.findings), (V{"boot-order-default@-:info", "boot-order-wanted-not-first@-:info"}));
}

// Keys of the current eeprom-bootloader documentation that the table gained.
TEST(KeyTable, KeysOfTheCurrentDocumentation) {
  for (const char* k : {"UART_BAUD", "WAIT_FOR_POWER_BUTTON", "BOOT_WATCHDOG_TIMEOUT", "BOOT_WATCHDOG_PARTITION",
                        "MAX_RESTARTS", "REBOOT_ON_FATAL_ERROR", "SD_OVERCURRENT_CHECK", "SDRAM_BANKLOW", "SD_QUIRKS",
                        "PXE_OPTION43", "MAC_ADDRESS_OTP", "HTTP_CACERT_HASH", "BOOTVAR0"})
    EXPECT_NE(find_key(k), nullptr) << k;
  EXPECT_TRUE(check_setting("UART_BAUD", "921600", 3, Board::Pi5).empty());
  EXPECT_EQ(ids(check_setting("UART_BAUD", "100000", 3, Board::Pi5)), (V{"value-invalid@3:error"}));
  EXPECT_EQ(ids(check_setting("UART_BAUD", "115200", 3, Board::Pi4)), (V{"key-wrong-board@3:warning"}));
  EXPECT_EQ(ids(check_setting("WAIT_FOR_POWER_BUTTON", "2", 4, Board::Cm5)), (V{"value-out-of-range@4:error"}));
  EXPECT_TRUE(check_setting("MAX_RESTARTS", "-1", 1, Board::Pi4).empty());
  EXPECT_EQ(ids(check_setting("MAX_RESTARTS", "-2", 1, Board::Pi4)), (V{"value-out-of-range@1:error"}));
  EXPECT_EQ(ids(check_setting("SDRAM_BANKLOW", "5", 1, Board::Pi500)), (V{"value-out-of-range@1:error"}));
  EXPECT_EQ(ids(check_setting("NETCONSOLE", std::string(33, 'x'), 2, Board::Pi4)), (V{"value-out-of-range@2:error"}));
  EXPECT_EQ(find_key("PARTITION_WALK")->default_value, "1");
}

TEST(CheckRules, PartitionAndTrybootSections) {
  EXPECT_EQ(classify_section("partition=62"), SectionKind::Partition);
  EXPECT_EQ(classify_section("PARTITION=2"), SectionKind::Partition);
  EXPECT_EQ(classify_section("partition=x"), SectionKind::Unknown);
  EXPECT_EQ(classify_section("tryboot"), SectionKind::Tryboot);
  auto r = run("[all]\nBOOT_ORDER=0xf41\n[partition=62]\nBOOT_ORDER=0xf1\n");
  EXPECT_EQ(ids(r.findings), (V{"boot-order-wanted-not-first@2:info", "boot-order-conditional@4:info",
                                "boot-order-missing-mode@4:warning"}));
  EXPECT_EQ(r.findings[1].message,
            "BOOT_ORDER=0xf1 applies only when the reboot asked for partition 62 ([partition=62]); otherwise 0xf41 "
            "applies");
  EXPECT_EQ(r.boot_order.text, "0xf41");
}

TEST(CheckRules, PcieProbeWithUsbBeforeNvme) {
  auto pcie = [](const char* order, Board b = Board::Pi5) {
    return ids(run(std::string("[all]\nPCIE_PROBE=1\nBOOT_ORDER=") + order + "\n", b, std::nullopt).findings);
  };
  EXPECT_EQ(pcie("0xf64"), (V{"pcie-probe-usb-before-nvme@2:warning"}));  // USB (4), then NVMe (6)
  EXPECT_EQ(pcie("0xf46"), (V{}));                                        // NVMe first
  EXPECT_EQ(pcie("0xf416", Board::Pi500), (V{}));                         // NVMe first
  EXPECT_EQ(pcie("0xf41"), (V{}));                                        // no NVMe at all
  EXPECT_EQ(pcie("0xf6e4"), (V{"boot-order-unreachable@3:warning"}));     // NVMe after STOP is never tried
  EXPECT_EQ(ids(run("[all]\nPCIE_PROBE=0\nBOOT_ORDER=0xf64\n", Board::Cm5, std::nullopt).findings), (V{}));
}

TEST(CheckRules, DefaultWantFromTheBoard) {
  auto want = [](const char* cfg, Board b) {
    CheckInput in;
    in.config_text = cfg;
    CheckOptions opt;
    opt.board = b;
    opt.want = Want::Sd;  // ignored with want_from_board
    opt.want_from_board = true;
    return check_config(in, opt).want;
  };
  EXPECT_EQ(want("[all]\nBOOT_ORDER=0xf461\n", Board::Pi5), Want::Nvme);
  EXPECT_EQ(want("[all]\nBOOT_ORDER=0xf146\n", Board::Pi5), Want::Nvme);  // NVMe before USB: not asked about USB
  EXPECT_EQ(want("[all]\nBOOT_ORDER=0xf2641\n", Board::Cm5), Want::Usb);  // USB first
  // A set order that tries neither (a CM5 Lite or CM4 Lite booting from SD): nothing wanted (was
  // the board default's first, NVMe / USB: a valid SD-only config failed).
  EXPECT_EQ(want("[all]\nBOOT_ORDER=0xf1\n", Board::Pi500), std::nullopt);
  EXPECT_EQ(want("[all]\nBOOT_ORDER=0xf1\n", Board::Cm4), std::nullopt);
  EXPECT_EQ(want("[all]\nBOOT_ORDER=0xf1\n", Board::Pi4), Want::Usb);  // a Pi 4B: USB, its only other storage
  EXPECT_EQ(want("[all]\nBOOT_ORDER=0xf61\n", Board::Cm4), Want::Nvme);
  EXPECT_EQ(want("[all]\nBOOT_ORDER=0xf61\n", Board::Pi4), Want::Usb);   // a Pi 4B has no NVMe mode
  EXPECT_EQ(want("[all]\nBOOT_UART=0\n", Board::Pi5), Want::Nvme);       // not set: board default 0xf461
  EXPECT_EQ(want("[all]\nBOOT_ORDER=0x1\n", Board::Pi5), std::nullopt);  // a plain Pi 5 too (boot-order-no-drive)
  // A Pi 5 with NVMe first gets no finding about USB.
  CheckInput in;
  in.config_text = "[all]\nBOOT_UART=1\nBOOT_ORDER=0xf416\n";
  CheckOptions opt;
  opt.board = Board::Pi5;
  opt.want_from_board = true;
  EXPECT_TRUE(check_config(in, opt).findings.empty());
}

TEST(CheckRules, GpioPairReplacesTheDefault) {
  auto r = run("[all]\nBOOT_UART=1\n[gpio4=1]\nBOOT_ORDER=0xf14\n[gpio4=0]\nBOOT_ORDER=0xf41\n");
  EXPECT_EQ(r.boot_order.always_gpio, "4");
  EXPECT_EQ(ids(r.findings), (V{"boot-order-conditional@4:info", "boot-order-conditional@6:info",
                                "boot-order-wanted-not-first@6:info"}));
  // An [all] BOOT_ORDER after the pair overrides it again.
  r = run("[gpio4=1]\nBOOT_ORDER=0xf1\n[gpio4=0]\nBOOT_ORDER=0xf1\n[all]\nBOOT_ORDER=0xf14\n");
  EXPECT_EQ(r.boot_order.always_gpio, "");
  EXPECT_EQ(ids(r.findings), (V{"boot-order-overridden@2:info", "boot-order-overridden@4:info"}));
}

// docs/eeprom.md's key table says for each key the boards the key-wrong-board rule holds it to
// (was WAKE_ON_GPIO "all" in the table while the rule warns on a Pi 5).
TEST(KeyTable, DocsTableBoardsAgreeWithTheRules) {
  std::ifstream in(piprov::test::source_dir() / "docs/eeprom.md");
  ASSERT_TRUE(in) << "docs/eeprom.md";
  std::string line;
  bool table = false;
  int rows = 0;
  while (std::getline(in, line)) {
    if (line == "| key | values | default | boards |") {
      table = true;
      continue;
    }
    if (!table || line.rfind("|---", 0) == 0) continue;
    if (line.empty() || line[0] != '|') break;
    std::vector<std::string> cells;
    std::stringstream ss(line.substr(1));
    for (std::string c; std::getline(ss, c, '|');) cells.push_back(c.substr(1, c.size() - 2));
    ASSERT_EQ(cells.size(), 4u) << line;
    const unsigned want = cells[3] == "all" ? kAllBoards : cells[3] == "Pi 4 family" ? kPi4Family : kPi5;
    EXPECT_TRUE(cells[3] == "all" || cells[3] == "Pi 4 family" || cells[3] == "Pi 5") << line;
    std::stringstream keys(cells[0]);
    for (std::string k; std::getline(keys, k, ',');) {
      k.erase(0, k.find_first_not_of(' '));
      const KeyRule* r = find_key(k);
      ASSERT_NE(r, nullptr) << k;
      EXPECT_EQ(r->boards, want) << k << ": docs say " << cells[3];
      ++rows;
    }
  }
  EXPECT_GE(rows, 30);
  EXPECT_EQ(find_key("WAKE_ON_GPIO")->boards, kPi4Family);
}
