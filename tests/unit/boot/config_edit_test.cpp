// config.txt edits: only the intended lines change (asserted on exact output).
#include <gtest/gtest.h>

#include "boot/config_txt.hpp"
#include "support/testsupport.hpp"

using namespace piprov::boot;

namespace {
const char* kShortGa =
    "# header\n\n[pi4]\nkernel=uboot_rpi_4.bin\nmax_framebuffers=2\n\n[pi2]\nkernel=uboot_rpi_2.bin\n\n[all]\n"
    "arm_64bit=1\n\ninclude syscfg.txt\n";
}

TEST(ConfigTxtEdit, SetEditsInPlaceAndAddsAtSectionEnd) {
  auto c = ConfigTxt::parse(kShortGa);
  EXPECT_TRUE(c.set("pi4", "kernel", "vmlinux"));
  EXPECT_TRUE(c.set_directive("pi4", "initramfs", "initrd.img followkernel"));
  EXPECT_EQ(c.to_string(),
            "# header\n\n[pi4]\nkernel=vmlinux\nmax_framebuffers=2\ninitramfs initrd.img followkernel\n\n[pi2]\n"
            "kernel=uboot_rpi_2.bin\n\n[all]\narm_64bit=1\n\ninclude syscfg.txt\n");
  // Idempotent.
  EXPECT_FALSE(c.set("pi4", "kernel", "vmlinux"));
  EXPECT_FALSE(c.set_directive("pi4", "initramfs", "initrd.img followkernel"));
}

TEST(ConfigTxtEdit, KeepsCrlfAndMissingFinalNewline) {
  auto c = ConfigTxt::parse("[pi4]\r\nkernel=uboot_rpi_4.bin\r\n[all]\r\narm_64bit=1");
  c.set("pi4", "kernel", "vmlinux");
  c.set("pi4", "gpu_mem", "16");
  c.set("all", "enable_uart", "1");
  EXPECT_EQ(c.to_string(), "[pi4]\r\nkernel=vmlinux\r\ngpu_mem=16\r\n[all]\r\narm_64bit=1\r\nenable_uart=1");
}

TEST(ConfigTxtEdit, FixesBareAndSpacedKeysInPlace) {
  auto c = ConfigTxt::parse("[pi4]\nboot_delay\ngpu_mem = 64 \n\tother=1\n");
  c.set("pi4", "boot_delay", "1");
  c.set("pi4", "gpu_mem", "16");
  EXPECT_EQ(c.to_string(), "[pi4]\nboot_delay=1\ngpu_mem=16\n\tother=1\n");
}

TEST(ConfigTxtEdit, EditsTheLastMatchingSectionAndCreatesMissingOnes) {
  auto c = ConfigTxt::parse("[pi4]\nmax_framebuffers=2\n\n[all]\nx=1\n\n[pi4]\narm_boost=1\n\n# trailing comment\n");
  c.set("pi4", "kernel", "vmlinux");
  c.set("cm4", "otg_mode", "1");
  EXPECT_EQ(c.to_string(),
            "[pi4]\nmax_framebuffers=2\n\n[all]\nx=1\n\n[pi4]\narm_boost=1\nkernel=vmlinux\n\n# trailing comment\n"
            "\n[cm4]\notg_mode=1\n");
}

TEST(ConfigTxtEdit, PreambleSectionAndEmptyFile) {
  auto c = ConfigTxt::parse("a=1\n[pi4]\nb=2\n");
  c.set("", "a", "3");
  c.set("", "c", "4");
  EXPECT_EQ(c.to_string(), "a=3\nc=4\n[pi4]\nb=2\n");
  auto e = ConfigTxt::parse("");
  e.set("pi4", "kernel", "vmlinux");
  EXPECT_EQ(e.to_string(), "[pi4]\nkernel=vmlinux\n");
}

TEST(ConfigTxtEdit, DirectiveReplacesWrongEqualsForm) {
  auto c = ConfigTxt::parse("[pi4]\ninitramfs=initrd.img\nkernel=vmlinux\n");
  c.set_directive("pi4", "initramfs", "initrd.img followkernel");
  EXPECT_EQ(c.to_string(), "[pi4]\ninitramfs initrd.img followkernel\nkernel=vmlinux\n");
}

TEST(ConfigTxtEdit, EnsureLineAndRemove) {
  auto c = ConfigTxt::parse("[pi4]\ndtoverlay=dwc2\nkernel=a\n[pi3]\nkernel=b\n[pi4]\nkernel=c");
  EXPECT_TRUE(c.ensure_line("pi4", "dtoverlay", "vc4-fkms-v3d"));
  EXPECT_FALSE(c.ensure_line("pi4", "dtoverlay", "vc4-fkms-v3d"));
  EXPECT_EQ(c.to_string(), "[pi4]\ndtoverlay=dwc2\nkernel=a\n[pi3]\nkernel=b\n[pi4]\nkernel=c\ndtoverlay=vc4-fkms-v3d");
  EXPECT_EQ(c.remove("pi4", "kernel"), 2u);
  EXPECT_EQ(c.to_string(), "[pi4]\ndtoverlay=dwc2\n[pi3]\nkernel=b\n[pi4]\ndtoverlay=vc4-fkms-v3d");
}

TEST(ConfigTxtEdit, AppendSectionWins) {
  auto c = ConfigTxt::parse("[pi4]\nmax_framebuffers=2\n\n[all]\nkernel=vmlinuz\n");
  c.set("pi4", "kernel", "vmlinux");  // lands in [pi4], but [all] below overrides it
  EXPECT_EQ(c.effective("kernel")->value, "vmlinuz");
  c.append_section_with("pi4", "kernel=vmlinux");
  EXPECT_EQ(c.effective("kernel")->value, "vmlinux");
  EXPECT_EQ(c.to_string(),
            "[pi4]\nmax_framebuffers=2\nkernel=vmlinux\n\n[all]\nkernel=vmlinuz\n\n[pi4]\nkernel=vmlinux\n");
}

TEST(ConfigTxtEdit, SharedUbuntuFilesChangeOnlyIntendedLines) {
  PIPROV_REQUIRE_SHARED("config-txt/01-ubuntu2004-ga-config.txt", ga);
  std::string before = piprov::test::read_file(ga);
  auto c = ConfigTxt::parse(before);
  c.set("pi4", "kernel", "vmlinux");
  c.set_directive("pi4", "initramfs", "initrd.img followkernel");
  std::string want = before;
  const std::string old_block = "kernel=uboot_rpi_4.bin\nmax_framebuffers=2\n";
  want.replace(want.find(old_block), old_block.size(),
               "kernel=vmlinux\nmax_framebuffers=2\ninitramfs initrd.img followkernel\n");
  EXPECT_EQ(c.to_string(), want);
}
