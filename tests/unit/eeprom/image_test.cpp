#include <gtest/gtest.h>

#include <algorithm>

#include "core/error.hpp"
#include "eeprom/check.hpp"
#include "eeprom/edit.hpp"
#include "eeprom/image.hpp"
#include "eeprom/input.hpp"
#include "support/eeprom_fixture.hpp"
#include "support/testsupport.hpp"

using namespace piprov::eeprom;
using piprov::Error;
using piprov::ErrorKind;
using piprov::eeprom::test::ids;
using piprov::eeprom::test::make_image;

namespace {
std::string error_of(const std::string& bytes) {
  try {
    EepromImage::parse(bytes, "x.bin");
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Usage);
    return e.what();
  }
  return "";
}

void put_be32(std::string& b, std::size_t off, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) b[off + static_cast<std::size_t>(i)] = static_cast<char>((v >> (24 - 8 * i)) & 0xff);
}

// Non-padding sections other than `except`, with their bytes.
std::vector<std::string> kept_sections(const EepromImage& img, const std::string& except) {
  std::vector<std::string> out;
  for (const auto& s : img.sections())
    if (!s.is_pad() && s.filename != except)
      out.push_back(std::to_string(s.offset) + ":" + img.bytes().substr(s.offset, 8 + s.length));
  return out;
}

// Byte-identity outside [bootconf header + 4, next non-padding section or the scratch page).
void expect_rest_identical(const EepromImage& a, const EepromImage& b) {
  auto i = *a.find_file("bootconf.txt");
  std::size_t hdr = a.sections()[i].offset;
  std::size_t next = a.bytes().size() - kEraseAlign;
  for (std::size_t k = i + 1; k < a.sections().size(); ++k)
    if (!a.sections()[k].is_pad()) {
      next = a.sections()[k].offset;
      break;
    }
  EXPECT_EQ(a.bytes().substr(0, hdr + 4), b.bytes().substr(0, hdr + 4));
  EXPECT_EQ(a.bytes().substr(next), b.bytes().substr(next));
  EXPECT_EQ(kept_sections(a, "bootconf.txt"), kept_sections(b, "bootconf.txt"));
}
}  // namespace

TEST(EepromImage, ReadsBootconfFromASyntheticImage) {
  const std::string cfg = "[all]\nBOOT_UART=0\nBOOT_ORDER=0xf41\n";
  auto img =
      EepromImage::parse(make_image(kPi4ImageSize, {{"pubkey.bin", std::string(264, 'k')}, {"bootconf.txt", cfg}},
                                    "BUILD_TIMESTAMP=1599135103\nVERSION:c305221a\n"),
                         "syn.bin");
  EXPECT_EQ(img.bootconf(), cfg);
  EXPECT_EQ(img.chip(), 2711);
  EXPECT_EQ(img.build_timestamp(), 1599135103);
  EXPECT_EQ(img.version(), "c305221a");
  EXPECT_EQ(img.file("pubkey.bin"), std::string(264, 'k'));
  EXPECT_EQ(EepromImage::parse(make_image(kPi5ImageSize, {{"bootconf.txt", cfg}}), "p5.bin").chip(), 2712);
}

TEST(EepromImage, TruncatedOrCorruptImagesGetOneClearError) {
  auto good = make_image(kPi4ImageSize, {{"bootconf.txt", "[all]\n"}});
  EXPECT_EQ(error_of(good.substr(0, 524287)),
            "x.bin: 524287 bytes, expected 524288 (Pi 4) or 2097152 (Pi 5): truncated or not a pieeprom.bin");
  EXPECT_EQ(error_of(""), "x.bin: 0 bytes, expected 524288 (Pi 4) or 2097152 (Pi 5): truncated or not a pieeprom.bin");
  auto bad_magic = good;
  put_be32(bad_magic, 4096, 0x12345678);
  EXPECT_EQ(error_of(bad_magic).substr(0, 74),
            "x.bin: EEPROM image is corrupt: bad section magic 0x12345678 at offset 409");
  auto too_long = good;
  put_be32(too_long, 4100, 0x7fffffff);
  EXPECT_EQ(error_of(too_long),
            "x.bin: EEPROM image is corrupt: section at offset 4096 (length 2147483647) runs past the end of the image "
            "(524288 bytes); use an image from rpi-eeprom (/lib/firmware/raspberrypi/bootloader*)");
  auto short_file = good;
  put_be32(short_file, 4100, 8);
  EXPECT_EQ(error_of(short_file),
            "x.bin: EEPROM image is corrupt: file section at offset 4096 has length 8 (< 16); use an image from "
            "rpi-eeprom (/lib/firmware/raspberrypi/bootloader*)");
  auto img = EepromImage::parse(make_image(kPi4ImageSize, {{"other.bin", "x"}}), "nobootconf.bin");
  try {
    img.bootconf();
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).substr(0, 52), "nobootconf.bin: no bootconf.txt section in this EEPR");
  }
}

TEST(EepromImage, RewriteRoundTripsAndKeepsOtherSections) {
  const auto src = EepromImage::parse(
      make_image(kPi4ImageSize, {{"bootconf.txt", "[all]\nBOOT_ORDER=0x1\n"}, {"pubkey.bin", std::string(264, 'k')}}),
      "syn.bin");
  for (const std::string& cfg : {std::string("[all]\nBOOT_ORDER=0xf14\n"), std::string(""), std::string(4072, '#'),
                                 std::string("[all]\nBOOT_UART=1\nBOOT_ORDER=0xf41\nDHCP_TIMEOUT=45000\n")}) {
    auto out = EepromImage::parse(src.with_file("bootconf.txt", cfg), "out.bin");
    EXPECT_EQ(out.bootconf(), cfg);
    expect_rest_identical(src, out);
    // A padding section now fills the gap up to pubkey.bin.
    auto i = *out.find_file("bootconf.txt");
    EXPECT_TRUE(out.sections()[i + 1].is_pad() || out.sections()[i + 1].filename == "pubkey.bin");
  }
  // 4073..4076 bytes pass rpi-eeprom-config's size check but, with pubkey.bin in
  // the next 4 KiB sector, would overwrite its magic: refused here.
  try {
    src.with_file("bootconf.txt", std::string(4073, '#'));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "syn.bin: bootconf.txt (4073 bytes) does not fit: 4072 bytes are free before the next section at offset "
              "8192");
  }
  try {
    src.with_file("bootconf.txt", std::string(4077, '#'));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "bootconf.txt would be 4077 bytes; the maximum is 4076 bytes (rpi-eeprom-config MAX_FILE_SIZE): shorten "
              "the config");
  }
}

TEST(EepromImage, RefusesWhenTheNextSectionIsTooClose) {
  // bootconf.txt followed by another file: the padding between them is free,
  // the next file is not.
  std::string bytes = make_image(kPi4ImageSize, {{"bootconf.txt", "[all]\n"}, {"x", "y"}});
  auto img = EepromImage::parse(bytes, "tight.bin");
  auto i = *img.find_file("bootconf.txt");
  ASSERT_TRUE(img.sections()[i + 1].is_pad());
  std::size_t next = img.sections()[i + 2].offset;
  EXPECT_EQ(next, 8192u);
  std::size_t room = next - img.sections()[i].offset - 4 - kFileHeaderLen;
  EXPECT_NO_THROW(img.with_file("bootconf.txt", std::string(room, 'a')));
  try {
    img.with_file("bootconf.txt", std::string(room + 1, 'a'));
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("does not fit"), std::string::npos) << e.what();
  }
}

struct RealImage {
  const char* file;
  const char* config;
  const char* boot_order;
  bool boot_order_set;
  std::int64_t build_timestamp;
  const char* version;
};

void PrintTo(const RealImage& r, std::ostream* os) { *os << r.file; }

class RealImages : public ::testing::TestWithParam<RealImage> {};

TEST_P(RealImages, ConfigAsRpiEepromConfigPrintsItAndEffectiveBootOrder) {
  const auto& p = GetParam();
  PIPROV_REQUIRE_SHARED(std::string("eeprom-images/") + p.file, path);
  auto img = EepromImage::load(path);
  EXPECT_EQ(img.bootconf(), p.config);
  EXPECT_EQ(img.build_timestamp(), p.build_timestamp);
  EXPECT_EQ(img.version(), p.version);
  CheckInput in;
  in.config_text = img.bootconf();
  CheckOptions opt;
  opt.board = img.chip() == 2712 ? Board::Pi5 : Board::Pi4;
  auto r = check_config(in, opt);
  ASSERT_TRUE(r.boot_order.order);
  EXPECT_EQ(format_boot_order(r.boot_order.order->value), p.boot_order);
  EXPECT_EQ(r.boot_order.is_default(), !p.boot_order_set);
}

TEST_P(RealImages, SetBootOrderRoundTrip) {
  const auto& p = GetParam();
  PIPROV_REQUIRE_SHARED(std::string("eeprom-images/") + p.file, path);
  auto img = EepromImage::load(path);
  auto edit = set_boot_order(img.bootconf(), "0xf14");
  auto out = EepromImage::parse(img.with_file("bootconf.txt", edit.text), "out.bin");
  EXPECT_EQ(out.bootconf(), edit.text);  // extract(set(image, cfg)) == cfg
  expect_rest_identical(img, out);
  EXPECT_EQ(out.build_timestamp(), p.build_timestamp);
  auto eff = effective_boot_order(parse_config(out.bootconf()), Board::Pi4);
  EXPECT_EQ(eff.text, "0xf14");
  // Writing the original config back gives the original bytes where
  // rpi-eeprom-config's layout is already in place (Pi 4 images).
  auto back = img.with_file("bootconf.txt", img.bootconf());
  EXPECT_EQ(EepromImage::parse(back, "back.bin").bootconf(), img.bootconf());
  if (img.chip() == 2711) {
    EXPECT_TRUE(back == img.bytes());
  }
}

INSTANTIATE_TEST_SUITE_P(
    SharedData, RealImages,
    ::testing::Values(
        RealImage{"2711-pieeprom-2020-04-16.bin",
                  "[all]\nBOOT_UART=0\nWAKE_ON_GPIO=1\nPOWER_OFF_ON_HALT=0\nDHCP_TIMEOUT=45000\nDHCP_REQ_TIMEOUT=4000\n"
                  "TFTP_FILE_TIMEOUT=30000\nTFTP_IP=\nTFTP_PREFIX=0\nBOOT_ORDER=0x1\nSD_BOOT_MAX_RETRIES=3\n"
                  "NET_BOOT_MAX_RETRIES=5\n[none]\nFREEZE_VERSION=0\n\n",
                  "0x1", true, 1587057086, "a5e1b95f320810c69441557c5f5f0a7f2460dfb8"},
        RealImage{"2711-pieeprom-2020-09-03.bin",
                  "[all]\nBOOT_UART=0\nWAKE_ON_GPIO=1\nPOWER_OFF_ON_HALT=0\nDHCP_TIMEOUT=45000\nDHCP_REQ_TIMEOUT=4000\n"
                  "TFTP_FILE_TIMEOUT=30000\nENABLE_SELF_UPDATE=1\nDISABLE_HDMI=0\nBOOT_ORDER=0xf41\n\n",
                  "0xf41", true, 1599135103, "c305221a6d7e532693cc7ff57fddfc8649def167"},
        RealImage{"2711-pieeprom-2026-05-17.bin",
                  "[all]\nBOOT_UART=0\nWAKE_ON_GPIO=1\nPOWER_OFF_ON_HALT=0\nNET_INSTALL_AT_POWER_ON=1\n", "0xf41",
                  false, 1779045198, "224877da90f82a72dbcc9db10bcf059259f54680"},
        RealImage{"2712-pieeprom-2026-05-26.bin", "[all]\nBOOT_UART=1\nBOOT_ORDER=0xf461\nNET_INSTALL_AT_POWER_ON=1\n",
                  "0xf461", true, 1779807685, "086b83e3332dfc8927c56762771d082f3077a1ae"}),
    [](const auto& info) {
      std::string n = info.param.file;
      return n.substr(0, 4) + "_" + n.substr(14, 10).replace(4, 1, "_").replace(7, 1, "_");
    });

// Trial 5 finding 11f: with --image, the set-boot-order fix names the image checked, not a generic
// pieeprom.bin. The 2020-09-03 release embeds BOOT_ORDER=0xf41: with --want network it is missing.
TEST(ImageCheck, SetBootOrderFixNamesTheCheckedImage) {
  PIPROV_REQUIRE_SHARED(std::string("eeprom-images/2711-pieeprom-2020-09-03.bin"), path);
  InputSource src;
  src.image = path.string();
  auto loaded = load_input(src);
  CheckOptions opt;
  opt.board = loaded.board;
  opt.want = Want::Network;
  opt.image = src.image;
  auto r = check_config(loaded.input, opt);
  auto it = std::find_if(r.findings.begin(), r.findings.end(),
                         [](const auto& f) { return f.rule == "boot-order-missing-mode"; });
  ASSERT_NE(it, r.findings.end()) << testing::PrintToString(ids(r.findings));
  EXPECT_NE(it->fix.find("piprov eeprom set-boot-order 0xf412 --image " + path.string() + " --out new.bin"),
            std::string::npos)
      << it->fix;
  EXPECT_EQ(it->fix.find("pieeprom.bin"), std::string::npos) << it->fix;
  // A name the shell would split is quoted; without an image the command says pieeprom.bin.
  EXPECT_EQ(set_boot_order_command("0xf14", "my images/p1.bin"),
            "piprov eeprom set-boot-order 0xf14 --image 'my images/p1.bin' --out new.bin");
  EXPECT_EQ(set_boot_order_command("0xf14", ""),
            "piprov eeprom set-boot-order 0xf14 --image pieeprom.bin --out new.bin");
}

// Trial 6 finding 11: the 2020-04-16 release (BOOT_ORDER=0x1) cannot boot from USB whatever
// BOOT_ORDER says, so boot-order-missing-mode's fix updates the bootloader first and sets BOOT_ORDER
// in a newer pieeprom.bin, never in the image checked (was set-boot-order on the old image).
TEST(ImageCheck, TooOldForUsbUpdatesBeforeSettingBootOrder) {
  PIPROV_REQUIRE_SHARED(std::string("eeprom-images/2711-pieeprom-2020-04-16.bin"), path);
  InputSource src;
  src.image = path.string();
  auto loaded = load_input(src);
  CheckOptions opt;
  opt.board = loaded.board;
  opt.image = src.image;
  auto r = check_config(loaded.input, opt);
  EXPECT_EQ(ids(r.findings),
            (std::vector<std::string>{"boot-order-no-restart@10:warning", "boot-order-missing-mode@10:error",
                                      "section-none-ignored@13:info", "bootloader-too-old-for-usb@-:error"}));
  auto it = std::find_if(r.findings.begin(), r.findings.end(),
                         [](const auto& f) { return f.rule == "boot-order-missing-mode"; });
  ASSERT_NE(it, r.findings.end());
  EXPECT_EQ(it->fix,
            "update the bootloader first: this 2020-04-16 one cannot boot from USB whatever BOOT_ORDER says (sudo "
            "rpi-eeprom-update -a, or flash a 2020-09-03 or later pieeprom.bin with rpi-eeprom-update -d -f); then set "
            "BOOT_ORDER=0xf14 (USB mass storage, then SD card, then restart from the top) under [all]: piprov eeprom "
            "set-boot-order 0xf14 --image pieeprom.bin --out new.bin, or sudo rpi-eeprom-config --edit");
  EXPECT_EQ(it->fix.find(path.string()), std::string::npos) << it->fix;
  // A stable-channel build of 2020-06-15 or later boots from USB: BOOT_ORDER alone is the fix.
  loaded.input.bootloader->build_timestamp = kUsbBootStable;
  r = check_config(loaded.input, opt);
  it = std::find_if(r.findings.begin(), r.findings.end(),
                    [](const auto& f) { return f.rule == "boot-order-missing-mode"; });
  ASSERT_NE(it, r.findings.end());
  EXPECT_EQ(it->fix.rfind("set BOOT_ORDER=0xf14", 0), 0u) << it->fix;
  EXPECT_NE(it->fix.find("--image " + path.string()), std::string::npos) << it->fix;
  // Without USB wanted the old bootloader is an info and the fix is BOOT_ORDER's own.
  loaded.input.bootloader->build_timestamp = kUsbBootStable - 1;
  opt.want = Want::Network;
  r = check_config(loaded.input, opt);
  it = std::find_if(r.findings.begin(), r.findings.end(),
                    [](const auto& f) { return f.rule == "boot-order-missing-mode"; });
  ASSERT_NE(it, r.findings.end());
  EXPECT_EQ(it->fix.rfind("set BOOT_ORDER=0xf12", 0), 0u) << it->fix;
}
