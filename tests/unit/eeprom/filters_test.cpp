// Conditional sections of the bootloader config as the bootloader honours them (Raspberry Pi
// documentation, config_txt: conditional filters): every active filter named, the last value
// that applies wins, and a fix edits the value where it is set.
#include <gtest/gtest.h>

#include "eeprom/check.hpp"
#include "support/eeprom_fixture.hpp"

using namespace piprov::eeprom;
using piprov::eeprom::test::ids;
using V = std::vector<std::string>;

static CheckReport filters_run(const std::string& text, Board board = Board::Pi4) {
  CheckInput in;
  in.config_text = text;
  CheckOptions opt;
  opt.board = board;
  opt.want = Want::Usb;
  return check_config(in, opt);
}

// A conditional BOOT_ORDER under combined filters ([pi4] then [gpio4=1]) that a later [all] value
// overrides never applies; one after the [all] value is conditional on both filters, and its
// missing-mode fix edits it where it is set, not under [all].
TEST(CheckRules, CombinedFiltersAndTheLastValueThatApplies) {
  auto r = filters_run("[all]\nBOOT_UART=0\n[pi4]\n[gpio4=1]\nBOOT_ORDER=0xf1\n[all]\nBOOT_ORDER=0xf14\n");
  EXPECT_EQ(r.boot_order.text, "0xf14");
  EXPECT_TRUE(r.boot_order.conditional.empty());
  ASSERT_EQ(r.boot_order.overridden.size(), 1u);
  EXPECT_EQ(r.boot_order.overridden[0].section, "[pi4] then [gpio4=1]");
  EXPECT_EQ(ids(r.findings), (V{"boot-order-overridden@5:info"}));
  EXPECT_EQ(r.findings[0].message,
            "BOOT_ORDER=0xf1 under [pi4] then [gpio4=1] never takes effect: BOOT_ORDER at line 7 (under [all]) applies "
            "always and comes later, and the last value that applies wins");
  EXPECT_EQ(r.findings[0].fix, "remove line 5, or move it after line 7 if it is meant to apply");

  r = filters_run("[all]\nBOOT_UART=0\nBOOT_ORDER=0xf14\n[pi4]\n[gpio4=1]\nBOOT_ORDER=0xf1\n");
  ASSERT_EQ(r.boot_order.conditional.size(), 1u);
  EXPECT_EQ(r.boot_order.conditional[0].section, "[pi4] then [gpio4=1]");
  EXPECT_EQ(ids(r.findings), (V{"boot-order-conditional@6:info", "boot-order-missing-mode@6:warning"}));
  EXPECT_EQ(r.findings[0].message,
            "BOOT_ORDER=0xf1 applies only when the board is a Raspberry Pi 4B ([pi4]) and GPIO 4 reads 1 at "
            "boot ([gpio4=1]); otherwise 0xf14 applies");
  EXPECT_EQ(r.findings[1].fix,
            "set BOOT_ORDER=0xf14 (USB mass storage, then SD card, then restart from the top) at line 6, under "
            "[pi4] then [gpio4=1]: sudo rpi-eeprom-config --edit (piprov eeprom set-boot-order changes only the [all] "
            "value)");
  // [gpio4=1] then [0x1234abcd]: both are active (different types combine).
  r = filters_run("[all]\nBOOT_UART=0\nBOOT_ORDER=0xf14\n[gpio4=1]\n[0x1234abcd]\nBOOT_ORDER=0xf41\n");
  ASSERT_EQ(r.boot_order.conditional.size(), 1u);
  EXPECT_EQ(r.boot_order.conditional[0].section, "[gpio4=1] then [0x1234abcd]");
  // The effective value under a matching model filter: its fix names [pi4], where it is set.
  r = filters_run("[all]\nBOOT_UART=0\nBOOT_ORDER=0xf14\n[pi4]\nBOOT_ORDER=0xf1\n");
  EXPECT_EQ(r.boot_order.section, "[pi4]");
  EXPECT_EQ(ids(r.findings), (V{"boot-order-missing-mode@5:error"}));
  EXPECT_NE(r.findings[0].fix.find("at line 5, under [pi4]: sudo rpi-eeprom-config --edit"), std::string::npos)
      << r.findings[0].fix;
  // ... and a later [all] value replaces it on the board: the [pi4] one never takes effect.
  r = filters_run("[pi4]\nBOOT_ORDER=0xf1\n[all]\nBOOT_UART=0\nBOOT_ORDER=0xf14\n");
  EXPECT_EQ(r.boot_order.line, 5);
  EXPECT_EQ(ids(r.findings), (V{"boot-order-overridden@2:info"}));
}

// The notation piprov prints for combined filters is headers one after the other, as the
// documentation combines them ("[pi4] then [gpio4=1]"): written back as those header lines, the
// config gives the same section and no unknown-section (was "[pi4][gpio4=1]", which written
// literally is unknown-section).
TEST(CheckRules, CombinedFilterNotationReadsBackAsHeaders) {
  auto r = filters_run("[all]\nBOOT_UART=0\nBOOT_ORDER=0xf14\n[pi4]\n[gpio4=1]\nBOOT_ORDER=0xf41\n");
  ASSERT_EQ(r.boot_order.conditional.size(), 1u);
  const std::string printed = r.boot_order.conditional[0].section;
  EXPECT_EQ(printed, "[pi4] then [gpio4=1]");
  std::string headers;
  for (std::size_t at = 0;;) {
    auto next = printed.find(" then ", at);
    headers += printed.substr(at, next == std::string::npos ? next : next - at) + "\n";
    if (next == std::string::npos) break;
    at = next + 6;
  }
  EXPECT_EQ(headers, "[pi4]\n[gpio4=1]\n");
  auto again = filters_run("[all]\nBOOT_UART=0\nBOOT_ORDER=0xf14\n" + headers + "BOOT_ORDER=0xf41\n");
  ASSERT_EQ(again.boot_order.conditional.size(), 1u);
  EXPECT_EQ(again.boot_order.conditional[0].section, printed);
  for (const auto& f : again.findings) EXPECT_NE(f.rule, "unknown-section") << f.message;
  // The one-line form is no filter: unknown-section, its BOOT_ORDER not applied.
  auto literal = filters_run("[all]\nBOOT_UART=0\nBOOT_ORDER=0xf14\n[pi4][gpio4=1]\nBOOT_ORDER=0xf41\n");
  EXPECT_TRUE(literal.boot_order.conditional.empty());
  EXPECT_EQ(ids(literal.findings)[0], "unknown-section@4:warning");
}

// Trial 6 finding 5: under a [gpioN=0]/[gpioN=1] pair the [all] value never applies, so
// boot-order-conditional's fix is not set-boot-order (which changes only that value): it edits the
// value at its own line, or removes the pair (was "move it under [all] (e.g. set-boot-order ...)").
TEST(CheckRules, GpioPairConditionalFixEditsThePairNotAll) {
  auto r =
      filters_run("[all]\nBOOT_UART=0\nBOOT_ORDER=0xf41\n[gpio4=1]\nBOOT_ORDER=0xf14\n[gpio4=0]\nBOOT_ORDER=0xf1\n");
  ASSERT_EQ(r.boot_order.always_gpio, "4");
  // 0xf41 at line 3 never applies: no advice to change its order (was wanted-not-first's "0xf14").
  EXPECT_EQ(ids(r.findings),
            (V{"boot-order-conditional@5:info", "boot-order-conditional@7:info", "boot-order-missing-mode@7:error"}));
  EXPECT_EQ(r.findings[0].fix,
            "nothing to do if GPIO 4 is meant to choose; to change it, edit it at line 5, under [gpio4=1]: sudo "
            "rpi-eeprom-config --edit (piprov eeprom set-boot-order changes only the [all] value, which [gpio4=0] "
            "and [gpio4=1] always override); or remove the BOOT_ORDER lines under [gpio4=0] and [gpio4=1] to let "
            "the [all] value apply");
  EXPECT_EQ(r.findings[1].fix,
            "set BOOT_ORDER=0xf14 (0xf1 lacks USB mass storage) at line 7, under [gpio4=0]: sudo rpi-eeprom-config "
            "--edit (piprov eeprom set-boot-order changes only the [all] value, which [gpio4=0] and [gpio4=1] always "
            "override); or remove the BOOT_ORDER lines under [gpio4=0] and [gpio4=1] to let the [all] value apply");
  for (const auto& f : r.findings)
    if (f.rule == "boot-order-conditional") EXPECT_EQ(f.fix.find("set-boot-order 0x"), std::string::npos) << f.fix;
  // Combined filters are named as set; a lone [gpio4=1] (no pair) still moves the value under [all].
  r = filters_run("[all]\nBOOT_UART=0\n[pi4]\n[gpio4=1]\nBOOT_ORDER=0xf14\n[gpio4=0]\nBOOT_ORDER=0xf41\n");
  ASSERT_EQ(r.boot_order.always_gpio, "4");
  EXPECT_NE(r.findings[0].fix.find("at line 5, under [pi4] then [gpio4=1]: sudo rpi-eeprom-config --edit"),
            std::string::npos)
      << r.findings[0].fix;
  r = filters_run("[all]\nBOOT_UART=0\nBOOT_ORDER=0xf41\n[gpio4=1]\nBOOT_ORDER=0xf14\n");
  ASSERT_EQ(ids(r.findings), (V{"boot-order-wanted-not-first@3:info", "boot-order-conditional@5:info"}));
  EXPECT_EQ(r.findings[1].fix,
            "to make it unconditional, move it under [all] (e.g. piprov eeprom set-boot-order 0xf14 --image "
            "pieeprom.bin --out new.bin)");
}

// Trial 6 finding 11: a [gpioN=v] naming a GPIO the board does not have is a warning naming the
// board's range: 0-57 on the BCM2711 (Pi 4 family), 0-27 on the Pi 5 family (RP1 bank 0, the header).
TEST(CheckRules, GpioFilterBeyondTheBoardsGpios) {
  const std::string cfg =
      "[all]\nBOOT_UART=0\n[gpio99=1]\nBOOT_ORDER=0xf14\n[all]\n[gpio57=1]\nBOOT_UART=1\n"
      "[gpio28=0]\nBOOT_UART=1\n";
  auto r = filters_run(cfg);
  EXPECT_EQ(ids(r.findings), (V{"gpio-filter-no-such-gpio@3:warning", "boot-order-conditional@4:info",
                                "boot-order-default@-:info", "boot-order-wanted-not-first@-:info"}));
  EXPECT_EQ(r.findings[0].message,
            "[gpio99=1] names GPIO 99, which a Raspberry Pi 4B does not have (its GPIOs are 0-57): no pin decides "
            "whether the settings under it apply");
  EXPECT_EQ(r.findings[0].fix,
            "use the number of the GPIO wired to your switch (0-57), or pass --board for the board the config is for");
  r = filters_run(cfg, Board::Pi5);
  V got;
  for (const auto& f : r.findings)
    if (f.rule == "gpio-filter-no-such-gpio") got.push_back(std::to_string(f.line) + " " + f.message);
  EXPECT_EQ(got, (V{"3 [gpio99=1] names GPIO 99, which a Raspberry Pi 5 does not have (its GPIOs are 0-27, the "
                    "40-pin header): no pin decides whether the settings under it apply",
                    "6 [gpio57=1] names GPIO 57, which a Raspberry Pi 5 does not have (its GPIOs are 0-27, the "
                    "40-pin header): no pin decides whether the settings under it apply",
                    "8 [gpio28=0] names GPIO 28, which a Raspberry Pi 5 does not have (its GPIOs are 0-27, the "
                    "40-pin header): no pin decides whether the settings under it apply"}));
  // Under a model filter that never matches the board the section is not judged (section-never-applies).
  r = filters_run("[all]\nBOOT_UART=0\n[pi4]\n[gpio40=1]\nBOOT_UART=1\n[all]\n[gpio27=1]\nBOOT_UART=1\n", Board::Pi5);
  for (const auto& f : r.findings) EXPECT_NE(f.rule, "gpio-filter-no-such-gpio") << f.line << " " << f.message;
  EXPECT_EQ(gpio_count(Board::Cm4), 58);
  EXPECT_EQ(gpio_count(Board::Cm5), 28);
}
