// config.txt model: lossless round trip, line classification, effective values.
#include <gtest/gtest.h>
#include <cctype>
#include <filesystem>
#include <map>

#include "boot/config_txt.hpp"
#include "support/testsupport.hpp"

namespace fs = std::filesystem;
using namespace piprov::boot;
using piprov::test::read_file;

TEST(ConfigTxtRoundTrip, EveryFileInSharedData) {
  PIPROV_REQUIRE_SHARED("config-txt", dir);
  int n = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    std::string bytes = read_file(e.path());
    EXPECT_EQ(ConfigTxt::parse(bytes).to_string(), bytes) << e.path();
    ++n;
  }
  EXPECT_GE(n, 9);
}

TEST(ConfigTxtRoundTrip, GeneratedEdgeCases) {
  std::vector<std::string> cases = {
      "",
      "\n",
      "\r\n\r\n",
      "[pi4]\r\nkernel=vmlinux\r\n",                                        // CRLF
      "[pi4]\nkernel=vmlinux",                                              // no final newline
      "[pi4]\r\nkernel=vmlinux",                                            // CRLF, no final newline
      "\tkernel\t=\tvmlinux \t\n  # indented comment\n",                    // tabs and odd spacing
      std::string(200, 'x') + "\n" + "dtoverlay=" + std::string(190, 'a'),  // 200-char lines
      "a=b\rc=d\n",                                                         // lone CR mid-line
      std::string("x=\0y\n", 5) + "\n",                                     // NUL byte
      "[pi4\nboot_delay\ninitramfs initrd.img followkernel\ninitramfs=initrd.img\n",
      "mixed=1\r\nendings=2\nhere=3\r\n",
      "\n\n\n[all]\n\n",
      "=\n==\n[]\n]\n[\n",
  };
  for (const auto& c : cases) EXPECT_EQ(ConfigTxt::parse(c).to_string(), c) << "case: " << c;
}

TEST(ConfigTxtParse, ClassifiesLines) {
  auto c = ConfigTxt::parse(
      "# comment\n\n[pi4]\nkernel=vmlinux\ninitramfs initrd.img followkernel\nboot_delay\n"
      "gpu_mem = 16\ninclude syscfg.txt\n[gpio4=1]\n");
  const auto& l = c.lines();
  ASSERT_EQ(l.size(), 9u);
  EXPECT_EQ(l[0].kind, LineKind::Comment);
  EXPECT_EQ(l[1].kind, LineKind::Blank);
  EXPECT_EQ(l[2].kind, LineKind::Section);
  EXPECT_EQ(l[2].key, "pi4");
  EXPECT_EQ(l[3].kind, LineKind::Setting);
  EXPECT_EQ(l[3].key, "kernel");
  EXPECT_EQ(l[3].value, "vmlinux");
  EXPECT_EQ(l[4].kind, LineKind::Directive);
  EXPECT_EQ(l[4].key, "initramfs");
  EXPECT_EQ(l[4].value, "initrd.img followkernel");
  EXPECT_EQ(l[5].kind, LineKind::Setting);
  EXPECT_EQ(l[5].key, "boot_delay");
  EXPECT_FALSE(l[5].has_equals);
  EXPECT_TRUE(l[6].spaced_equals);
  EXPECT_EQ(l[6].key, "gpu_mem");
  EXPECT_EQ(l[6].value, "16");
  EXPECT_EQ(l[7].kind, LineKind::Directive);
  EXPECT_EQ(l[7].value, "syscfg.txt");
  EXPECT_EQ(l[8].key, "gpio4=1");
}

namespace {
const char* kGa =
    "[pi4]\nkernel=uboot_rpi_4.bin\nmax_framebuffers=2\n\n[pi2]\nkernel=uboot_rpi_2.bin\n\n[pi3]\n"
    "kernel=uboot_rpi_3.bin\n\n[all]\narm_64bit=1\ndevice_tree_address=0x03000000\n\nenable_uart=1\n"
    "cmdline=nobtcmd.txt\n\ninclude syscfg.txt\ninclude usercfg.txt\n";

IncludeLoader map_loader(std::map<std::string, std::string> files) {
  return [files](const std::string& name) -> std::optional<ConfigTxt> {
    auto it = files.find(name);
    if (it == files.end()) return std::nullopt;
    return ConfigTxt::parse(it->second);
  };
}
}  // namespace

TEST(ConfigTxtEffective, PerBoardLastWins) {
  auto c = ConfigTxt::parse(kGa);
  auto k4 = c.effective("kernel", Board{"pi4"});
  ASSERT_TRUE(k4);
  EXPECT_EQ(k4->value, "uboot_rpi_4.bin");
  EXPECT_EQ(k4->line, 2u);
  EXPECT_EQ(k4->section, "[pi4]");
  EXPECT_EQ(c.effective("kernel", Board{"pi400"})->value, "uboot_rpi_4.bin");  // [pi4] also matches Pi 400
  EXPECT_EQ(c.effective("kernel", Board{"pi3+"})->value, "uboot_rpi_3.bin");
  EXPECT_EQ(c.effective("kernel", Board{"pi2"})->value, "uboot_rpi_2.bin");
  EXPECT_FALSE(c.effective("kernel", Board{"pi5"}));
  EXPECT_EQ(c.effective("arm_64bit", Board{"pi4"})->value, "1");
  EXPECT_FALSE(c.effective("max_framebuffers", Board{"pi3"}));
}

TEST(ConfigTxtEffective, FollowsIncludes) {
  auto c = ConfigTxt::parse(kGa);
  auto loader = map_loader({{"syscfg.txt", "enable_uart=1\ncmdline=cmdline.txt\n"}, {"usercfg.txt", "# user\n"}});
  auto v = c.effective("cmdline", Board{"pi4"}, loader);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->value, "cmdline.txt");
  EXPECT_EQ(v->file, "syscfg.txt");
  EXPECT_EQ(v->line, 2u);
  EXPECT_EQ(c.effective("cmdline", Board{"pi4"})->value, "nobtcmd.txt");  // without the loader
  // An included file's sections carry on, as the firmware reads it in place.
  auto l2 = map_loader({{"syscfg.txt", "[pi3]\n"}, {"usercfg.txt", "kernel=from_user\n"}});
  EXPECT_EQ(c.effective("kernel", Board{"pi4"}, l2)->value, "uboot_rpi_4.bin");
  EXPECT_EQ(c.effective("kernel", Board{"pi3"}, l2)->value, "from_user");
}

TEST(ConfigTxtEffective, FiltersCombineReplaceAndReset) {
  auto c = ConfigTxt::parse(
      "kernel=a\n[pi4]\n[gpio4=1]\nkernel=b\n[pi4]\n[all]\n[pi4]\n[pi3]\nkernel=c\n[none]\nkernel=d\n"
      "[pi4]\ninitramfs=wrong.img\ninitramfs initrd.img followkernel\nboot_delay\n[0x12345678]\nkernel=e\n");
  // [gpio4=1] is unknown offline (false); [pi3] replaced [pi4]; [none] matches nothing;
  // [0x..] (serial) combines with [pi4] and is unknown, so false.
  EXPECT_EQ(c.effective("kernel", Board{"pi4"})->value, "a");
  EXPECT_EQ(c.effective("kernel", Board{"pi3"})->value, "c");
  EXPECT_EQ(c.effective("initramfs", Board{"pi4"})->value, "initrd.img followkernel");
  EXPECT_FALSE(c.effective("boot_delay", Board{"pi4"}));  // bare key: no value
  auto all = ConfigTxt::parse("dtoverlay=a\n[pi4]\ndtoverlay=b\n[pi3]\ndtoverlay=c\n").effective_all("dtoverlay");
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].value, "a");
  EXPECT_EQ(all[1].value, "b");
}

TEST(ConfigTxtLint, EveryRule) {
  std::string long_line = "dtoverlay=" + std::string(95, 'x');  // 105 chars
  auto c = ConfigTxt::parse("[pi4]\nboot_delay\ngpu_mem = 16\nkernel=vmlinux # the kernel\n" + long_line +
                            "\nkernel=vmlinux\ninitramfs=initrd.img\n[pi3\ndtoverlay=a\ndtoverlay=b\n");
  auto f = c.lint();
  std::vector<std::pair<std::size_t, std::string>> got;
  for (const auto& x : f) got.emplace_back(x.line, x.rule);
  std::vector<std::pair<std::size_t, std::string>> want = {
      {2, "bare-key"},  {3, "spaces-around-equals"}, {4, "inline-comment"},      {5, "line-too-long"},
      {6, "duplicate"}, {7, "initramfs-equals"},     {8, "unterminated-section"}};
  EXPECT_EQ(got, want);
  EXPECT_EQ(f[0].fix, "write boot_delay=1");
  EXPECT_EQ(f[1].fix, "write gpu_mem=16");
  EXPECT_EQ(f[2].fix, "move the comment to its own line: kernel=vmlinux");
  EXPECT_EQ(f[3].message, "line 5 is 105 characters; the firmware reads only the first 98");
  EXPECT_EQ(f[4].message, "line 6: kernel is set again in [pi4] (first at line 4); the later value wins");
  EXPECT_EQ(f[5].fix, "write initramfs initrd.img followkernel");
}

TEST(ConfigTxtLint, StockFilesAreClean) {
  EXPECT_TRUE(ConfigTxt::parse(kGa).lint().empty());
  EXPECT_TRUE(ConfigTxt::parse("# " + std::string(120, 'c') + "\n").lint().empty());  // a cut comment is harmless
  PIPROV_REQUIRE_SHARED("config-txt", dir);
  int n = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    // Stock config.txt/syscfg.txt/usercfg.txt of every release: "NN-...txt";
    // 17 is a third-party script's output (checked below).
    if (name.size() < 3 || !std::isdigit(static_cast<unsigned char>(name[0])) || name.rfind("17-", 0) == 0) continue;
    EXPECT_TRUE(ConfigTxt::parse(read_file(e.path())).lint().empty()) << e.path();
    ++n;
  }
  EXPECT_GE(n, 11);
}

TEST(ConfigTxtLint, BootFixScriptOutputHasBareBootDelay) {
  PIPROV_REQUIRE_SHARED("config-txt/17-theremote-bootfix-generated.txt", file);
  auto f = ConfigTxt::parse(read_file(file)).lint();
  ASSERT_EQ(f.size(), 3u);
  for (const auto& x : f) EXPECT_EQ(x.rule, "bare-key") << x.message;
  EXPECT_EQ(f[0].line, 17u);
}

TEST(UnifiedDiff, ExactOutput) {
  std::string a = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n";
  std::string b = "1\n2\n3\n4\nfive\n6\n7\n8\n9\n10\n11\n12\nthirteen";
  EXPECT_EQ(unified_diff(a, a, "a", "b"), "");
  EXPECT_EQ(unified_diff(a, b, "a", "b"),
            "--- a\n+++ b\n"
            "@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n"
            "@@ -10,3 +10,4 @@\n 10\n 11\n 12\n+thirteen\n\\ No newline at end of file\n");
}
