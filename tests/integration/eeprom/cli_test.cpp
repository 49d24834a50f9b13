// Runs the piprov binary: exit codes, text and the documented --json schema
// (docs/eeprom.md). Inputs are written here, or read from ../shared/data.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

#include "eeprom/image.hpp"
#include "support/eeprom_fixture.hpp"
#include "support/testsupport.hpp"

using namespace piprov::test;
using nlohmann::json;
using piprov::eeprom::EepromImage;
using piprov::eeprom::test::make_image;

namespace {
std::string bin() { return "'" + piprov_bin() + "'"; }

std::set<std::string> keys(const json& j) {
  std::set<std::string> k;
  for (auto it = j.begin(); it != j.end(); ++it) k.insert(it.key());
  return k;
}
}  // namespace

TEST(EepromCli, ExplainSaysTheOrderInWords) {
  auto r = run(bin() + " eeprom explain 0xf41");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "0xf41: SD card, then USB mass storage, then restart from the top\n"
            "  1. 1  SD card\n  2. 4  USB mass storage\n  3. f  restart from the top\n");
  auto j = json::parse(run(bin() + " eeprom explain 0xf461 --board pi4 --json").out);
  EXPECT_EQ(j["schema"], "piprov.eeprom.explain/1");
  EXPECT_EQ(j["boot_order"], "0xf461");
  EXPECT_EQ(j["value"], 0xf461);
  EXPECT_EQ(j["board"], "pi4");
  EXPECT_EQ(j["modes"][1]["nibble"], "6");
  EXPECT_EQ(j["modes"][1]["on_board"], false);
  EXPECT_EQ(j["words"],
            "SD card, then NVMe (not on a Raspberry Pi 4B: skipped), then USB mass storage, then restart from the top");
  auto bad = run(bin() + " eeprom explain f41");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err, "piprov: error: BOOT_ORDER \"f41\" is not hex with a 0x prefix (e.g. 0xf41)\n");
}

TEST(EepromCli, CheckExitCodes) {
  TempDir d("piprov-eeprom-cli");
  write_file(d.path / "sd-only.txt", "[all]\nBOOT_UART=0\nBOOT_ORDER=0x1\n");
  write_file(d.path / "usb.txt", "[all]\nBOOT_UART=0\nBOOT_ORDER=0xf14\n");
  write_file(d.path / "warn.txt", "[all]\nBOOT_UART=0\nBOOT_ODER=0xf14\nBOOT_ORDER=0xf14\n");
  EXPECT_EQ(run(bin() + " eeprom check " + (d.path / "sd-only.txt").string()).exit_code, 1);
  EXPECT_EQ(run(bin() + " eeprom check --want sd " + (d.path / "sd-only.txt").string()).exit_code, 0);
  EXPECT_EQ(run(bin() + " eeprom check --want sd --strict " + (d.path / "sd-only.txt").string()).exit_code, 1);
  EXPECT_EQ(run(bin() + " eeprom check " + (d.path / "usb.txt").string()).exit_code, 0);
  EXPECT_EQ(run(bin() + " eeprom check " + (d.path / "warn.txt").string()).exit_code, 0);
  EXPECT_EQ(run(bin() + " eeprom check --strict " + (d.path / "warn.txt").string()).exit_code, 1);
  auto stdin_run = run("printf '[all]\\nBOOT_UART=0\\nBOOT_ORDER=0x1\\n' | " + bin() + " eeprom check -");
  EXPECT_EQ(stdin_run.exit_code, 1);
  EXPECT_NE(stdin_run.out.find("line 3   error    boot-order-missing-mode: BOOT_ORDER=0x1 never tries USB mass "
                               "storage (4)"),
            std::string::npos)
      << stdin_run.out;
  EXPECT_NE(stdin_run.out.find("1 error(s), 1 warning(s), 0 info\n"), std::string::npos) << stdin_run.out;
}

TEST(EepromCli, UsageAndIoErrors) {
  auto none = run(bin() + " eeprom check");
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_EQ(none.err,
            "piprov: error: eeprom check: give exactly one of a config FILE (- for stdin), --image "
            "pieeprom.bin or --live\n");
  auto missing = run(bin() + " eeprom check /nonexistent/bootconf.txt");
  EXPECT_EQ(missing.exit_code, 2);  // a path the user typed, like every command's input
  EXPECT_EQ(missing.err, "piprov: error: /nonexistent/bootconf.txt does not exist: give the path of the config file\n");
  EXPECT_EQ(run(bin() + " eeprom check /tmp").err,
            "piprov: error: /tmp is a directory; give the config file (e.g. "
            "bootconf.txt)\n");
  EXPECT_EQ(run(bin() + " eeprom check --want usb-c -").exit_code, 2);
  EXPECT_EQ(run(bin() + " eeprom check --board pi3 -").exit_code, 2);
  TempDir d("piprov-eeprom-cli");
  write_file(d.path / "short.bin", std::string(1000, '\xff'));
  auto trunc = run(bin() + " eeprom check --image " + (d.path / "short.bin").string());
  EXPECT_EQ(trunc.exit_code, 2);
  EXPECT_EQ(trunc.err, "piprov: error: " + (d.path / "short.bin").string() +
                           ": 1000 bytes, expected 524288 (Pi 4) or 2097152 (Pi 5): truncated or not a pieeprom.bin\n");
  write_file(d.path / "pi4.bin", make_image(524288, {{"bootconf.txt", "[all]\n"}}));
  auto as_text = run(bin() + " eeprom check " + (d.path / "pi4.bin").string());
  EXPECT_EQ(as_text.exit_code, 2);
  EXPECT_EQ(as_text.err, "piprov: error: " + (d.path / "pi4.bin").string() +
                             " looks like an EEPROM image (pieeprom.bin), not config text: use piprov eeprom check "
                             "--image " +
                             (d.path / "pi4.bin").string() + "\n");
  // `vcgencmd bootloader_config | piprov eeprom check -` off a Pi pipes nothing in: not "OK".
  auto empty = run("printf '\\n' | " + bin() + " eeprom check -");
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_EQ(empty.err,
            "piprov: error: standard input is empty: nothing to check (on the Pi, 'vcgencmd bootloader_config' "
            "prints the config; is vcgencmd installed and is this a Pi?)\n");
  // A binary file (an ELF, a disk image) is one error line, not a report of garbage keys.
  write_file(d.path / "elf", std::string("\x7f"
                                         "ELF\x02\x01\x01\0\0\0BOOT_ORDER=0xf41\n",
                                         27));
  auto binary = run(bin() + " eeprom check " + (d.path / "elf").string());
  EXPECT_EQ(binary.exit_code, 2);
  EXPECT_EQ(binary.out, "");
  EXPECT_EQ(binary.err, "piprov: error: " + (d.path / "elf").string() +
                            " holds binary data (a NUL byte at offset 7), not a bootloader config: give the output "
                            "of 'vcgencmd bootloader_config', a bootconf.txt, or --image pieeprom.bin\n");
  auto mismatch = run(bin() + " eeprom check --board pi5 --image " + (d.path / "pi4.bin").string());
  EXPECT_EQ(mismatch.exit_code, 2);
  EXPECT_NE(mismatch.err.find("--board pi5 does not match"), std::string::npos) << mismatch.err;
}

TEST(EepromCli, LiveOffAPiSaysSo) {
  std::ifstream c("/proc/device-tree/compatible");
  std::string compat((std::istreambuf_iterator<char>(c)), std::istreambuf_iterator<char>());
  if (compat.find("bcm2711") != std::string::npos || compat.find("bcm2712") != std::string::npos)
    PIPROV_SKIP("this machine is a Pi 4/5");
  auto r = run(bin() + " eeprom check --live");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("piprov: error: --live: this is not a Raspberry Pi 4 or 5"), std::string::npos) << r.err;
}

TEST(EepromCli, JsonSchema) {
  TempDir d("piprov-eeprom-cli");
  write_file(d.path / "c.txt", "[all]\nBOOT_UART=0\nBOOT_ORDER=0x1\n[gpio3=1]\nBOOT_ORDER=0xf14\n");
  auto r = run(bin() + " eeprom check --json " + (d.path / "c.txt").string());
  EXPECT_EQ(r.exit_code, 1);
  auto j = json::parse(r.out);
  EXPECT_EQ(keys(j),
            (std::set<std::string>{"schema", "source", "board", "board_from", "want", "want_from", "image",
                                   "bootloader", "release_channel", "config", "boot_order", "findings", "summary"}));
  EXPECT_EQ(j["schema"], "piprov.eeprom.check/1");
  EXPECT_EQ(j["source"], json({{"kind", "file"}, {"path", (d.path / "c.txt").string()}}));
  EXPECT_EQ(j["board"], "pi4");
  EXPECT_EQ(j["board_from"], "default");
  EXPECT_EQ(j["want"], "usb");
  EXPECT_EQ(j["want_from"], "board");
  EXPECT_TRUE(j["image"].is_null());
  EXPECT_TRUE(j["bootloader"].is_null());
  EXPECT_TRUE(j["release_channel"].is_null());
  EXPECT_EQ(j["config"]["bytes"], 60);
  EXPECT_EQ(j["config"]["lines"], 5);
  EXPECT_EQ(keys(j["boot_order"]),
            (std::set<std::string>{"value", "valid", "line", "is_default", "applies", "always_gpio", "modes", "words",
                                   "conditional", "overridden"}));
  EXPECT_EQ(j["boot_order"]["applies"], true);
  EXPECT_TRUE(j["boot_order"]["always_gpio"].is_null());
  EXPECT_EQ(j["boot_order"]["value"], "0x1");
  EXPECT_EQ(j["boot_order"]["line"], 3);
  EXPECT_EQ(j["boot_order"]["is_default"], false);
  EXPECT_EQ(j["boot_order"]["modes"],
            json::parse(R"([{"nibble":"1","name":"SD card","known":true,"reachable":true,"on_board":true}])"));
  EXPECT_EQ(j["boot_order"]["conditional"], json::parse(R"([{"section":"[gpio3=1]","line":5,"value":"0xf14",
                             "words":"USB mass storage, then SD card, then restart from the top"}])"));
  EXPECT_EQ(j["boot_order"]["overridden"], json::array());
  ASSERT_TRUE(j["findings"].is_array());
  ASSERT_EQ(j["findings"].size(), 3u);
  for (const auto& f : j["findings"]) {
    EXPECT_EQ(keys(f), (std::set<std::string>{"rule", "severity", "line", "key", "message", "fix", "source"}));
    EXPECT_TRUE(f["severity"] == "error" || f["severity"] == "warning" || f["severity"] == "info");
  }
  EXPECT_EQ(j["findings"][1]["rule"], "boot-order-missing-mode");
  EXPECT_EQ(j["findings"][1]["severity"], "error");
  EXPECT_EQ(j["findings"][1]["line"], 3);
  EXPECT_EQ(j["findings"][1]["key"], "BOOT_ORDER");
  EXPECT_EQ(j["findings"][2]["rule"], "boot-order-conditional");
  EXPECT_EQ(j["summary"], json({{"errors", 1}, {"warnings", 1}, {"infos", 1}, {"strict", false}, {"exit_code", 1}}));
}

TEST(EepromCli, JsonForAnImage) {
  TempDir d("piprov-eeprom-cli");
  write_file(d.path / "p.bin", make_image(2097152, {{"bootconf.txt", "[all]\nBOOT_UART=1\nBOOT_ORDER=0xf461\n"}},
                                          "BUILD_TIMESTAMP=1779807685 VERSION:086b83e3"));
  auto r = run(bin() + " eeprom check --json --image " + (d.path / "p.bin").string());
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  auto j = json::parse(r.out);
  EXPECT_EQ(j["source"]["kind"], "image");
  EXPECT_EQ(j["board"], "pi5");
  EXPECT_EQ(j["board_from"], "image (BCM2712)");
  EXPECT_EQ(j["image"], json({{"size_bytes", 2097152}, {"chip", "BCM2712"}, {"bootconf_offset", 4096}}));
  EXPECT_EQ(j["bootloader"], json({{"source", "image"},
                                   {"version", "086b83e3"},
                                   {"build_timestamp", 1779807685},
                                   {"build_date", "2026-05-26"}}));
  EXPECT_EQ(j["boot_order"]["value"], "0xf461");
}

TEST(EepromCli, SetBootOrderWritesAFlashableImage) {
  TempDir d("piprov-eeprom-cli");
  const std::string cfg = "[all]\nBOOT_UART=0\nBOOT_ORDER=0x1\nSD_BOOT_MAX_RETRIES=3\n[none]\nFREEZE_VERSION=0\n";
  write_file(d.path / "in.bin", make_image(524288, {{"bootconf.txt", cfg}}));
  auto r = run(bin() + " eeprom set-boot-order 0xF14 --image " + (d.path / "in.bin").string() + " --out " +
               (d.path / "out.bin").string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')),
            "BOOT_ORDER 0x1 -> 0xf14 (line 3): USB mass storage, then SD card, then restart from the top");
  auto out = EepromImage::load(d.path / "out.bin");
  EXPECT_EQ(out.bootconf(), "[all]\nBOOT_UART=0\nBOOT_ORDER=0xf14\nSD_BOOT_MAX_RETRIES=3\n[none]\nFREEZE_VERSION=0\n");
  EXPECT_EQ(run(bin() + " eeprom check --image " + (d.path / "out.bin").string()).exit_code, 0);
  // JSON, and a BOOT_ORDER that is not set yet: appended under [all].
  write_file(d.path / "in2.bin", make_image(524288, {{"bootconf.txt", "[all]\nBOOT_UART=0\n[none]\nX=1\n"}}));
  auto j = json::parse(run(bin() + " eeprom set-boot-order 0xf461 --json --image " + (d.path / "in2.bin").string() +
                           " --out " + (d.path / "out2.bin").string())
                           .out);
  EXPECT_TRUE(j["old_boot_order"].is_null());
  EXPECT_EQ(j["boot_order"], "0xf461");
  EXPECT_EQ(j["line"], 6);
  EXPECT_EQ(j["config"], "[all]\nBOOT_UART=0\n[none]\nX=1\n[all]\nBOOT_ORDER=0xf461\n");
  EXPECT_EQ(j["findings"][0]["rule"], "boot-order-mode-unsupported");  // NVMe on a Pi 4 image
  EXPECT_EQ(EepromImage::load(d.path / "out2.bin").bootconf(), j["config"].get<std::string>());
  // Refused: invalid order, or a result that would not fit.
  EXPECT_EQ(run(bin() + " eeprom set-boot-order 0x0 --image " + (d.path / "in.bin").string() + " --out " +
                (d.path / "x.bin").string())
                .exit_code,
            2);
  write_file(d.path / "big.bin", make_image(524288, {{"bootconf.txt", std::string(4070, '#') + "\n"}}));
  auto big = run(bin() + " eeprom set-boot-order 0xf14 --image " + (d.path / "big.bin").string() + " --out " +
                 (d.path / "x.bin").string());
  EXPECT_EQ(big.exit_code, 2);
  EXPECT_EQ(big.err,
            "piprov: error: bootconf.txt would be 4088 bytes; the maximum is 4076 bytes (rpi-eeprom-config "
            "MAX_FILE_SIZE): shorten the config\n");
  EXPECT_FALSE(std::filesystem::exists(d.path / "x.bin"));
}

TEST(EepromCli, SetBootOrderNeverReplacesItsInput) {
  TempDir d("piprov-eeprom-cli");
  const std::string image = make_image(524288, {{"bootconf.txt", "[all]\nBOOT_ORDER=0x1\n"}});
  write_file(d.path / "in.bin", image);
  const std::string in = (d.path / "in.bin").string();
  auto r = run(bin() + " eeprom set-boot-order 0xf14 --image " + in + " --out " + d.path.string() + "/./in.bin");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "piprov: error: --out " + d.path.string() +
                       "/./in.bin is the input image: give a new file name (keep the original to roll back with "
                       "rpi-eeprom-update -d -f " +
                       in + ")\n");
  EXPECT_EQ(read_file(d.path / "in.bin"), image);
}

TEST(EepromCli, RealImageUsbNeverTriedThenFixed) {
  PIPROV_REQUIRE_SHARED("eeprom-images/2711-pieeprom-2020-04-16.bin", img);
  auto r = run(bin() + " eeprom check --image " + img.string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("bootloader: 2020-04-16 17:11:26 UTC (BUILD_TIMESTAMP=1587057086), version "
                       "a5e1b95f320810c69441557c5f5f0a7f2460dfb8\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("BOOT_ORDER: 0x1 (line 10): SD card, then stop (no RESTART)\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("-        error    bootloader-too-old-for-usb: bootloader 2020-04-16 (image)"),
            std::string::npos)
      << r.out;
  TempDir d("piprov-eeprom-cli");
  auto s =
      run(bin() + " eeprom set-boot-order 0xf14 --image " + img.string() + " --out " + (d.path / "o.bin").string());
  // The order is fixed; the 2020-04-16 bootloader itself is still too old for
  // USB boot: an error, so exit 1 as `eeprom check` of the new image gives.
  ASSERT_EQ(s.exit_code, 1) << s.out << s.err;
  EXPECT_NE(s.out.find("eeprom check of " + (d.path / "o.bin").string() +
                       " will report the error(s) above: fix them before flashing"),
            std::string::npos)
      << s.out;
  auto j = json::parse(run(bin() + " eeprom check --json --image " + (d.path / "o.bin").string()).out);
  EXPECT_EQ(j["boot_order"]["value"], "0xf14");
  ASSERT_EQ(j["findings"].size(), 2u);
  EXPECT_EQ(j["findings"][0]["rule"], "section-none-ignored");
  EXPECT_EQ(j["findings"][1]["rule"], "bootloader-too-old-for-usb");
}

TEST(EepromCli, JsonSurvivesBytesThatAreNotUtf8) {
  // Found by fuzz_eeprom_config: a 0xb8 byte in a value made the JSON dump throw.
  auto r = run("printf '[all]\\nDHCP_TIMEOUT=\\27045000\\nBOOT_ORDER=0xf14\\n' | " + bin() + " eeprom check --json -");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  auto j = json::parse(r.out);
  EXPECT_EQ(j["config"]["text"],
            "[all]\nDHCP_TIMEOUT=\xef\xbf\xbd"
            "45000\nBOOT_ORDER=0xf14\n");
  EXPECT_EQ(j["findings"][0]["rule"], "value-invalid");
  EXPECT_EQ(j["findings"][0]["message"], "DHCP_TIMEOUT=?45000 is not a decimal integer");
}

TEST(EepromCli, EndlessInputsAreRefusedNotSlurped) {
  auto img = run(bin() + " eeprom check --image /dev/zero");
  EXPECT_EQ(img.exit_code, 2);
  EXPECT_EQ(img.err,
            "piprov: error: /dev/zero is not a regular file: pass a file (or - for standard input where supported)\n");
  auto text_dev = run(bin() + " eeprom check /dev/zero");
  EXPECT_EQ(text_dev.exit_code, 2);
  EXPECT_EQ(text_dev.err,
            "piprov: error: /dev/zero is not a regular file: pass a file (or - for standard input where supported)\n");
  TempDir d("piprov-eeprom-cli");
  write_file(d.path / "big.bin", std::string(2097153, '\xff'));
  auto big = run(bin() + " eeprom check --image " + (d.path / "big.bin").string());
  EXPECT_EQ(big.exit_code, 2);
  EXPECT_EQ(big.err, "piprov: error: " + (d.path / "big.bin").string() +
                         " is larger than any bootloader EEPROM image (512 KiB Pi 4, 2 MiB Pi 5); give a "
                         "pieeprom.bin\n");
  auto text = run("head -c 1048577 /dev/zero | " + bin() + " eeprom check -");
  EXPECT_EQ(text.exit_code, 2);
  EXPECT_EQ(text.err,
            "piprov: error: standard input is over 1 MiB: not a bootloader config (bootconf.txt holds at most 4076 "
            "bytes); give the output of 'vcgencmd bootloader_config'\n");
}

// A FIFO (no writer) as the config or the image: refused at once with exit 2,
// never a hang (timeout(1) ends a blocked piprov with 124); - still reads stdin.
TEST(EepromCli, FifoIsRefusedNotWaitedFor) {
  TempDir d("piprov-eeprom-cli");
  const std::string fifo = (d.path / "bootconf.txt").string();
  ASSERT_EQ(run("mkfifo " + q(fifo)).exit_code, 0);
  const std::string line =
      "piprov: error: " + fifo + " is not a regular file: pass a file (or - for standard input where supported)\n";
  for (const std::string args : {q(fifo), "--image " + q(fifo)}) {
    auto r = run("timeout 20 " + bin() + " eeprom check " + args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.out << r.err;
    EXPECT_EQ(r.err, line) << args;
    EXPECT_EQ(r.out, "") << args;
  }
  auto piped = run("printf '[all]\\nBOOT_ORDER=0xf41\\n' | timeout 20 " + bin() + " eeprom check --board pi4 -");
  EXPECT_EQ(piped.exit_code, 0) << piped.out << piped.err;
  EXPECT_NE(piped.out.find("BOOT_ORDER"), std::string::npos) << piped.out;
}

// The Pi 5 family on the command line: --board cm5 / pi500, the wanted mode from the
// board (no --want), and the PCIE_PROBE warning of raspberrypi/linux issue 5836.
TEST(EepromCli, Cm5AndPi500WithTheWantFromTheBoard) {
  PIPROV_REQUIRE_SHARED("bootloader-configs/25-issue618-cm5-usb-before-nvme.txt", cm5);
  auto r = run(bin() + " eeprom check --board cm5 --json " + cm5.string());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto j = json::parse(r.out);
  EXPECT_EQ(j["board"], "cm5");
  EXPECT_EQ(j["want"], "usb");  // 0xf2641 tries USB before NVMe
  EXPECT_EQ(j["want_from"], "board");
  ASSERT_EQ(j["findings"].size(), 2u);
  EXPECT_EQ(j["findings"][0]["rule"], "pcie-probe-usb-before-nvme");
  EXPECT_EQ(j["findings"][0]["line"], 8);
  EXPECT_EQ(run(bin() + " eeprom check --board cm5 --strict " + cm5.string()).exit_code, 1);
  PIPROV_REQUIRE_SHARED("bootloader-configs/26-issue531-pi5-trailing-tab.txt", pi5);
  r = run(bin() + " eeprom check --board pi500 " + pi5.string());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("board:      pi500 (Raspberry Pi 500; from --board)   want: nvme (from the board)"),
            std::string::npos)
      << r.out;
  std::size_t usb = 0;  // USB only in the order's words: no finding about USB
  for (auto p = r.out.find("USB"); p != std::string::npos; p = r.out.find("USB", p + 1)) ++usb;
  EXPECT_EQ(usb, 1u) << r.out;
  EXPECT_EQ(run(bin() + " eeprom check --board pi500 --want usb --strict " + pi5.string()).exit_code, 0);
}

// set-boot-order gives the verdict eeprom check will give: an order with no boot
// mode is refused (exit 2, nothing written); one that never tries USB on a Pi 4B
// is written with that error and exit 1, and check of the result agrees.
TEST(EepromCli, SetBootOrderGivesEepromChecksVerdict) {
  PIPROV_REQUIRE_SHARED("eeprom-images/2711-pieeprom-2026-05-17.bin", img);
  TempDir d("piprov-eeprom-set");
  std::string out = (d.path / "new.bin").string();
  for (const char* none : {"0xf", "0x1e", "0xff"}) {
    auto r = run(bin() + " eeprom set-boot-order " + none + " --image " + img.string() + " --out " + out);
    EXPECT_EQ(r.exit_code, 2) << none << r.out << r.err;
    EXPECT_NE(r.err.find("no boot mode is ever tried"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(out)) << none;
    EXPECT_EQ(run(bin() + " eeprom explain " + none).exit_code, 2) << none;
  }
  auto r = run(bin() + " eeprom set-boot-order 0xf16 --image " + img.string() + " --out " + out);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("will report the error(s) above"), std::string::npos) << r.out;
  auto c = run(bin() + " eeprom check --image " + out);
  EXPECT_EQ(c.exit_code, 1) << c.out;
  r = run(bin() + " eeprom set-boot-order 0xf14 --image " + img.string() + " --out " + out);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(run(bin() + " eeprom check --image " + out).exit_code, 0);
}

// [gpio4=0] and [gpio4=1] both set BOOT_ORDER: one of them always applies, so the header leads with
// both conditional values and names the [all] one as never applying; --json says "applies": false
// (was "BOOT_ORDER: 0xf41 (line 2)" above a finding that 0xf41 never applies). The conditional
// info's example value passes the check under [all] (was set-boot-order 0xf1, then missing-mode).
TEST(EepromCli, GpioPairHeaderShowsWhatApplies) {
  TempDir d("piprov-eeprom-cli");
  write_file(d.path / "c.txt", "[all]\nBOOT_ORDER=0xf41\n[gpio4=0]\nBOOT_ORDER=0xf1\n[gpio4=1]\nBOOT_ORDER=0xf4\n");
  auto r = run(bin() + " eeprom check " + (d.path / "c.txt").string());
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("BOOT_ORDER: 0xf1 when [gpio4=0] (line 4): SD card, then restart from the top\n"
                       "            0xf4 when [gpio4=1] (line 6): USB mass storage, then restart from the top\n"
                       "            (0xf41 at line 2 never applies: [gpio4=0] and [gpio4=1] both set BOOT_ORDER)\n"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("BOOT_ORDER: 0xf41"), std::string::npos) << r.out;
  // The pair always overrides [all], which is all set-boot-order changes: the fix edits line 4
  // (trial 6 finding 5).
  EXPECT_NE(r.out.find("fix: set BOOT_ORDER=0xf14 (0xf1 lacks USB mass storage) at line 4, under [gpio4=0]: sudo "
                       "rpi-eeprom-config --edit (piprov eeprom set-boot-order changes only the [all] value, which "
                       "[gpio4=0] and [gpio4=1] always override); or remove the BOOT_ORDER lines under [gpio4=0] and "
                       "[gpio4=1] to let the [all] value apply"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("set-boot-order 0x"), std::string::npos) << r.out;
  r = run(bin() + " eeprom check --json " + (d.path / "c.txt").string());
  auto j = json::parse(r.out);
  EXPECT_EQ(j["boot_order"]["value"], "0xf41");
  EXPECT_EQ(j["boot_order"]["applies"], false);
  EXPECT_EQ(j["boot_order"]["always_gpio"], "4");
  ASSERT_EQ(j["boot_order"]["conditional"].size(), 2u);
  EXPECT_EQ(j["boot_order"]["conditional"][0]["section"], "[gpio4=0]");
  EXPECT_EQ(j["boot_order"]["conditional"][0]["value"], "0xf1");
  EXPECT_EQ(j["boot_order"]["conditional"][1]["section"], "[gpio4=1]");
  EXPECT_EQ(j["boot_order"]["conditional"][1]["value"], "0xf4");
  // The suggested value at line 4 passes: no missing-mode on it.
  write_file(d.path / "fixed.txt",
             "[all]\nBOOT_ORDER=0xf41\n[gpio4=0]\nBOOT_ORDER=0xf14\n[gpio4=1]\nBOOT_ORDER=0xf4\n");
  r = run(bin() + " eeprom check " + (d.path / "fixed.txt").string());
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out.find("boot-order-missing-mode"), std::string::npos) << r.out;

  // The documentation issue's config (27): both GPIO 21 levels set an order; the board default
  // never applies.
  PIPROV_REQUIRE_SHARED("bootloader-configs/27-docs2183-pi4-gpio-filters.txt", c27);
  r = run(bin() + " eeprom check " + c27.string());
  EXPECT_NE(r.out.find("BOOT_ORDER: 0xf2 when [gpio21=1] (line 11)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("            0xf1 when [gpio21=0] (line 14)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(0xf41 (the board default) never applies: [gpio21=0] and [gpio21=1] both set BOOT_ORDER)"),
            std::string::npos)
      << r.out;
  j = json::parse(run(bin() + " eeprom check --json " + c27.string()).out);
  EXPECT_EQ(j["boot_order"]["applies"], false);
  EXPECT_EQ(j["boot_order"]["always_gpio"], "21");
}
