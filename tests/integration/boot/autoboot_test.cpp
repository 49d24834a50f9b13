// boot check --device on a disk that boots through autoboot.txt (issue 19 part 2):
// p1 FAT with only autoboot.txt (the documentation's A/B example: boot_partition=2,
// [tryboot] boot_partition=3), p2 and p3 FAT with Raspberry Pi OS bookworm's boot files,
// p4 ext4 root. Real loop disk (sfdisk, mkfs, mtools), as root_device_test.cpp.
// (Following BOOT_DIR's own vfat mount without --device needs a vfat mount,
// which this machine's kernel cannot do: that path has no test here.)
#include <gtest/gtest.h>
#include <unistd.h>

#include "boot/check.hpp"
#include "boot/fat_tools.hpp"
#include "support/layout_fixture.hpp"
#include "support/testsupport.hpp"

namespace fs = std::filesystem;
using namespace piprov::boot;
using piprov::Severity;
using piprov::test::q;
using piprov::test::run;
using piprov::test::TempDir;

namespace {

constexpr const char* kAbAutoboot = "[all]\ntryboot_a_b=1\nboot_partition=2\n[tryboot]\nboot_partition=3\n";

/// A 64 MiB MBR disk: p1 8M FAT, p2/p3 16M FAT, p4 ext4 labelled `label`; disk identifier `disk_id`.
struct AutobootDisk {
  std::unique_ptr<piprov::test::LoopDevice> loop;
  AutobootDisk(const fs::path& img, const std::string& disk_id, const std::string& label) {
    loop = std::make_unique<piprov::test::LoopDevice>(img, 64ull << 20);
    auto r = run("printf 'label: dos\\nlabel-id: 0x" + disk_id + "\\n,8M,c\\n,16M,c\\n,16M,c\\n,,83\\n' | sfdisk -q " +
                 loop->path + " && { partx -a " + loop->path + " 2>/dev/null || true; }");
    if (r.exit_code != 0) throw std::runtime_error("sfdisk: " + r.err);
    for (int i = 0; i < 200 && !fs::exists(p(4)); ++i) ::usleep(20000);
    r = run("mkfs.vfat -n BOOTCONFIG " + p(1) + " >/dev/null && mkfs.vfat -n BOOT " + p(2) +
            " >/dev/null && mkfs.vfat -n BOOT " + p(3) + " >/dev/null && mkfs.ext4 -q -F -L " + label + " " + p(4));
    if (r.exit_code != 0) throw std::runtime_error("mkfs: " + r.err);
  }
  std::string p(int n) const { return loop->path + "p" + std::to_string(n); }
  /// mtools on partition n; throws on failure.
  void mtools(int n, const std::string& args) const {
    auto r = run("MTOOLS_SKIP_CHECK=1 " + args.substr(0, args.find(' ')) + " -i " + p(n) + args.substr(args.find(' ')));
    if (r.exit_code != 0) throw std::runtime_error(args + ": " + r.err);
  }
};

std::string autoboot_disk_id() {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%08x", 0x5b000000u + (static_cast<unsigned>(::getpid()) << 4));
  return buf;
}

std::vector<std::string> autoboot_failing(const CheckReport& r) {
  std::vector<std::string> v;
  for (const auto& f : r.findings)
    if (f.severity != Severity::Info) v.push_back(f.rule);
  return v;
}

const piprov::Finding* autoboot_find(const CheckReport& r, const std::string& rule) {
  for (const auto& f : r.findings)
    if (f.rule == rule) return &f;
  return nullptr;
}

}  // namespace

TEST(BootAutoboot, FollowsBootPartitionOnDevice) {
  PIPROV_REQUIRE_LOOP();
  for (const char* tool : {"sfdisk", "partx", "mkfs.ext4", "mkfs.vfat", "mcopy", "mdel"}) PIPROV_REQUIRE_TOOL(tool);
  PIPROV_REQUIRE_SHARED("config-txt", configs);
  TempDir t;
  const std::string id = autoboot_disk_id();
  AutobootDisk disk(t.path / "disk.img", id, "pva" + std::to_string(::getpid() % 1000000));
  const fs::path files = t.path / "files", root = t.path / "root", bootcfg = t.path / "bootcfg";
  test::make_stock_boot(test::stock("bookworm"), configs, files, root);
  piprov::test::write_file(files / "cmdline.txt",
                           "console=tty1 root=PARTUUID=" + id + "-04 rootfstype=ext4 fsck.repair=yes rootwait\n");
  piprov::test::write_file(t.path / "autoboot.txt", kAbAutoboot);
  disk.mtools(1, "mcopy " + q((t.path / "autoboot.txt").string()) + " ::/autoboot.txt");
  for (int n : {2, 3}) disk.mtools(n, "mcopy -s " + q(files.string()) + "/* ::/");
  fat_copy_out(disk.p(1), bootcfg);  // BOOT_DIR: p1's files, as the Pi mounts it at /bootfs
  ASSERT_TRUE(fs::exists(bootcfg / "autoboot.txt"));
  ASSERT_FALSE(fs::exists(bootcfg / "config.txt"));

  CheckOptions o{.boot_dir = bootcfg, .scan_usb = false, .board = piprov::PiBoard::Pi5, .device = disk.loop->path};
  auto ok = check_boot(o);
  EXPECT_TRUE(ok.ok()) << testing::PrintToString(autoboot_failing(ok));
  ASSERT_TRUE(ok.autoboot);
  EXPECT_EQ(ok.autoboot->file.partition.value_or(-1), 2);
  EXPECT_EQ(ok.autoboot->followed, disk.p(2));
  EXPECT_EQ(std::string(layout_name(ok.layout.id)), "raspios");
  EXPECT_EQ(ok.resolved.kernel, "kernel_2712.img");
  const auto* part = autoboot_find(ok, "autoboot-partition");
  ASSERT_TRUE(part);
  EXPECT_NE(part->message.find(disk.p(2) + " (vfat, LABEL=BOOT)"), std::string::npos) << part->message;
  const auto* tb = autoboot_find(ok, "autoboot-tryboot-partition");
  ASSERT_TRUE(tb);
  EXPECT_NE(tb->message.find("[tryboot] partition 3 (" + disk.p(3) + ") is bootable"), std::string::npos)
      << tb->message;
  EXPECT_EQ(
      ok.headline().rfind(
          "autoboot.txt → partition 2 ([tryboot] partition 3, tryboot_a_b=1) (" + disk.p(2) + "): layout raspios", 0),
      0u)
      << ok.headline();

  const std::string cmd =
      piprov::test::piprov_bin() + " boot check " + q(bootcfg.string()) + " --board pi5 --device " + disk.loop->path;
  auto c = run(cmd + " --json");
  EXPECT_EQ(c.exit_code, 0) << c.out << c.err;
  EXPECT_NE(c.out.find("\"followed\": \"" + disk.p(2) + "\""), std::string::npos) << c.out;

  // A plain directory is never followed without --device (it would read the host's disk).
  auto plain = check_boot(CheckOptions{.boot_dir = bootcfg, .scan_usb = false, .board = piprov::PiBoard::Pi5});
  ASSERT_TRUE(plain.autoboot);
  EXPECT_EQ(plain.autoboot->followed, "");
  EXPECT_TRUE(autoboot_find(plain, "autoboot-not-followed"));
  auto pc = run(piprov::test::piprov_bin() + " boot check " + q(bootcfg.string()) + " --board pi5");
  EXPECT_EQ(pc.exit_code, 0) << pc.out << pc.err;
  EXPECT_EQ(pc.out.rfind("layout autoboot (autoboot.txt only): boots partition 2 ([tryboot] partition 3, "
                         "tryboot_a_b=1); boot files not checked (pass --device DEV)\n",
                         0),
            0u)
      << pc.out;
  auto pp = run(piprov::test::piprov_bin() + " boot patch " + q(bootcfg.string()));
  EXPECT_EQ(pp.exit_code, 2) << pp.out << pp.err;
  EXPECT_NE(pp.err.find("holds only autoboot.txt (boot_partition=2): mount partition 2"), std::string::npos) << pp.err;

  // An empty [tryboot] partition is an info only: a failed trial boot falls back to partition 2.
  disk.mtools(3, "mdel ::/config.txt");
  auto tb_bad = check_boot(o);
  EXPECT_TRUE(tb_bad.ok()) << testing::PrintToString(autoboot_failing(tb_bad));
  tb = autoboot_find(tb_bad, "autoboot-tryboot-partition");
  ASSERT_TRUE(tb);
  EXPECT_NE(tb->message.find("[tryboot] partition 3 has no config.txt"), std::string::npos) << tb->message;

  // Partition 2 loses its kernels (without kernel_2712.img a Pi 5 falls back to kernel8.img):
  // kernel-missing, naming p2, no temporary path.
  disk.mtools(2, "mdel ::/kernel_2712.img");
  EXPECT_EQ(autoboot_failing(check_boot(o)), std::vector<std::string>{"kernel-fallback"});
  disk.mtools(2, "mdel ::/kernel8.img");
  auto bad = check_boot(o);
  EXPECT_EQ(autoboot_failing(bad), std::vector<std::string>{"kernel-missing"});
  const auto* km = autoboot_find(bad, "kernel-missing");
  ASSERT_TRUE(km);
  EXPECT_EQ(km->message.rfind(disk.p(2) + ": ", 0), 0u) << km->message;
  EXPECT_EQ(km->message.find("piprov-autoboot"), std::string::npos) << km->message;
  EXPECT_EQ(km->fix.find("piprov-autoboot"), std::string::npos) << km->fix;
  auto cb = run(cmd);
  EXPECT_EQ(cb.exit_code, 1) << cb.out << cb.err;
  EXPECT_NE(cb.out.find(disk.p(2) + ": "), std::string::npos) << cb.out;

  // Partition 2 without config.txt: not bootable; nothing more of it is checked.
  disk.mtools(2, "mdel ::/config.txt");
  EXPECT_EQ(autoboot_failing(check_boot(o)), std::vector<std::string>{"autoboot-partition-not-bootable"});

  // Partition 2 is not FAT.
  auto r = run("mkfs.ext4 -q -F " + disk.p(2));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto nf = check_boot(o);
  EXPECT_EQ(autoboot_failing(nf), std::vector<std::string>{"autoboot-partition-not-fat"});
  EXPECT_NE(autoboot_find(nf, "autoboot-partition-not-fat")->message.find("partition 2 (" + disk.p(2) + ") "),
            std::string::npos);
  // Its fix: boot_partition= first, naming the FAT partitions; formatting p2 only as what it would
  // erase (was "format p2 as FAT (mkfs.vfat) ..." first, which wipes the ext4 root fs).
  const std::string nf_fix = autoboot_find(nf, "autoboot-partition-not-fat")->fix;
  EXPECT_EQ(nf_fix, "set boot_partition= to the FAT partition that holds the boot files (FAT on " + disk.loop->path +
                        ": partition 1, 3); formatting " + disk.p(2) +
                        " as FAT (mkfs.vfat) would erase its ext4 file system and everything on it");

  // boot_partition=5 is not on the disk.
  piprov::test::write_file(bootcfg / "autoboot.txt", "boot_partition=5\n");
  auto miss = check_boot(o);
  EXPECT_EQ(autoboot_failing(miss), std::vector<std::string>{"autoboot-partition-missing"});
  EXPECT_NE(autoboot_find(miss, "autoboot-partition-missing")->message.find("4 (ext4, LABEL=pva"), std::string::npos)
      << autoboot_find(miss, "autoboot-partition-missing")->message;

  // rpi-image-gen's slots: config.txt with boot_ramdisk=1 and boot.img (a FAT image): not a missing kernel.
  piprov::test::write_file(t.path / "slot/config.txt", "boot_ramdisk=1\n");
  piprov::test::write_file(t.path / "slot/boot.img", std::string(4096, '\0'));
  disk.mtools(3, "mcopy -o " + q((t.path / "slot/config.txt").string()) + " " + q((t.path / "slot/boot.img").string()) +
                     " ::/");
  piprov::test::write_file(bootcfg / "autoboot.txt", "boot_partition=3\n");
  auto rd = check_boot(o);
  EXPECT_EQ(autoboot_failing(rd), std::vector<std::string>{});
  ASSERT_TRUE(autoboot_find(rd, "autoboot-ramdisk"));
  EXPECT_EQ(rd.autoboot->followed, disk.p(3));
  // Nothing resolved a kernel: the report says so, never "kernel ," (issue 19, round 3).
  EXPECT_EQ(rd.headline(),
            "autoboot.txt → partition 3 (" + disk.p(3) +
                "): boots boot.img (boot_ramdisk=1): its kernel, cmdline and config.txt were not checked");
  EXPECT_EQ(rd.summary(), "OK (partition " + disk.p(3) + " boots boot.img; its kernel was not checked)");
  disk.mtools(3, "mdel ::/boot.img");
  EXPECT_EQ(autoboot_failing(check_boot(o)), std::vector<std::string>{"autoboot-partition-not-bootable"});
}
