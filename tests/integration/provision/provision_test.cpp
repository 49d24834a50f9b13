// End to end on a loop device with scripts/make-test-image.sh's image (real
// Debian arm64 kernel): piprov provision, then inspect the disk.
#include <gtest/gtest.h>
#include <map>
#include <regex>

#include "boot/apt_hook.hpp"
#include "boot/config_txt.hpp"
#include "boot/kernel_image.hpp"
#include "support/testsupport.hpp"

namespace fs = std::filesystem;
using namespace piprov::boot;
using piprov::test::read_file;
using piprov::test::read_tree;
using piprov::test::run;
using piprov::test::TempDir;

TEST(Provision, EndToEndOnALoopDevice) {
  PIPROV_REQUIRE_LOOP();
  TempDir d("piprov-prov");
  if (auto why = piprov::test::make_test_image(d.path / "ubuntu.img", 64); !why.empty()) PIPROV_SKIP(why);
  piprov::test::LoopDevice loop(d.path / "disk.img", 1ull << 30);

  auto p = run(piprov::test::piprov_bin() + " provision " + (d.path / "ubuntu.img.xz").string() + " " + loop.path +
               " --yes --progress none");
  ASSERT_EQ(p.exit_code, 0) << p.out << p.err;
  // "[n/9] STEP  DURATION  RESULT", one line per step, as each one ends.
  for (const char* step :
       {R"(\[1/9\] write +\S+(?: s)?  wrote )",
        R"(\[2/9\] identity +\S+(?: s)?  MBR disk identifier 0x4ec8ea53 -> 0x[0-9a-f]{8} \(2 new PARTUUIDs\))",
        R"(\[3/9\] partitions +\S+(?: s)?  boot )", R"(\[4/9\] mount +\S+(?: s)?  )", R"(\[5/9\] patch +\S+(?: s)?  )",
        R"(\[6/9\] seed +\S+(?: s)?  no PARTUUID= to rewrite; no identity options: no cloud-init seed)",
        R"(\[7/9\] check +\S+(?: s)?  OK)", R"(\[8/9\] sync +\S+(?: s)?  )",
        R"(\[9/9\] unmount +\S+(?: s)?  unmounted )"})
    EXPECT_TRUE(std::regex_search(p.out, std::regex(std::string("(^|\n)") + step))) << step << "\n" << p.out;
  EXPECT_NE(p.out.find("LABEL=system-boot"), std::string::npos);
  // The patch line names the files on the disk's partitions, not in the temp mount dir (gone by now).
  std::smatch patch_line;
  ASSERT_TRUE(std::regex_search(p.out, patch_line, std::regex(R"((^|\n)\[5/9\] patch[^\n]*)"))) << p.out;
  EXPECT_NE(patch_line.str().find("kept the original config.txt as config.txt.piprov-orig on the boot partition (" +
                                  loop.path + "p1); updated config.txt on the boot partition (" + loop.path + "p1)"),
            std::string::npos)
      << patch_line.str();
  EXPECT_NE(
      patch_line.str().find("installed /usr/lib/piprov/piprov-kernel-sync on the root partition (" + loop.path + "p2)"),
      std::string::npos)
      << patch_line.str();
  EXPECT_EQ(patch_line.str().find("piprov-provision-"), std::string::npos) << patch_line.str();
  EXPECT_NE(p.out.find("provision: " + loop.path + " is ready"), std::string::npos) << p.out;
  EXPECT_EQ(run("grep -q '^" + loop.path + "p' /proc/self/mounts").exit_code, 1) << "a mount was left behind";

  // The boot partition, read without mounting (this kernel may lack vfat).
  fs::path boot = d.path / "boot";
  ASSERT_NO_FATAL_FAILURE(piprov::test::copy_fat_out(loop.path + "p1", boot));
  ASSERT_EQ(run("gzip -dc '" + (boot / "vmlinuz").string() + "' > '" + (d.path / "gunzipped").string() + "'").exit_code,
            0);
  std::string vmlinux = read_file(boot / "vmlinux");
  EXPECT_GT(vmlinux.size(), 20u << 20);
  EXPECT_TRUE(vmlinux == read_file(d.path / "gunzipped")) << "vmlinux != gunzip(vmlinuz)";
  EXPECT_TRUE(file_is_arm64_image(boot / "vmlinux"));

  // config.txt: [pi4] kernel=vmlinux + initramfs, every other line as shipped.
  std::string original = read_file(boot / "config.txt.piprov-orig");
  std::string want = original;
  const std::string old_block = "[pi4]\nkernel=uboot_rpi_4.bin\nmax_framebuffers=2\n";
  ASSERT_NE(want.find(old_block), std::string::npos);
  want.replace(want.find(old_block), old_block.size(),
               "[pi4]\nkernel=vmlinux\nmax_framebuffers=2\ninitramfs initrd.img followkernel\n");
  std::string cfg = read_file(boot / "config.txt");
  EXPECT_EQ(cfg, want);
  auto config = ConfigTxt::parse(cfg);
  EXPECT_EQ(config.effective("kernel", Board{"pi4"})->value, "vmlinux");
  EXPECT_EQ(config.effective("kernel", Board{"pi3"})->value, "uboot_rpi_3.bin");

  // The root fs has the hook.
  piprov::test::Mount root(loop.path + "p2", d.path / "root", "ext4");
  EXPECT_EQ(read_file(root.dir / kHookScriptRel),
            read_file(piprov::test::source_dir() / "apt-hooks/piprov-kernel-sync"));
  EXPECT_EQ(read_file(root.dir / kHookConfRel), read_file(piprov::test::source_dir() / "apt-hooks/99-piprov-kernel"));
  EXPECT_EQ(fs::status(root.dir / kHookScriptRel).permissions(), static_cast<fs::perms>(0755));

  auto chk = run(piprov::test::piprov_bin() + " boot check '" + boot.string() + "' --root '" + root.dir.string() + "'");
  EXPECT_EQ(chk.exit_code, 0) << chk.out << chk.err;

  // boot patch again: no byte changes.
  auto before_boot = read_tree(boot), before_root = read_tree(root.dir / "etc/apt");
  auto again =
      run(piprov::test::piprov_bin() + " boot patch '" + boot.string() + "' --root '" + root.dir.string() + "'");
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("already patched, nothing changed"), std::string::npos) << again.out;
  EXPECT_TRUE(read_tree(boot) == before_boot);
  EXPECT_TRUE(read_tree(root.dir / "etc/apt") == before_root);
}

TEST(Provision, FailureAfterTheWriteSaysWhatStateTheDiskIsIn) {
  PIPROV_REQUIRE_LOOP();
  TempDir d("piprov-prov");
  // An image with an ext4 partition only, no system-boot partition. Read at random (raw), it is
  // refused before the write, as the dry run reads it; gzipped (read only from its start) it is
  // written fine, then the partitions step fails.
  auto mk = run("cd '" + d.path.string() +
                "' && truncate -s 16M root.ext4 && mke2fs -q -F -t ext4 -L writable root.ext4 "
                "&& truncate -s 20M x.img && printf 'label: dos\\nstart=2048, type=83\\n' | sfdisk -q x.img "
                "&& dd if=root.ext4 of=x.img bs=1M seek=1 conv=notrunc status=none && gzip -1 -k x.img");
  ASSERT_EQ(mk.exit_code, 0) << mk.err;
  piprov::test::LoopDevice loop(d.path / "disk.img", 64ull << 20);
  auto raw = run(piprov::test::piprov_bin() + " provision " + (d.path / "x.img").string() + " " + loop.path +
                 " --yes --progress none");
  EXPECT_EQ(raw.exit_code, 2) << raw.out << raw.err;
  EXPECT_EQ(raw.out, "");
  EXPECT_EQ(raw.err, "piprov: error: " + (d.path / "x.img").string() +
                         " has no FAT partition (partition types: 0x83): not a Raspberry Pi image, whose boot "
                         "partition is FAT\n");
  EXPECT_EQ(run("cmp -s -n 1048576 " + loop.path + " /dev/zero").exit_code, 0) << "the disk was written";
  auto p = run(piprov::test::piprov_bin() + " provision " + (d.path / "x.img.gz").string() + " " + loop.path +
               " --yes --progress none");
  EXPECT_EQ(p.exit_code, 2) << p.out << p.err;
  EXPECT_NE(p.out.find("[1/9] write"), std::string::npos) << p.out;
  EXPECT_NE(
      p.err.find("provision failed at step 'partitions': cannot find the system-boot (FAT) partition on " + loop.path),
      std::string::npos)
      << p.err;
  EXPECT_NE(p.err.find("Disk state: " + loop.path +
                       " holds the image as written and verified; its boot partition is NOT patched yet"),
            std::string::npos)
      << p.err;
  EXPECT_NE(p.err.find("nothing of it is mounted any more"), std::string::npos) << p.err;
  // Not a whole disk: refused before anything is written.
  auto f = run(piprov::test::piprov_bin() + " provision " + (d.path / "x.img").string() + " " +
               (d.path / "file.img").string() + " --yes");
  EXPECT_EQ(f.exit_code, 2);
  EXPECT_FALSE(fs::exists(d.path / "file.img"));
  // A bad --uas-quirk is refused before the write.
  auto q = run(piprov::test::piprov_bin() + " provision " + (d.path / "x.img").string() + " " + loop.path +
               " --yes --progress none --uas-quirk 152d0578");
  EXPECT_EQ(q.exit_code, 2);
  EXPECT_EQ(q.out, "");
}

// Today's images boot from USB as shipped: provision writes, detects the layout,
// changes nothing (the boot partition stays byte-identical to the image's) and
// installs no hook. One full provision per layout (CI budget).
struct ShippedLayout {
  const char* image_layout;  ///< scripts/make-test-image.sh --layout
  const char* detected;      ///< boot::layout_name()
  /// root=PARTUUID= in cmdline.txt (Raspberry Pi OS): provision gives the disk a
  /// new identifier and rewrites that reference, so cmdline.txt differs by design.
  bool partuuid_root = false;
  /// The check step's line: what `boot check` reports (raspios: auto_initramfs=1's initramfs8).
  const char* check_line = "";
};
class ProvisionShipped : public ::testing::TestWithParam<ShippedLayout> {};

TEST_P(ProvisionShipped, ChangesNothingAndSaysWhy) {
  PIPROV_REQUIRE_LOOP();
  TempDir d("piprov-prov");
  const auto& p = GetParam();
  fs::path img = d.path / (std::string(p.image_layout) + ".img");
  if (auto why = piprov::test::make_test_image(img, 64, p.image_layout); !why.empty()) PIPROV_SKIP(why);
  piprov::test::LoopDevice loop(d.path / "disk.img", 1ull << 30);

  auto r =
      run(piprov::test::piprov_bin() + " provision " + img.string() + ".xz " + loop.path + " --yes --progress none");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(std::regex_search(
      r.out, std::regex(std::string(R"((^|\n)\[5/9\] patch +\S+(?: s)?  layout )") + p.detected + "[ :]")))
      << r.out;
  EXPECT_NE(r.out.find("nothing to do: "), std::string::npos) << r.out;
  EXPECT_TRUE(
      std::regex_search(r.out, std::regex(std::string(R"((^|\n)\[7/9\] check +\S+(?: s)?  )") + p.check_line + "\n")))
      << r.out;
  EXPECT_NE(r.out.find("boots from USB as shipped"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("provision: " + loop.path + " is ready: "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("apt hook installed"), std::string::npos) << r.out;

  // The boot partition (sector 2048, 256 MiB in the image) is byte-identical on the disk.
  if (!p.partuuid_root) {
    auto cmp = run("cmp -n " + std::to_string(256ull << 20) + " -i " + std::to_string(1ull << 20) + ":0 " +
                   piprov::test::q(img.string()) + " " + loop.path + "p1");
    EXPECT_EQ(cmp.exit_code, 0) << "the boot partition differs from the image's: " << cmp.out << cmp.err;
  } else {
    // The new root PARTUUID (libblkid via partx), and cmdline.txt names it.
    auto uuid = run("partx -g -o UUID -n 2 " + loop.path);
    ASSERT_EQ(uuid.exit_code, 0) << uuid.err;
    std::string partuuid = uuid.out.substr(0, uuid.out.find_first_not_of("0123456789abcdef-"));
    EXPECT_EQ(partuuid.size(), 11u) << uuid.out;  // xxxxxxxx-02
    auto image_uuid = run("partx -g -o UUID -n 2 " + piprov::test::q(img.string()));
    EXPECT_NE(image_uuid.out, uuid.out) << "the disk kept the image's disk identifier";
    auto cmdline = run("MTOOLS_SKIP_CHECK=1 mtype -i " + loop.path + "p1 ::cmdline.txt");
    EXPECT_NE(cmdline.out.find("root=PARTUUID=" + partuuid + " "), std::string::npos) << cmdline.out;
  }
  // ... and no hook went onto the root fs.
  piprov::test::Mount root(loop.path + "p2", d.path / "root", "ext4", "ro");
  for (const char* rel : {kHookConfRel, kHookScriptRel, kHookPathUnitRel, kHookServiceUnitRel})
    EXPECT_FALSE(fs::exists(root.dir / rel)) << rel;
}

INSTANTIATE_TEST_SUITE_P(
    Layouts, ProvisionShipped,
    ::testing::Values(ShippedLayout{"noble", "ubuntu-direct", false,
                                    "OK: kernel vmlinuz, initramfs initrd\\.img, cmdline cmdline\\.txt"},
                      ShippedLayout{"resolute", "ubuntu-ab", false,
                                    "OK: kernel current/vmlinuz, initramfs current/initrd\\.img, "
                                    "cmdline current/cmdline\\.txt"},
                      ShippedLayout{"raspios", "raspios", true,
                                    "OK: kernel kernel8\\.img, initramfs initramfs8, cmdline "
                                    "cmdline\\.txt"}),
    [](const auto& info) { return std::string(info.param.image_layout); });

// Several disks from one decode: each good disk goes through every step and is
// ready; a disk that fills up mid-write is reported with its offset and the
// others go on (exit 5).
TEST(Provision, SeveralDisksFromOneDecodeAndOneThatFails) {
  PIPROV_REQUIRE_LOOP();
  TempDir d("piprov-prov");
  if (auto why = piprov::test::make_test_image(d.path / "ubuntu.img", 64); !why.empty()) PIPROV_SKIP(why);
  piprov::test::LoopDevice a(d.path / "a.img", 1ull << 30), b(d.path / "b.img", 1ull << 30);
  piprov::test::Mount small("tmpfs", d.path / "tmpfs", "tmpfs", "size=64m");
  std::string bad;
  piprov::test::RunResult p;
  {
    piprov::test::LoopDevice full(small.dir / "full.img", 1ull << 30);  // sparse, larger than the tmpfs
    bad = full.path;
    p = run(piprov::test::piprov_bin() + " provision " + (d.path / "ubuntu.img.xz").string() + " " + a.path + " " +
            full.path + " " + b.path + " --yes --progress none");
  }
  EXPECT_EQ(p.exit_code, 5) << p.out << p.err;
  for (const auto* disk : {&a, &b}) {
    EXPECT_TRUE(
        std::regex_search(p.out, std::regex("(^|\n)" + disk->path + R"(: \[9/9\] unmount +\S+(?: s)?  unmounted )")))
        << p.out;
    EXPECT_NE(p.out.find("provision: " + disk->path + " is ready"), std::string::npos) << p.out;
  }
  EXPECT_EQ(p.out.find(bad + ": [2/9]"), std::string::npos) << p.out;  // no step after a failed write
  EXPECT_NE(p.out.find("to 2 of 3 targets"), std::string::npos) << p.out;
  // Each disk's time; the disk whose write failed ran no step.
  const std::string t = "[0-9][^,() ]*(?: s)?";  // format_duration(): "0.84 s", "4m05s"
  EXPECT_TRUE(std::regex_search(p.out, std::regex("\nprovision: steps after the write: 2 disks in parallel in " + t +
                                                  " \\(" + a.path + " " + t + ", " + b.path + " " + t + "\\)\n")))
      << p.out;
  // Out of tmpfs space, the loop driver fails the write, or (a request that ran
  // out part-way) completes it with its end lost: verify's read-back finds that.
  EXPECT_TRUE(p.err.find("piprov: error: writing " + bad + " failed at byte offset ") != std::string::npos ||
              p.err.find("piprov: error: verify failed: " + bad + " differs from ") != std::string::npos)
      << p.err;
  // Only this test's disks: other tests may be provisioning at the same time.
  EXPECT_EQ(run("grep -q -e '^" + a.path + "p' -e '^" + b.path + "p' /proc/self/mounts").exit_code, 1)
      << "a mount was left behind";
}
