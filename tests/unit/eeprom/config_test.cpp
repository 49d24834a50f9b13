#include <gtest/gtest.h>

#include <algorithm>

#include "eeprom/check.hpp"
#include "eeprom/config.hpp"
#include "support/eeprom_fixture.hpp"

using namespace piprov::eeprom;
using piprov::eeprom::test::ids;
using V = std::vector<std::string>;

TEST(ConfigParser, KeepsLineNumbersAndSections) {
  auto c = parse_config("[all]\nBOOT_UART=0\n# note\n\n[gpio3=1]\nBOOT_ORDER=0xf14\n[none]\nFREEZE_VERSION=0\n");
  ASSERT_EQ(c.lines.size(), 8u);
  EXPECT_TRUE(check_syntax(c).empty());
  EXPECT_EQ(c.lines[1].kind, LineKind::Setting);
  EXPECT_EQ(c.lines[1].key, "BOOT_UART");
  EXPECT_EQ(c.lines[1].value, "0");
  EXPECT_EQ(c.lines[2].kind, LineKind::Comment);
  EXPECT_EQ(c.lines[3].kind, LineKind::Blank);
  EXPECT_EQ(c.lines[5].number, 6);
  ASSERT_EQ(c.sections.size(), 3u);
  EXPECT_EQ(c.section_of(c.lines[5])->kind, SectionKind::Gpio);
  EXPECT_EQ(c.section_of(c.lines[7])->kind, SectionKind::None);
  EXPECT_EQ(c.newline_count, 8u);
}

TEST(ConfigParser, ClassifiesSections) {
  EXPECT_EQ(classify_section("all"), SectionKind::All);
  EXPECT_EQ(classify_section("none"), SectionKind::None);
  EXPECT_EQ(classify_section("gpio8=0"), SectionKind::Gpio);
  EXPECT_EQ(classify_section("gpio=1"), SectionKind::Unknown);
  EXPECT_EQ(classify_section("gpio3=2"), SectionKind::Unknown);
  EXPECT_EQ(classify_section("0x12345678"), SectionKind::Serial);
  EXPECT_EQ(classify_section("0xZZ"), SectionKind::Unknown);
  EXPECT_EQ(classify_section("config.txt"), SectionKind::ConfigTxt);
  EXPECT_EQ(classify_section("EDID=VSC-TD2220"), SectionKind::Edid);
  // config.txt's model filters are bootloader filters too (all but [EDID=]).
  EXPECT_EQ(classify_section("pi4"), SectionKind::Model);
  EXPECT_EQ(classify_section("PI5"), SectionKind::Model);
  EXPECT_EQ(classify_section("cm4"), SectionKind::Model);
  EXPECT_EQ(classify_section("board-type=0x17"), SectionKind::Model);
  EXPECT_EQ(classify_section("board-type=0xZZ"), SectionKind::Unknown);
  EXPECT_EQ(classify_section("pi6"), SectionKind::Unknown);
}

TEST(ConfigParser, ToleratesCrlfAndTrailingSpaces) {
  auto c = parse_config("[all]\r\nBOOT_UART=1  \r\nBOOT_ORDER=0xf14\r\n");
  EXPECT_EQ(ids(check_syntax(c)), (V{"crlf-line-endings@1:info", "trailing-whitespace@2:info"}));
  EXPECT_EQ(c.lines[1].value, "1");
  EXPECT_EQ(c.lines[2].value, "0xf14");
  EXPECT_EQ(c.lines[2].raw, "BOOT_ORDER=0xf14");
}

TEST(ConfigParser, ReportsWhatTheBootloaderRejects) {
  auto c = parse_config(
      "[all]\n"
      "BOOT_ORDER=0xf14 # usb first\n"
      "BOOT_UART = 1\n"
      "WAKE_ON_GPIO=1 POWER_OFF_ON_HALT=0\n"
      "include extra.txt\n"
      "[EDID=VSC-TD2220]\n"
      "hello world\n"
      "[all\n"
      "  DISABLE_HDMI=1\n"
      "BAD-KEY=1\n");
  EXPECT_EQ(ids(check_syntax(c)),
            (V{"inline-comment@2:error", "space-around-equals@3:error", "multiple-keys-on-line@4:error",
               "include-not-supported@5:error", "edid-filter-not-supported@6:error", "invalid-line@7:error",
               "invalid-line@8:error", "leading-whitespace@9:warning", "invalid-line@10:error"}));
  // Values are read the way the bootloader reads them: the rest of the line after '='.
  EXPECT_EQ(c.lines[1].kind, LineKind::Setting);
  EXPECT_EQ(c.lines[1].value, "0xf14 # usb first");
  EXPECT_EQ(c.lines[1].value_before_hash, "0xf14");
  // "BOOT_UART " (space kept) is no key: the line sets nothing.
  EXPECT_EQ(c.lines[2].kind, LineKind::SpacedKey);
  EXPECT_EQ(c.lines[2].key, "BOOT_UART");
  EXPECT_EQ(c.lines[3].value, "1 POWER_OFF_ON_HALT=0");
  EXPECT_EQ(c.lines[8].key, "DISABLE_HDMI");
  const auto f = check_syntax(c);
  EXPECT_EQ(f[0].message,
            "inline comment after BOOT_ORDER=: the bootloader takes the rest of the line, \"0xf14 # usb first\", as "
            "the value");
  EXPECT_EQ(f[0].fix, "write BOOT_ORDER=0xf14, and move the comment to a line of its own starting with #");
  EXPECT_EQ(f[1].message,
            "spaces before '=' in \"BOOT_UART = 1\": the bootloader does not ignore them and reads the key "
            "\"BOOT_UART \", which is no setting, so this line sets nothing");
  EXPECT_EQ(f[1].fix, "write BOOT_UART=1");
}

TEST(ConfigParser, FixForSpacesLeavesTheCommentOut) {
  auto c = parse_config("BOOT_ORDER = 0xf14 # usb first\n");
  EXPECT_EQ(ids(check_syntax(c)), (V{"space-around-equals@1:error", "inline-comment@1:error"}));
  EXPECT_EQ(check_syntax(c)[0].fix, "write BOOT_ORDER=0xf14");
  EXPECT_EQ(c.lines[0].kind, LineKind::SpacedKey);
}

// Trial 5 finding 1: the verdict follows what the bootloader reads (Raspberry Pi documentation,
// config_txt: spaces either side of '=' are not ignored; comments only at the start of a line).
// "BOOT_ORDER =0xf41" sets nothing, so line 2's value applies: no duplicate-key, and no fix that
// suggests the 0xf14 already there.
TEST(ConfigVerdict, SpaceBeforeEqualsSetsNothing) {
  CheckInput in;
  in.config_text = "[all]\nBOOT_ORDER=0xf14\nBOOT_ORDER =0xf41\n";
  auto r = check_config(in, CheckOptions{});
  EXPECT_EQ(ids(r.findings), (V{"space-around-equals@3:error"}));
  EXPECT_EQ(r.boot_order.line, 2);
  EXPECT_EQ(r.boot_order.text, "0xf14");
  ASSERT_TRUE(r.boot_order.order);
  EXPECT_EQ(r.boot_order.order->value, 0xf14u);
}

// A space after '=' is kept in the value, which is then no 0x hex number.
TEST(ConfigVerdict, SpaceAfterEqualsIsPartOfTheValue) {
  CheckInput in;
  in.config_text = "[all]\nBOOT_ORDER=0xf41\nBOOT_ORDER= 0xf14\n";
  auto r = check_config(in, CheckOptions{});
  EXPECT_EQ(ids(r.findings),
            (V{"space-around-equals@3:error", "duplicate-key@3:warning", "boot-order-format@3:error"}));
  EXPECT_EQ(r.boot_order.line, 3);
  EXPECT_EQ(r.boot_order.text, " 0xf14");
  EXPECT_FALSE(r.boot_order.order);
  EXPECT_EQ(r.findings[0].message,
            "spaces after '=' in \"BOOT_ORDER= 0xf14\": the bootloader does not ignore them and takes \" 0xf14\" as "
            "the value");
}

// An inline comment is part of the value: BOOT_ORDER "0xf14 # usb first" is invalid, and the
// summary shows that value, not 0xf14.
TEST(ConfigVerdict, InlineCommentMakesTheValueInvalid) {
  CheckInput in;
  in.config_text = "[all]\nBOOT_ORDER=0xf41\nBOOT_ORDER=0xf14 # usb first\n";
  auto r = check_config(in, CheckOptions{});
  EXPECT_EQ(ids(r.findings), (V{"inline-comment@3:error", "duplicate-key@3:warning", "boot-order-format@3:error"}));
  EXPECT_EQ(r.boot_order.line, 3);
  EXPECT_EQ(r.boot_order.text, "0xf14 # usb first");
  EXPECT_FALSE(r.boot_order.order);
  EXPECT_EQ(r.findings[2].message, "BOOT_ORDER \"0xf14 # usb first\" contains ' ', which is not a hex digit");
}

// Trial 5 finding 10: a UTF-8 byte order mark is named, with how to remove it (the seed check wording).
TEST(ConfigSyntax, ByteOrderMarkIsNamed) {
  auto c = parse_config("\xEF\xBB\xBF[all]\nBOOT_ORDER=0xf41\n");
  const auto f = check_syntax(c);
  EXPECT_EQ(ids(f), (V{"invalid-line@1:error"}));
  EXPECT_EQ(f[0].message,
            "the config starts with a UTF-8 byte order mark (bytes EF BB BF) before '[all]': the bootloader reads "
            "those bytes as part of the line, so it does not read it as \"[all]\"");
  EXPECT_EQ(f[0].fix, "save the file as UTF-8 without a byte order mark (e.g. sed -i '1s/^\\xEF\\xBB\\xBF//' FILE)");
}

TEST(ConfigParser, HashInsideAValueIsNotAComment) {
  auto c = parse_config("[all]\nTFTP_PREFIX_STR=a#b\n");
  EXPECT_TRUE(check_syntax(c).empty());
  EXPECT_EQ(c.lines[1].value, "a#b");
}

TEST(ConfigParser, SpacePadded2019Format) {
  std::string pad(78, ' ');
  auto c = parse_config("BOOT_UART=0\nWAKE_ON_GPIO=1\n" + pad + "\n" + pad + "\n");
  EXPECT_TRUE(c.space_padded);
  EXPECT_EQ(ids(check_syntax(c)), (V{"space-padded-format@3:info"}));
  EXPECT_EQ(c.lines[2].kind, LineKind::Blank);
}

TEST(ConfigParser, NoFinalNewlineAndEmptyInput) {
  auto c = parse_config("[all]\nBOOT_ORDER=0xf41");
  EXPECT_EQ(c.lines.size(), 2u);
  EXPECT_EQ(c.newline_count, 1u);
  EXPECT_EQ(c.lines[1].value, "0xf41");
  EXPECT_TRUE(parse_config("").lines.empty());
}

TEST(ConfigSyntax, ParsingRecordsWhatTheSyntaxPassReports) {
  auto c = parse_config("[all]\nBOOT_UART = 0\nBOOT_ORDER=0xf14\n");
  EXPECT_TRUE(c.lines[1].spaced_equals);
  EXPECT_EQ(c.lines[1].kind, LineKind::SpacedKey);
  EXPECT_EQ(ids(check_syntax(c)), (V{"space-around-equals@2:error"}));
  // check_config runs the syntax pass before the other rules; the line sets nothing for them.
  CheckInput in;
  in.config_text = c.text;
  EXPECT_EQ(ids(check_config(in, CheckOptions{}).findings), (V{"space-around-equals@2:error"}));
}

// rpi-eeprom issue 475: an EEPROM config with a [config.txt] section. The
// firmware appends "the contents from the start of this section to the end of
// the file" to config.txt (Raspberry Pi documentation, "[config.txt] section"),
// so its lines are config.txt lines: config.txt syntax, not invalid lines.
TEST(ConfigSyntax, ConfigTxtSectionHoldsConfigTxtLines) {
  const std::string text =
      "[all]\nBOOT_ORDER=0xf14\n[config.txt]\ndtoverlay=disable-bt\ninitramfs initrd.img followkernel\n"
      "hdmi_mode:1=4\ninclude extra.txt\n  arm_boost=1 # indented, inline comment\n[pi4]\narm_64bit=1\n";
  auto c = parse_config(text);
  EXPECT_EQ(c.config_txt_from, 3);
  EXPECT_EQ(c.lines[4].kind, LineKind::ConfigTxt);
  EXPECT_EQ(c.lines[6].kind, LineKind::ConfigTxt);
  EXPECT_EQ(ids(check_syntax(c)), (V{"config-txt-section@3:info"}));
  CheckInput in;
  in.config_text = text;
  auto r = check_config(in, CheckOptions{});
  EXPECT_EQ(ids(r.findings), (V{"config-txt-section@3:info"}));
  EXPECT_EQ(r.boot_order.text, "0xf14");
  EXPECT_EQ(r.boot_order.line, 2);
}

// Every source string names what it cites; no stray ")" (issue 19).
TEST(ConfigSyntax, SyntaxSourceIsBalanced) {
  auto f = check_syntax(parse_config("BOOT_UART = 0\n"));
  ASSERT_FALSE(f.empty());
  const std::string& s = f[0].source;
  EXPECT_EQ(std::count(s.begin(), s.end(), '('), std::count(s.begin(), s.end(), ')')) << s;
  EXPECT_NE(s.find("config_txt syntax (one KEY=value per line"), std::string::npos) << s;
}
