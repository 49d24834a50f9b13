// eeprom/input: where `eeprom check` reads its config from, and the input rules.
#include "eeprom/input.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "support/eeprom_fixture.hpp"
#include "support/testsupport.hpp"

using namespace piprov::eeprom;
using piprov::Error;
using piprov::ErrorKind;
using piprov::eeprom::test::make_image;
using piprov::test::TempDir;
using piprov::test::write_file;

namespace {
// The message of the Error{kind} that load_input throws.
std::string load_error(const InputSource& src, ErrorKind kind = ErrorKind::Usage) {
  try {
    load_input(src);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "load_input did not throw";
  return "";
}

InputSource file_source(const std::filesystem::path& p) {
  InputSource s;
  s.file = p.string();
  return s;
}
}  // namespace

TEST(EepromInput, TextFile) {
  TempDir d("piprov-eeprom-input");
  write_file(d.path / "c.txt", "[all]\nBOOT_ORDER=0xf14\n");
  auto in = load_input(file_source(d.path / "c.txt"));
  EXPECT_EQ(in.input.config_text, "[all]\nBOOT_ORDER=0xf14\n");
  EXPECT_EQ(in.board, Board::Pi4);
  EXPECT_EQ(in.context.source_kind, SourceKind::File);
  EXPECT_EQ(in.context.path, (d.path / "c.txt").string());
  EXPECT_EQ(in.context.board_from, "default");
  EXPECT_FALSE(in.input.bootloader);
  auto given = file_source(d.path / "c.txt");
  given.board = Board::Cm4;
  auto cm4 = load_input(given);
  EXPECT_EQ(cm4.board, Board::Cm4);
  EXPECT_EQ(cm4.context.board_from, "--board");
}

TEST(EepromInput, TextRulesRefuseWhatIsNotAConfig) {
  TempDir d("piprov-eeprom-input");
  write_file(d.path / "empty.txt", " \n\n");
  EXPECT_EQ(load_error(file_source(d.path / "empty.txt")),
            (d.path / "empty.txt").string() +
                " is empty: nothing to check (on the Pi, 'vcgencmd bootloader_config' prints the config; is vcgencmd "
                "installed and is this a Pi?)");
  write_file(d.path / "nul.txt", std::string("BOOT_UART=0\n\0x", 14));
  EXPECT_EQ(load_error(file_source(d.path / "nul.txt")),
            (d.path / "nul.txt").string() +
                " holds binary data (a NUL byte at offset 12), not a bootloader config: give the output of 'vcgencmd "
                "bootloader_config', a bootconf.txt, or --image pieeprom.bin");
  write_file(d.path / "p.bin", make_image(524288, {{"bootconf.txt", "[all]\n"}}));
  EXPECT_EQ(load_error(file_source(d.path / "p.bin")),
            (d.path / "p.bin").string() + " looks like an EEPROM image (pieeprom.bin), not config text: use piprov " +
                "eeprom check --image " + (d.path / "p.bin").string());
  EXPECT_EQ(load_error(file_source(d.path)),
            d.path.string() + " is a directory; give the config file (e.g. bootconf.txt)");
  write_file(d.path / "big.txt", std::string((1 << 20) + 1, '#'));
  EXPECT_EQ(load_error(file_source(d.path / "big.txt")),
            (d.path / "big.txt").string() +
                " is over 1 MiB: not a bootloader config (bootconf.txt holds at most 4076 bytes); give the output of "
                "'vcgencmd bootloader_config'");
  EXPECT_EQ(load_error(file_source(d.path / "missing.txt"), ErrorKind::Usage),
            (d.path / "missing.txt").string() + " does not exist: give the path of the config file");
}

TEST(EepromInput, ExactlyOneSource) {
  const std::string want =
      "eeprom check: give exactly one of a config FILE (- for stdin), --image pieeprom.bin or --live";
  EXPECT_EQ(load_error({}), want);
  InputSource two;
  two.file = "-";
  two.live = true;
  EXPECT_EQ(load_error(two), want);
}

TEST(EepromInput, ImageGivesBoardBootloaderAndOffset) {
  TempDir d("piprov-eeprom-input");
  write_file(d.path / "p5.bin", make_image(2097152, {{"bootconf.txt", "[all]\nBOOT_ORDER=0xf461\n"}},
                                           "BUILD_TIMESTAMP=1779807685 VERSION:086b83e3"));
  InputSource src;
  src.image = (d.path / "p5.bin").string();
  auto in = load_input(src);
  EXPECT_EQ(in.board, Board::Pi5);
  EXPECT_EQ(in.context.board_from, "image (BCM2712)");
  EXPECT_EQ(in.input.config_text, "[all]\nBOOT_ORDER=0xf461\n");
  ASSERT_TRUE(in.input.bootloader);
  EXPECT_EQ(in.input.bootloader->build_timestamp, 1779807685);
  EXPECT_EQ(in.input.bootloader->version, "086b83e3");
  EXPECT_EQ(in.context.source_kind, SourceKind::Image);
  EXPECT_EQ(in.context.image_size, 2097152u);
  EXPECT_EQ(in.context.image_chip, 2712);
  EXPECT_EQ(in.context.bootconf_offset, 4096u);
  src.board = Board::Pi4;
  EXPECT_EQ(load_error(src), "--board pi4 does not match " + src.image + ": it is a BCM2712 image (2097152 bytes)");
}

TEST(EepromInput, LiveReadsTheFakePi) {
  TempDir d("piprov-eeprom-input");
  using namespace std::string_literals;
  write_file(d.path / "proc/device-tree/compatible", "raspberrypi,400\0brcm,bcm2711\0"s);
  write_file(d.path / "etc/default/rpi-eeprom-update", "FIRMWARE_RELEASE_STATUS=\"stable\"\n");
  const auto vcgencmd = d.path / "bin/vcgencmd";
  write_file(vcgencmd,
             "#!/bin/sh\ncase \"$1\" in\nbootloader_config) printf '[all]\\nBOOT_ORDER=0xf41\\n' ;;\n"
             "bootloader_version) printf 'version abc\\ntimestamp 1599135103\\n' ;;\nesac\n");
  std::filesystem::permissions(vcgencmd, std::filesystem::perms::owner_all);
  InputSource src;
  src.live = true;
  src.live_options = {d.path, vcgencmd.string()};
  auto in = load_input(src);
  EXPECT_EQ(in.board, Board::Pi400);
  EXPECT_EQ(in.context.board_from, "device tree");
  EXPECT_EQ(in.context.source_kind, SourceKind::Live);
  EXPECT_EQ(in.input.config_text, "[all]\nBOOT_ORDER=0xf41\n");
  EXPECT_EQ(in.input.release_channel, "stable");
  EXPECT_EQ(in.context.release_channel, "stable");
  ASSERT_TRUE(in.input.bootloader);
  EXPECT_EQ(in.input.bootloader->build_timestamp, 1599135103);
}
