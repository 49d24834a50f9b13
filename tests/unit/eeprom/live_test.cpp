#include <gtest/gtest.h>

#include "core/error.hpp"
#include "eeprom/live.hpp"
#include "support/testsupport.hpp"

using namespace piprov::eeprom;
using piprov::test::TempDir;
using piprov::test::write_file;

namespace {
// A fake / with a device tree, /etc/default/rpi-eeprom-update and a vcgencmd script.
struct FakePi {
  TempDir dir{"piprov-live"};
  std::string vcgencmd;
  FakePi(const std::string& compatible, const std::string& version_out, int version_rc = 0) {
    write_file(dir.path / "proc/device-tree/compatible", compatible);
    vcgencmd = (dir.path / "bin/vcgencmd").string();
    write_file(vcgencmd,
               "#!/bin/sh\n"
               "case \"$1\" in\n"
               "bootloader_config) printf '[all]\\nBOOT_UART=0\\nBOOT_ORDER=0xf14\\n' ;;\n"
               "bootloader_version) printf '" +
                   version_out + "'; exit " + std::to_string(version_rc) +
                   " ;;\n"
                   "*) exit 2 ;;\n"
                   "esac\n");
    std::filesystem::permissions(vcgencmd, std::filesystem::perms::owner_all);
  }
  LiveOptions opt() const { return {dir.path, vcgencmd}; }
};
}  // namespace

TEST(Live, BoardFromDeviceTree) {
  using namespace std::string_literals;
  EXPECT_EQ(board_from_compatible("raspberrypi,4-model-b\0brcm,bcm2711\0"s), Board::Pi4);
  EXPECT_EQ(board_from_compatible("raspberrypi,400\0brcm,bcm2711\0"s), Board::Pi400);
  EXPECT_EQ(board_from_compatible("raspberrypi,4-compute-module\0brcm,bcm2711\0"s), Board::Cm4);
  EXPECT_EQ(board_from_compatible("raspberrypi,5-model-b\0brcm,bcm2712\0"s), Board::Pi5);
  // Pi 500 and CM5 (Linux arm/bcm/bcm2835.yaml compatibles), Pi 5 rules: BCM2712.
  EXPECT_EQ(board_from_compatible("raspberrypi,500\0brcm,bcm2712\0"s), Board::Pi500);
  EXPECT_EQ(board_from_compatible("raspberrypi,5-compute-module\0brcm,bcm2712\0"s), Board::Cm5);
  EXPECT_TRUE(is_bcm2712(Board::Pi500));
  EXPECT_TRUE(is_bcm2712(Board::Cm5));
  EXPECT_EQ(default_boot_order(Board::Cm5), 0xf461u);
  EXPECT_FALSE(board_has_mode(Board::Pi500, 5));
  EXPECT_TRUE(board_has_mode(Board::Cm5, 6));
  EXPECT_FALSE(board_from_compatible("raspberrypi,3-model-b\0brcm,bcm2837\0"s));
  EXPECT_FALSE(board_from_compatible("linux,dummy-virt"));
}

TEST(Live, ParsesVcgencmdBootloaderVersion) {
  auto b = parse_bootloader_version(
      "2020/09/03 12:11:43\nversion c305221a6d7e532693cc7ff57fddfc8649def167 (release)\ntimestamp 1599135103\n"
      "update-time 0\ncapabilities 0x0000007f\n");
  EXPECT_EQ(b.build_timestamp, 1599135103);
  EXPECT_EQ(b.version, "c305221a6d7e532693cc7ff57fddfc8649def167");
  // "timestamp 0" is an old bootloader on new firmware: unknown, not 1970.
  EXPECT_FALSE(parse_bootloader_version("Sep  3 2020 12:11:43\ntimestamp 0\n").build_timestamp);
}

TEST(Live, ParsesFirmwareReleaseStatus) {
  EXPECT_EQ(parse_release_status("# comment\nFIRMWARE_RELEASE_STATUS=\"critical\"\n"), "critical");
  EXPECT_EQ(parse_release_status("FIRMWARE_RELEASE_STATUS='beta'\n"), "beta");
  EXPECT_EQ(parse_release_status("FIRMWARE_RELEASE_STATUS=latest # newest\nBOOTFS=/boot/firmware\n"), "latest");
  EXPECT_EQ(parse_release_status("FIRMWARE_RELEASE_STATUS=\"stable\"\nFIRMWARE_RELEASE_STATUS=\"default\"\n"),
            "default");
  EXPECT_FALSE(parse_release_status("#FIRMWARE_RELEASE_STATUS=\"beta\"\n"));
}

TEST(Live, ReadsEverythingOnAPi) {
  using namespace std::string_literals;
  FakePi pi(
      "raspberrypi,4-model-b\0brcm,bcm2711\0"s,
      "2020/04/16 17:11:26\\nversion a5e1b95f320810c69441557c5f5f0a7f2460dfb8 (release)\\ntimestamp 1587057086\\n");
  write_file(pi.dir.path / "etc/default/rpi-eeprom-update", "FIRMWARE_RELEASE_STATUS=\"critical\"\n");
  auto d = read_live(pi.opt());
  EXPECT_EQ(d.board, Board::Pi4);
  EXPECT_EQ(d.compatible, "raspberrypi,4-model-b,brcm,bcm2711");
  EXPECT_EQ(d.config_text, "[all]\nBOOT_UART=0\nBOOT_ORDER=0xf14\n");
  EXPECT_EQ(d.bootloader.build_timestamp, 1587057086);
  EXPECT_EQ(d.bootloader.version, "a5e1b95f320810c69441557c5f5f0a7f2460dfb8");
  EXPECT_EQ(d.bootloader.source, "vcgencmd bootloader_version");
  EXPECT_EQ(d.release_channel, "critical");
}

TEST(Live, FallsBackToTheDeviceTreeForTheVersion) {
  using namespace std::string_literals;
  FakePi pi("raspberrypi,5-model-b\0brcm,bcm2712\0"s, "", 1);
  // 1779807685 = 0x6a15b5c5, big-endian as the firmware writes it.
  write_file(pi.dir.path / "proc/device-tree/chosen/bootloader/build-timestamp", "\x6a\x15\xb5\xc5"s);
  write_file(pi.dir.path / "proc/device-tree/chosen/bootloader/version", "086b83e3332dfc8927c56762771d082f3077a1ae\0"s);
  auto d = read_live(pi.opt());
  EXPECT_EQ(d.board, Board::Pi5);
  EXPECT_EQ(d.bootloader.build_timestamp, 1779807685);
  EXPECT_EQ(d.bootloader.version, "086b83e3332dfc8927c56762771d082f3077a1ae");
  EXPECT_EQ(d.bootloader.source, "device tree");
  EXPECT_FALSE(d.release_channel);
}

TEST(Live, SaysClearlyWhenThisIsNotAPi) {
  TempDir empty("piprov-live");
  try {
    read_live({empty.path, "vcgencmd"});
    FAIL();
  } catch (const piprov::Error& e) {
    EXPECT_EQ(e.kind(), piprov::ErrorKind::Usage);
    EXPECT_EQ(std::string(e.what()),
              "--live: this is not a Raspberry Pi 4 or 5 (no /proc/device-tree/compatible); check a saved config "
              "instead: piprov eeprom check FILE, or --image pieeprom.bin");
  }
}

TEST(Live, VcgencmdFailureIsAnIoError) {
  using namespace std::string_literals;
  FakePi pi("raspberrypi,4-model-b\0brcm,bcm2711\0"s, "");
  piprov::test::expect_error(piprov::ErrorKind::Io, "bootloader_config` failed (exit 127)", [&] {
    read_live({pi.dir.path, (pi.dir.path / "bin/missing").string()});
  });
}
