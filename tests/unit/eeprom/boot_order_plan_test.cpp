// eeprom/boot_order_plan: the new image for `eeprom set-boot-order` and its rules.
#include "eeprom/boot_order_plan.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "support/eeprom_fixture.hpp"
#include "support/testsupport.hpp"

using namespace piprov::eeprom;
using piprov::Error;
using piprov::ErrorKind;
using piprov::eeprom::test::ids;
using piprov::eeprom::test::make_image;
using piprov::test::read_file;
using piprov::test::TempDir;
using piprov::test::write_file;
using V = std::vector<std::string>;

namespace {
BootOrder order(const char* s) { return *parse_boot_order(s).order; }
const char* kNew = "BUILD_TIMESTAMP=1779807685 VERSION:086b83e3";
}  // namespace

TEST(BootOrderPlan, ReplacesTheOrderAndReadsBack) {
  auto img = EepromImage::parse(make_image(524288, {{"bootconf.txt", "[all]\nBOOT_UART=0\nBOOT_ORDER=0x1\n"}}, kNew),
                                "in.bin");
  auto p = plan_boot_order(img, order("0xf14"), std::nullopt);
  EXPECT_EQ(p.board, Board::Pi4);
  EXPECT_EQ(p.value, "0xf14");
  EXPECT_EQ(p.edit.old_value, "0x1");
  EXPECT_EQ(p.edit.line, 3);
  EXPECT_EQ(EepromImage::parse(p.new_image, "out.bin").bootconf(), "[all]\nBOOT_UART=0\nBOOT_ORDER=0xf14\n");
  EXPECT_TRUE(p.findings.empty()) << ids(p.findings).size();
  // The structure rules run on the new value, at its line.
  EXPECT_EQ(ids(plan_boot_order(img, order("0x461"), std::nullopt).findings),
            (V{"boot-order-mode-unsupported@3:warning", "boot-order-no-restart@3:warning"}));
}

TEST(BootOrderPlan, BootconfSigStaleWhenSignedBootAndASignature) {
  const std::string cfg = "[all]\nSIGNED_BOOT=1\nBOOT_ORDER=0x1\n";
  auto signed_img = EepromImage::parse(
      make_image(524288, {{"bootconf.txt", cfg}, {"bootconf.sig", std::string(32, 's')}}, kNew), "signed.bin");
  auto p = plan_boot_order(signed_img, order("0xf14"), std::nullopt);
  ASSERT_EQ(ids(p.findings), (V{"bootconf-sig-stale@2:warning"}));
  EXPECT_EQ(p.findings[0].key, "SIGNED_BOOT");
  EXPECT_EQ(p.findings[0].message, "SIGNED_BOOT=1: bootconf.sig in the image still signs the old config");
  // No signature in the image, or SIGNED_BOOT not 1: nothing is stale.
  auto unsigned_img = EepromImage::parse(make_image(524288, {{"bootconf.txt", cfg}}, kNew), "unsigned.bin");
  EXPECT_TRUE(plan_boot_order(unsigned_img, order("0xf14"), std::nullopt).findings.empty());
  auto off = EepromImage::parse(
      make_image(524288,
                 {{"bootconf.txt", "[all]\nSIGNED_BOOT=0\nBOOT_ORDER=0x1\n"}, {"bootconf.sig", std::string(32, 's')}},
                 kNew),
      "off.bin");
  EXPECT_TRUE(plan_boot_order(off, order("0xf14"), std::nullopt).findings.empty());
}

TEST(BootOrderPlan, UsbOnABootloaderOlderThanUsbBoot) {
  auto old = EepromImage::parse(
      make_image(524288, {{"bootconf.txt", "[all]\nBOOT_ORDER=0x1\n"}}, "BUILD_TIMESTAMP=1587057086 VERSION:a5e1b95f"),
      "old.bin");
  EXPECT_EQ(ids(plan_boot_order(old, order("0xf14"), std::nullopt).findings),
            (V{"bootloader-too-old-for-usb@-:error"}));
  // No USB mode: the bootloader's age does not matter, but `eeprom check` of the
  // result says a Pi 4B never tries USB, and so does the plan.
  auto net = plan_boot_order(old, order("0xf21"), std::nullopt);
  ASSERT_EQ(net.config_errors.size(), 1u);
  EXPECT_EQ(ids(net.findings), (V{ids(net.config_errors).at(0)}));
  EXPECT_EQ(ids(net.config_errors).at(0).find("bootloader-too-old"), std::string::npos);
}

TEST(BootOrderPlan, WriteNeverReplacesItsInput) {
  TempDir d("piprov-boot-order-plan");
  const std::string bytes = make_image(524288, {{"bootconf.txt", "[all]\nBOOT_ORDER=0x1\n"}}, kNew);
  write_file(d.path / "in.bin", bytes);
  try {
    write_boot_order(d.path / "in.bin", d.path / "." / "in.bin", order("0xf14"), std::nullopt);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Usage);
    EXPECT_NE(std::string(e.what()).find("is the input image"), std::string::npos) << e.what();
  }
  EXPECT_EQ(read_file(d.path / "in.bin"), bytes);
  auto p = write_boot_order(d.path / "in.bin", d.path / "out.bin", order("0xf14"), Board::Pi400);
  EXPECT_EQ(p.board, Board::Pi400);
  EXPECT_EQ(read_file(d.path / "out.bin"), p.new_image);
}
