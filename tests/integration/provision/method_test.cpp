// provision --method vmlinux|direct: boot patch's option, passed to the patch
// step, on scripts/make-test-image.sh's 20.04 U-Boot image (no start4.elf: the
// firmware date is unknown, so without --method boot patch takes vmlinux;
// Provision.EndToEndOnALoopDevice checks that) on real loop devices.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <regex>

#include "support/testsupport.hpp"

namespace fs = std::filesystem;
using piprov::test::q;
using piprov::test::read_file;
using piprov::test::run;
using piprov::test::TempDir;

namespace {

/// `--method` and its help text, as `piprov CMD --help` prints them.
std::string method_help(const std::string& cmd) {
  auto h = run(piprov::test::piprov_bin() + " " + cmd + " --help");
  std::smatch m;
  if (!std::regex_search(h.out, m, std::regex(R"(\n( +--method [^\n]*\n[^\n]*\n))")))
    return "(no --method in " + cmd + ")";
  return m[1];
}

}  // namespace

// --method direct on 20.04's U-Boot layout: [pi4] kernel=vmlinuz + initramfs, no
// vmlinux, no hook; boot check --json names what the firmware then loads. The firmware
// date is unknown, so the check warns that the gzip kernel needs firmware from 2020-09
// on (exit 1): the user chose direct over that.
TEST(ProvisionMethod, DirectOnThe2004UbootLayout) {
  PIPROV_REQUIRE_LOOP();
  PIPROV_REQUIRE_TOOL("mcopy");
  TempDir d("piprov-method");
  if (auto why = piprov::test::make_test_image(d.path / "focal.img", 64); !why.empty()) PIPROV_SKIP(why);
  piprov::test::LoopDevice loop(d.path / "disk.img", 1ull << 30);
  auto p = run(piprov::test::piprov_bin() + " provision " + q((d.path / "focal.img.xz").string()) + " " + loop.path +
               " --yes --progress none --method direct");
  EXPECT_EQ(p.exit_code, 1) << p.out << p.err;
  EXPECT_TRUE(std::regex_search(p.out, std::regex(R"((^|\n)\[5/9\] patch +\S+(?: s)?  layout ubuntu-uboot \(Ubuntu )"
                                                  R"(20\.04 LTS\): patched for USB boot on a Pi 4 \(method direct: )"
                                                  R"(\[pi4\] kernel=vmlinuz, initramfs initrd\.img followkernel; )"
                                                  R"(no vmlinux, no hook\))")))
      << p.out;
  EXPECT_NE(p.out.find("warning  kernel-compressed: kernel vmlinuz (config.txt line 14) is gzip-compressed"),
            std::string::npos)
      << p.out;
  EXPECT_NE(p.out.find("provision: " + loop.path + " was written and patched, but boot check found problems"),
            std::string::npos)
      << p.out;

  const fs::path boot = d.path / "boot";
  ASSERT_NO_FATAL_FAILURE(piprov::test::copy_fat_out(loop.path + "p1", boot));
  std::string want = read_file(boot / "config.txt.piprov-orig");
  const std::string old_block = "[pi4]\nkernel=uboot_rpi_4.bin\nmax_framebuffers=2\n";
  ASSERT_NE(want.find(old_block), std::string::npos) << want;
  want.replace(want.find(old_block), old_block.size(),
               "[pi4]\nkernel=vmlinuz\nmax_framebuffers=2\ninitramfs initrd.img followkernel\n");
  EXPECT_EQ(read_file(boot / "config.txt"), want);
  EXPECT_FALSE(fs::exists(boot / "vmlinux"));
  EXPECT_FALSE(fs::exists(boot / "vmlinux.stamp"));
  {
    piprov::test::Mount root(loop.path + "p2", d.path / "root", "ext4", "ro");
    EXPECT_FALSE(fs::exists(root.dir / "etc/apt/apt.conf.d/99-piprov-kernel")) << "the direct method needs no hook";
  }

  auto chk = run(piprov::test::piprov_bin() + " boot check " + q(boot.string()) + " --board pi4 --json");
  EXPECT_EQ(chk.exit_code, 1) << chk.out << chk.err;
  auto j = nlohmann::json::parse(chk.out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << chk.out;
  EXPECT_EQ(j["schema"], "piprov.boot.check/5");
  EXPECT_EQ(j["layout"]["id"], "ubuntu-direct");
  EXPECT_EQ(j["layout"]["kernel"], "vmlinuz");
  EXPECT_EQ(j["layout"]["initramfs"], "initrd.img");
  EXPECT_EQ(j["layout"]["cmdline"], "cmdline.txt");
  EXPECT_EQ(j["layout"]["cmdline_args"],
            "net.ifnames=0 dwc_otg.lpm_enable=0 console=serial0,115200 console=tty1 root=LABEL=writable "
            "rootfstype=ext4 elevator=deadline rootwait fixrtc");
  std::vector<std::string> failing;
  for (const auto& f : j["findings"])
    if (f["severity"] != "info") failing.push_back(f["rule"]);
  EXPECT_EQ(failing, std::vector<std::string>{"kernel-compressed"}) << chk.out;
}

// A value that is not a method: refused while the options are read (exit 2), nothing
// written; boot patch and provision take the option with the same help text.
TEST(ProvisionMethod, BadValueIsRefusedBeforeAnyByteIsWritten) {
  PIPROV_REQUIRE_LOOP();
  TempDir d("piprov-method");
  if (auto why = piprov::test::make_test_image(d.path / "focal.img", 64); !why.empty()) PIPROV_SKIP(why);
  piprov::test::LoopDevice loop(d.path / "disk.img", 64ull << 20);
  ASSERT_EQ(
      run("yes piprov-untouched | head -c 1048576 | dd of=" + loop.path + " bs=1M conv=fsync status=none").exit_code,
      0);
  const std::string before = piprov::test::read_bytes(loop.path, 0, 1 << 20);
  for (const char* bad : {"gzip", "Direct", "''"}) {
    SCOPED_TRACE(bad);
    auto p = run(piprov::test::piprov_bin() + " provision " + q((d.path / "focal.img.xz").string()) + " " + loop.path +
                 " --yes --progress none --method " + bad);
    EXPECT_EQ(p.exit_code, 2) << p.out << p.err;
    EXPECT_EQ(p.out, "");
    EXPECT_NE(p.err.find("piprov: error: --method: "), std::string::npos) << p.err;
    EXPECT_NE(p.err.find("not in {vmlinux,direct}"), std::string::npos) << p.err;
  }
  EXPECT_TRUE(piprov::test::read_bytes(loop.path, 0, 1 << 20) == before) << "a byte of " << loop.path << " was written";
  EXPECT_EQ(method_help("provision"), method_help("boot patch"));
  EXPECT_NE(method_help("provision").find("vmlinux (decompressed kernel + apt hook) or direct"), std::string::npos)
      << method_help("provision");
}

// A method the layout cannot take is boot patch's refusal (exit 2), made on the image before the
// write (a raw image, read at random, as the dry run reads it): --method direct on a hand-made
// vmlinux fix (legacy-vmlinux: [pi4] kernel=vmlinux). The disk is not touched.
TEST(ProvisionMethod, AMethodTheLayoutCannotTakeIsRefusedBeforeTheWrite) {
  PIPROV_REQUIRE_LOOP();
  PIPROV_REQUIRE_TOOL("mcopy");
  TempDir d("piprov-method");
  const fs::path img = d.path / "focal.img";
  if (auto why = piprov::test::make_test_image(img, 64); !why.empty()) PIPROV_SKIP(why);
  const std::string fat = q(img.string() + "@@1M");  // p1 at sector 2048 (make-test-image.sh)
  auto edit = run("export MTOOLS_SKIP_CHECK=1; cd " + q(d.path.string()) + " && mtype -i " + fat +
                  " ::config.txt | sed 's/^kernel=uboot_rpi_4.bin$/kernel=vmlinux/' > config.txt && mcopy -o -i " +
                  fat + " config.txt ::config.txt && mtype -i " + fat + " ::vmlinuz | gzip -dc > vmlinux && mcopy -i " +
                  fat + " vmlinux ::vmlinux");
  ASSERT_EQ(edit.exit_code, 0) << edit.err;
  piprov::test::LoopDevice loop(d.path / "disk.img", 1ull << 30);
  auto p = run(piprov::test::piprov_bin() + " provision " + q(img.string()) + " " + loop.path +
               " --yes --progress none --method direct");
  EXPECT_EQ(p.exit_code, 2) << p.out << p.err;
  EXPECT_EQ(p.out, "");
  EXPECT_EQ(p.err, "piprov: error: --method direct: " + img.string() +
                       " partition 1 is legacy-vmlinux, which boots vmlinux; run without --method to keep (or "
                       "migrate to) piprov's vmlinux fix; nothing was written\n");
  EXPECT_EQ(run("cmp -s -n 1048576 " + loop.path + " /dev/zero").exit_code, 0) << "the disk was written";
  // The dry run says the same, "nothing was changed".
  auto dry = run(piprov::test::piprov_bin() + " provision --dry-run " + q(img.string()) + " " + loop.path +
                 " --method direct");
  EXPECT_EQ(dry.exit_code, 2) << dry.out << dry.err;
  std::string said = p.err;
  said.replace(said.rfind("nothing was written"), 19, "nothing was changed");
  EXPECT_EQ(dry.err, said);
}

// --board pi5: the final boot check resolves what a Pi 5's firmware loads from the Raspberry Pi
// OS image (kernel_2712.img and its auto_initramfs initramfs_2712, not the Pi 4's kernel8.img);
// boot patch's refusal of the Pi 4 fix for a Pi 5 family board stops the 20.04 U-Boot image
// before the write (exit 2, judged on the image as the dry run judges it); a name that is not a board is refused before
// the write.
TEST(ProvisionBoard, Pi5ChecksWhatThePi5FirmwareLoads) {
  PIPROV_REQUIRE_LOOP();
  TempDir d("piprov-board");
  const fs::path img = d.path / "raspios.img";
  if (auto why = piprov::test::make_test_image(img, 64, "raspios"); !why.empty()) PIPROV_SKIP(why);
  piprov::test::LoopDevice loop(d.path / "disk.img", 1ull << 30);
  // The dry run's check judges what the Pi 5's firmware loads, as the real run's check step does.
  auto dry = run(piprov::test::piprov_bin() + " provision --dry-run --json " + q(img.string() + ".xz") + " " +
                 loop.path + " --board pi5");
  EXPECT_EQ(dry.exit_code, 0) << dry.out << dry.err;
  auto dj = nlohmann::json::parse(dry.out, nullptr, false);
  ASSERT_TRUE(dj.is_object()) << dry.out;
  EXPECT_EQ(dj["targets"][0]["check"]["layout"]["board"], "pi5") << dry.out;
  EXPECT_EQ(dj["targets"][0]["check"]["layout"]["kernel"], "kernel_2712.img") << dry.out;
  auto p = run(piprov::test::piprov_bin() + " provision " + q(img.string() + ".xz") + " " + loop.path +
               " --yes --progress none --board pi5");
  EXPECT_EQ(p.exit_code, 0) << p.out << p.err;
  EXPECT_TRUE(std::regex_search(p.out, std::regex(R"((^|\n)\[7/9\] check +\S+(?: s)?  OK: kernel kernel_2712\.img, )"
                                                  R"(initramfs initramfs_2712, cmdline cmdline\.txt\n)")))
      << p.out;
  auto chk = run("export MTOOLS_SKIP_CHECK=1; mkdir " + q((d.path / "boot").string()) + " && mcopy -s -n -i " +
                 loop.path + "p1 '::/*' " + q((d.path / "boot").string()) + " && " + piprov::test::piprov_bin() +
                 " boot check " + q((d.path / "boot").string()) + " --board pi5 --json");
  EXPECT_EQ(chk.exit_code, 0) << chk.out << chk.err;
  auto j = nlohmann::json::parse(chk.out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << chk.out;
  EXPECT_EQ(j["layout"]["board"], "pi5");
  EXPECT_EQ(j["layout"]["kernel"], "kernel_2712.img");
  EXPECT_EQ(j["layout"]["initramfs"], "initramfs_2712");
}

TEST(ProvisionBoard, Pi5RefusesThePi4FixOfThe2004Image) {
  PIPROV_REQUIRE_LOOP();
  TempDir d("piprov-board");
  if (auto why = piprov::test::make_test_image(d.path / "focal.img", 64); !why.empty()) PIPROV_SKIP(why);
  piprov::test::LoopDevice loop(d.path / "disk.img", 1ull << 30);
  auto p = run(piprov::test::piprov_bin() + " provision " + q((d.path / "focal.img.xz").string()) + " " + loop.path +
               " --yes --progress none --board pi5");
  EXPECT_EQ(p.exit_code, 2) << p.out << p.err;
  // Refused from the image alone, before the write (as the dry run knows it): the image's
  // partition is named, not a temporary directory, and there is nothing to finish by hand.
  EXPECT_EQ(p.out.find("[1/9] write"), std::string::npos) << p.out;
  EXPECT_EQ(p.err.find("provision failed at step"), std::string::npos) << p.err;
  EXPECT_NE(p.err.find((d.path / "focal.img.xz").string() + " partition 1 is "), std::string::npos) << p.err;
  EXPECT_NE(p.err.find("which cannot boot a Raspberry Pi 5 (Ubuntu supports the Pi 5 from 23.10); write a current "
                       "image instead; nothing was written"),
            std::string::npos)
      << p.err;
  EXPECT_EQ(p.err.find("by hand"), std::string::npos) << p.err;
  EXPECT_EQ(run("cmp -s -n 1048576 " + loop.path + " /dev/zero").exit_code, 0) << "the disk was written";
  auto bad = run(piprov::test::piprov_bin() + " provision " + q((d.path / "focal.img.xz").string()) + " " + loop.path +
                 " --yes --progress none --board pi6");
  EXPECT_EQ(bad.exit_code, 2) << bad.out << bad.err;
  EXPECT_EQ(bad.out, "");
  EXPECT_NE(bad.err.find("--board pi6: not a board; use one of pi4|pi400|cm4|pi5|pi500|cm5"), std::string::npos)
      << bad.err;
}
