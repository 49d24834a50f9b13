#include <gtest/gtest.h>

#include "eeprom/config.hpp"
#include "support/eeprom_fixture.hpp"

using namespace piprov::eeprom;
using piprov::eeprom::test::ids;
using V = std::vector<std::string>;

TEST(ConfigParser, KeepsLineNumbersAndSections) {
  auto c = parse_config("[all]\nBOOT_UART=0\n# note\n\n[gpio3=1]\nBOOT_ORDER=0xf14\n[none]\nFREEZE_VERSION=0\n");
  ASSERT_EQ(c.lines.size(), 8u);
  EXPECT_TRUE(c.findings.empty());
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
  EXPECT_EQ(classify_section("pi4"), SectionKind::Unknown);
}

TEST(ConfigParser, ToleratesCrlfAndTrailingSpaces) {
  auto c = parse_config("[all]\r\nBOOT_UART=1  \r\nBOOT_ORDER=0xf14\r\n");
  EXPECT_EQ(ids(c.findings), (V{"crlf-line-endings@1:info", "trailing-whitespace@2:info"}));
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
  EXPECT_EQ(ids(c.findings),
            (V{"inline-comment@2:error", "space-around-equals@3:error", "multiple-keys-on-line@4:error",
               "include-not-supported@5:error", "edid-filter-not-supported@6:error", "invalid-line@7:error",
               "invalid-line@8:error", "leading-whitespace@9:warning", "invalid-line@10:error"}));
  // Values are still read the way the user meant, so the other rules can run.
  EXPECT_EQ(c.lines[1].value, "0xf14");
  EXPECT_EQ(c.lines[2].key, "BOOT_UART");
  EXPECT_EQ(c.lines[2].value, "1");
  EXPECT_EQ(c.lines[3].value, "1");
  EXPECT_EQ(c.lines[8].key, "DISABLE_HDMI");
  EXPECT_EQ(c.findings[0].fix, "move the comment to a line of its own starting with #");
  EXPECT_EQ(c.findings[1].fix, "write BOOT_UART=1");
}

TEST(ConfigParser, FixForSpacesLeavesTheCommentOut) {
  auto c = parse_config("BOOT_ORDER = 0xf14 # usb first\n");
  EXPECT_EQ(ids(c.findings), (V{"space-around-equals@1:error", "inline-comment@1:error"}));
  EXPECT_EQ(c.findings[0].fix, "write BOOT_ORDER=0xf14");
  EXPECT_EQ(c.lines[0].value, "0xf14");
}

TEST(ConfigParser, HashInsideAValueIsNotAComment) {
  auto c = parse_config("[all]\nTFTP_PREFIX_STR=a#b\n");
  EXPECT_TRUE(c.findings.empty());
  EXPECT_EQ(c.lines[1].value, "a#b");
}

TEST(ConfigParser, SpacePadded2019Format) {
  std::string pad(78, ' ');
  auto c = parse_config("BOOT_UART=0\nWAKE_ON_GPIO=1\n" + pad + "\n" + pad + "\n");
  EXPECT_TRUE(c.space_padded);
  EXPECT_EQ(ids(c.findings), (V{"space-padded-format@3:info"}));
  EXPECT_EQ(c.lines[2].kind, LineKind::Blank);
}

TEST(ConfigParser, NoFinalNewlineAndEmptyInput) {
  auto c = parse_config("[all]\nBOOT_ORDER=0xf41");
  EXPECT_EQ(c.lines.size(), 2u);
  EXPECT_EQ(c.newline_count, 1u);
  EXPECT_EQ(c.lines[1].value, "0xf41");
  EXPECT_TRUE(parse_config("").lines.empty());
}
