#include <gtest/gtest.h>

#include <algorithm>

#include "eeprom/boot_order.hpp"
#include "eeprom/check.hpp"
#include "support/eeprom_fixture.hpp"

using namespace piprov::eeprom;
using piprov::eeprom::test::ids;
using V = std::vector<std::string>;

static BootOrder bo(const char* s) {
  auto p = parse_boot_order(s);
  EXPECT_TRUE(p.order) << s << ": " << p.error;
  return p.order.value_or(BootOrder{});
}

TEST(BootOrder, ReadsNibblesFromTheLeastSignificant) {
  EXPECT_EQ(bo("0xf41").modes, (std::vector<int>{1, 4, 0xf}));
  EXPECT_EQ(bo("0XF14").value, 0xf14u);
  EXPECT_EQ(bo("0x00000f41").modes, (std::vector<int>{1, 4, 0xf}));  // leading zeros are not modes
  EXPECT_EQ(bo("0xf01").modes, (std::vector<int>{1, 0, 0xf}));       // an inner 0 is SD card-detect
  EXPECT_EQ(bo("0x12345671").modes.size(), 8u);
}

TEST(BootOrder, RejectsWhatTheBootloaderCannotRead) {
  EXPECT_EQ(parse_boot_order("f41").error, "BOOT_ORDER \"f41\" is not hex with a 0x prefix (e.g. 0xf41)");
  EXPECT_EQ(parse_boot_order("0x").error, "BOOT_ORDER \"0x\" has no hex digits");
  EXPECT_EQ(parse_boot_order("0xf4g1").error, "BOOT_ORDER \"0xf4g1\" contains 'g', which is not a hex digit");
  EXPECT_EQ(parse_boot_order("0x123456789").error,
            "BOOT_ORDER \"0x123456789\" has more than 8 nibbles (the bootloader reads at most 8)");
  EXPECT_EQ(parse_boot_order("0x0").error, "BOOT_ORDER \"0x0\" is zero: no boot mode at all");
  EXPECT_EQ(parse_boot_order("0xf").error,
            "BOOT_ORDER \"0xf\" starts with RESTART (f) (its last hex digit): no boot mode is ever tried");
  EXPECT_EQ(parse_boot_order("0x41e").error,
            "BOOT_ORDER \"0x41e\" starts with STOP (e) (its last hex digit): no boot mode is ever tried");
  EXPECT_TRUE(parse_boot_order("0xf1").order);
  EXPECT_EQ(parse_boot_order("").error, "BOOT_ORDER \"\" is not hex with a 0x prefix (e.g. 0xf41)");
}

TEST(BootOrder, InWords) {
  EXPECT_EQ(boot_order_words(bo("0xf41")), "SD card, then USB mass storage, then restart from the top");
  EXPECT_EQ(boot_order_words(bo("0xf14")), "USB mass storage, then SD card, then restart from the top");
  EXPECT_EQ(boot_order_words(bo("0x1")), "SD card, then stop (no RESTART)");
  EXPECT_EQ(boot_order_words(bo("0xf461")), "SD card, then NVMe, then USB mass storage, then restart from the top");
  EXPECT_EQ(boot_order_words(bo("0x4f1")), "SD card, then restart from the top; never reached: USB mass storage");
  EXPECT_EQ(boot_order_words(bo("0xe21")), "SD card, then network, then stop");
  EXPECT_EQ(boot_order_words(bo("0xf61"), Board::Pi4),
            "SD card, then NVMe (not on a Raspberry Pi 4B: skipped), then restart from the top");
  EXPECT_EQ(boot_order_words(bo("0x391")), "SD card, then unknown mode 0x9, then RPIBOOT (USB device boot)");
}

// Trial 4, B7: an order whose every mode the board lacks says so once, not "boots only from X (skipped)".
TEST(BootOrderWords, NoModeTheBoardHas) {
  auto o = parse_boot_order("0xf5").order;
  ASSERT_TRUE(o);
  EXPECT_FALSE(boot_order_tries_board_mode(*o, Board::Pi5));
  EXPECT_TRUE(boot_order_tries_board_mode(*o, Board::Pi4));
  EXPECT_EQ(boot_order_words(*o, Board::Pi5),
            "no mode a Raspberry Pi 5 has (it skips USB mass storage on the USB-C port (BCM-USB-MSD)), then restart "
            "from the top");
  EXPECT_EQ(boot_order_words(*o, Board::Pi4),
            "USB mass storage on the USB-C port (BCM-USB-MSD), then restart from the top");
  CheckInput in;
  in.config_text = "[all]\nBOOT_UART=0\nBOOT_ORDER=0xf5\n";
  CheckOptions opt;
  opt.board = Board::Pi5;
  opt.want_from_board = true;
  auto r = check_config(in, opt);
  auto f = std::find_if(r.findings.begin(), r.findings.end(),
                        [](const piprov::Finding& x) { return x.rule == "boot-order-no-drive"; });
  ASSERT_NE(f, r.findings.end());
  EXPECT_EQ(f->message,
            "BOOT_ORDER=0xf5 tries neither USB mass storage (4) nor NVMe (6): this Raspberry Pi 5 boots from nothing: "
            "no mode a Raspberry Pi 5 has (it skips USB mass storage on the USB-C port (BCM-USB-MSD)), then restart "
            "from the top");
}

TEST(BootOrder, SuggestionPutsTheWantedModeFirst) {
  EXPECT_EQ(suggest_boot_order(bo("0x1"), Want::Usb, Board::Pi4), 0xf14u);
  EXPECT_EQ(suggest_boot_order(bo("0x21"), Want::Usb, Board::Pi4), 0xf214u);
  EXPECT_EQ(suggest_boot_order(bo("0xf41"), Want::Usb, Board::Pi4), 0xf14u);
  EXPECT_EQ(suggest_boot_order(bo("0xf461"), Want::Nvme, Board::Pi5), 0xf416u);
  EXPECT_EQ(suggest_boot_order(bo("0xf641"), Want::Usb, Board::Pi4), 0xf14u);  // drops NVMe on a Pi 4B
}

TEST(BootOrder, ClassicUsbNeverTried) {
  auto f = check_boot_order(bo("0x1"), 10, Board::Pi4, Want::Usb);
  EXPECT_EQ(ids(f), (V{"boot-order-no-restart@10:warning", "boot-order-missing-mode@10:error"}));
  EXPECT_EQ(
      f[1].message,
      "BOOT_ORDER=0x1 never tries USB mass storage (4): SD card, then stop (no RESTART) — USB boot is never tried");
  EXPECT_EQ(f[1].fix.substr(0, 28), "set BOOT_ORDER=0xf14 (USB ma");
  EXPECT_EQ(f[0].fix, "append f: BOOT_ORDER=0xf1");
}

TEST(BootOrder, BoardModes) {
  EXPECT_EQ(ids(check_boot_order(bo("0xf461"), 3, Board::Pi5, Want::Usb)), (V{"boot-order-wanted-not-first@3:info"}));
  EXPECT_EQ(ids(check_boot_order(bo("0xf461"), 3, Board::Pi4, std::nullopt)),
            (V{"boot-order-mode-unsupported@3:warning"}));
  EXPECT_TRUE(check_boot_order(bo("0xf641"), 1, Board::Cm4, std::nullopt).empty());
  EXPECT_EQ(ids(check_boot_order(bo("0xf51"), 2, Board::Pi5, std::nullopt)),
            (V{"boot-order-mode-unsupported@2:warning"}));
  EXPECT_TRUE(check_boot_order(bo("0xf51"), 2, Board::Pi4, std::nullopt).empty());
  // NVMe wanted on a Pi 4B: the board has no such mode at all.
  auto f = check_boot_order(bo("0xf61"), 1, Board::Pi4, Want::Nvme);
  EXPECT_EQ(ids(f), (V{"boot-order-mode-unsupported@1:warning", "boot-order-missing-mode@1:error"}));
  EXPECT_EQ(f[1].message, "--want nvme: a Raspberry Pi 4B has no NVMe boot mode");
  // Trial 7: 0xf416 on a Pi 400 (no NVMe mode: skipped) names only the SD card before USB.
  f = check_boot_order(bo("0xf416"), 4, Board::Pi400, Want::Usb);
  ASSERT_EQ(ids(f), (V{"boot-order-mode-unsupported@4:warning", "boot-order-wanted-not-first@4:info"}));
  EXPECT_EQ(f[1].message,
            "BOOT_ORDER=0xf416 tries SD card before USB mass storage: if that succeeds the Pi boots from it instead");
  // On a CM4 the NVMe mode exists: named.
  f = check_boot_order(bo("0xf416"), 4, Board::Cm4, Want::Usb);
  ASSERT_EQ(ids(f), (V{"boot-order-wanted-not-first@4:info"}));
  EXPECT_EQ(f[0].message,
            "BOOT_ORDER=0xf416 tries NVMe, SD card before USB mass storage: if that succeeds the Pi "
            "boots from it instead");
  // Only skipped modes before the wanted one: it is first in effect, no finding.
  EXPECT_EQ(ids(check_boot_order(bo("0xf46"), 4, Board::Pi400, Want::Usb)),
            (V{"boot-order-mode-unsupported@4:warning"}));
}

TEST(BootOrder, StructuralRules) {
  EXPECT_EQ(ids(check_boot_order(bo("0xf31"), 4, Board::Pi4, std::nullopt)),
            (V{"boot-order-rpiboot-not-last@4:error"}));
  EXPECT_TRUE(check_boot_order(bo("0x321"), 4, Board::Pi4, std::nullopt).empty());  // RPIBOOT last: ok, waits
  EXPECT_EQ(ids(check_boot_order(bo("0x4f1"), 4, Board::Pi4, Want::Usb)),
            (V{"boot-order-unreachable@4:warning", "boot-order-missing-mode@4:error"}));
  EXPECT_EQ(ids(check_boot_order(bo("0xf81"), 4, Board::Pi4, std::nullopt)), (V{"boot-order-unknown-mode@4:error"}));
  EXPECT_TRUE(check_boot_order(bo("0xe41"), 4, Board::Pi4, Want::Usb).size() == 1);  // STOP is a deliberate end
  EXPECT_TRUE(check_boot_order(bo("0xf14"), 4, Board::Pi4, Want::Usb).empty());
  EXPECT_EQ(ids(check_boot_order(bo("0x21"), 0, Board::Pi4, Want::Usb, "[gpio3=1]")),
            (V{"boot-order-no-restart@-:warning", "boot-order-missing-mode@-:warning"}));
}

TEST(BootOrder, WantNames) {
  EXPECT_EQ(want_mode(*parse_want("usb")), 4);
  EXPECT_EQ(want_mode(*parse_want("nvme")), 6);
  EXPECT_EQ(want_mode(*parse_want("sd")), 1);
  EXPECT_EQ(want_mode(*parse_want("network")), 2);
  EXPECT_FALSE(parse_want("USB-C"));
}

// Issue 19: HTTP boot (7) is network boot too (Raspberry Pi documentation,
// eeprom-bootloader: BOOT_ORDER lists 0x2 NETWORK and 0x7 HTTP).
TEST(BootOrder, NetworkWantIncludesHttp) {
  EXPECT_TRUE(want_satisfied_by(Want::Network, 2));
  EXPECT_TRUE(want_satisfied_by(Want::Network, 7));
  EXPECT_FALSE(want_satisfied_by(Want::Usb, 7));
  EXPECT_TRUE(check_boot_order(bo("0xf71"), 1, Board::Pi4, Want::Network).size() == 1);
  EXPECT_EQ(ids(check_boot_order(bo("0xf71"), 1, Board::Pi4, Want::Network)),
            (V{"boot-order-wanted-not-first@1:info"}));
  EXPECT_TRUE(check_boot_order(bo("0xf17"), 1, Board::Pi4, Want::Network).empty());
  EXPECT_TRUE(check_boot_order(bo("0xf27"), 1, Board::Pi5, Want::Network).empty());
  auto f = check_boot_order(bo("0xf71"), 1, Board::Pi4, Want::Network);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].message, "BOOT_ORDER=0xf71 tries SD card before HTTP: if that succeeds the Pi boots from it instead");
  EXPECT_EQ(f[0].fix, "to try HTTP first: BOOT_ORDER=0xf17");
  auto none = check_boot_order(bo("0xf41"), 1, Board::Pi4, Want::Network);
  ASSERT_EQ(ids(none), (V{"boot-order-missing-mode@1:error"}));
  EXPECT_NE(none[0].message.find("never tries network (2) nor HTTP (7)"), std::string::npos) << none[0].message;
}
