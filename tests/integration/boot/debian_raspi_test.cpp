// debian-raspi on a boot partition written by Debian's own raspi-firmware
// kernel hook (/etc/kernel/postinst.d/z50-raspi-firmware of the raspi-firmware
// package, fetched with apt-get download at test time and cached). The hook runs
// unchanged, as root, in a private mount namespace: tmpfs on /boot and
// /boot/firmware (its mount-point check), a fake arm64 kernel and initrd in /boot,
// and /etc/default bind-mounted on a dir holding the image's settings
// (ROOTPART=LABEL=RASPIROOT, as https://raspi.debian.net's images set it).
// KERNEL_ARCH=arm64 because dpkg --print-architecture is the host's here;
// CONSOLES and CMA=0 make the output what a Pi 4 gets (no host /dev/ttyS1, no
// device tree). Then `piprov boot check --board pi4` must pass and `boot patch`
// must change no byte.
#include <gtest/gtest.h>
#include <unistd.h>

#include <regex>

#include "support/boot_fixture.hpp"
#include "support/layout_fixture.hpp"
#include "support/testsupport.hpp"

namespace fs = std::filesystem;
using piprov::test::q;
using piprov::test::read_file;
using piprov::test::read_tree;
using piprov::test::run;
using piprov::test::TempDir;
using piprov::test::write_file;

namespace {

constexpr const char* kHookKernelVersion = "6.1.0-99-arm64";

// BOOT: what the hook wrote, plus the firmware files the package's postinst copies.
// ROOT: the package's hook and settings, Debian 12's os-release, dpkg status.
struct HookGeneratedTree {
  TempDir t{"piprov-debian-raspi"};
  fs::path deb = t.path / "deb", boot = t.path / "boot", root = t.path / "root";
  std::string why_not;  ///< "" when made

  HookGeneratedTree() {
    if (geteuid() != 0) {
      why_not = "needs root (mounts in a private mount namespace)";
      return;
    }
    if (auto why = piprov::boot::test::fetch_raspi_firmware_deb(deb); !why.empty()) {
      why_not = why;
      return;
    }
    const fs::path hook = deb / "etc/kernel/postinst.d/z50-raspi-firmware";
    std::string defaults = read_file(deb / "etc/default/raspi-firmware");
    // what image-specs' recipe does: sed -i 's/^#ROOTPART=.*/ROOTPART=LABEL=RASPIROOT/'
    auto at = defaults.find("\n#ROOTPART=");
    EXPECT_NE(at, std::string::npos) << "raspi-firmware's defaults have no #ROOTPART= line";
    if (at != std::string::npos) {
      auto eol = defaults.find('\n', at + 1);
      defaults.replace(at + 1, eol - at - 1, "ROOTPART=LABEL=RASPIROOT");
    }
    const fs::path etc_default = t.path / "etc-default";
    write_file(etc_default / "raspi-firmware",
               defaults + "KERNEL_ARCH=\"arm64\"\nCONSOLES=\"tty0 ttyS1,115200\"\nCMA=0\n");
    write_file(t.path / "vmlinuz", piprov::boot::test::fake_image(300000, 43));  // Debian's arm64 vmlinuz: an Image
    write_file(t.path / "initrd.img", std::string("\x1f\x8b fake initramfs", 17));
    fs::create_directories(boot);
    const std::string v = kHookKernelVersion;
    std::string script =
        "set -e\n"
        "mount -t tmpfs tmpfs /boot\n"
        "mkdir -p /boot/firmware\n"
        "mount -t tmpfs tmpfs /boot/firmware\n"
        "cp " +
        q((t.path / "vmlinuz").string()) + " /boot/vmlinuz-" + v + "\n" + "cp " + q((t.path / "initrd.img").string()) +
        " /boot/initrd.img-" + v + "\n" + "mount --bind " + q(etc_default.string()) + " /etc/default\n" +
        "DEB_MAINT_PARAMS=configure sh " + q(hook.string()) + "\n" + "cp -a /boot/firmware/. " + q(boot.string()) +
        "/\n";
    write_file(t.path / "run-hook.sh", script);
    auto r = run("unshare --mount --propagation private sh " + q((t.path / "run-hook.sh").string()));
    if (r.exit_code != 0) {
      why_not = "the raspi-firmware hook failed under unshare: " + r.err;
      return;
    }
    for (const char* f : {"start4.elf", "fixup4.dat"}) fs::copy_file(deb / "usr/lib/raspi-firmware" / f, boot / f);
    write_file(root / "etc/default/raspi-firmware", read_file(etc_default / "raspi-firmware"));
    write_file(root / "etc/kernel/postinst.d/z50-raspi-firmware", read_file(hook));
    write_file(root / "etc/os-release",
               "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nNAME=\"Debian GNU/Linux\"\nVERSION_ID=\"12\"\n"
               "VERSION_CODENAME=bookworm\nID=debian\n");
    fs::create_directories(root / "etc/apt/apt.conf.d");
    write_file(root / "var/lib/dpkg/status",
               "Package: raspi-firmware\nStatus: install ok installed\nVersion: 1.20220830+ds-1\n\n");
  }
};

}  // namespace

TEST(BootDebianRaspi, HookGeneratedBootChecksOkAndPatchChangesNoByte) {
  PIPROV_REQUIRE_TOOL("unshare");
  PIPROV_REQUIRE_TOOL("dpkg-deb");
  HookGeneratedTree tr;
  if (!tr.why_not.empty()) PIPROV_SKIP(tr.why_not);
  const std::string v = kHookKernelVersion;
  // What the hook wrote (the package's own text, not piprov's).
  const std::string config = read_file(tr.boot / "config.txt");
  EXPECT_EQ(config.substr(0, 26), "# Do not modify this file!");
  EXPECT_NE(config.find("\nkernel=vmlinuz-" + v + "\n"), std::string::npos) << config;
  EXPECT_NE(config.find("\ninitramfs initrd.img-" + v + "\n"), std::string::npos) << config;
  EXPECT_NE(read_file(tr.boot / "cmdline.txt").find("root=LABEL=RASPIROOT rw"), std::string::npos);
  ASSERT_TRUE(fs::is_regular_file(tr.boot / ("vmlinuz-" + v)));

  const std::string bin = piprov::test::piprov_bin(), b = q(tr.boot.string()), r = q(tr.root.string());
  const auto boot_before = read_tree(tr.boot), root_before = read_tree(tr.root);
  for (const std::string& root_opt : {std::string(""), " --root " + r}) {
    SCOPED_TRACE(root_opt);
    auto c = run(bin + " boot check " + b + " --board pi4" + root_opt);
    EXPECT_EQ(c.exit_code, 0) << c.out << c.err;
    EXPECT_EQ(c.out.rfind("layout debian-raspi (", 0), 0u) << c.out;
    EXPECT_NE(c.out.find("boots from USB (kernel vmlinuz-" + v + ", initramfs initrd.img-" + v +
                         ", cmdline cmdline.txt, root=LABEL=RASPIROOT)"),
              std::string::npos)
        << c.out;
    auto j = run(bin + " boot check " + b + " --board pi4 --json" + root_opt);
    EXPECT_EQ(j.exit_code, 0) << j.out;
    EXPECT_NE(j.out.find("\"id\": \"debian-raspi\""), std::string::npos) << j.out;
    EXPECT_NE(j.out.find("\"warnings\": 0"), std::string::npos) << j.out;
    auto p = run(bin + " boot patch " + b + root_opt);
    EXPECT_EQ(p.exit_code, 0) << p.out << p.err;
    EXPECT_NE(p.out.find("nothing to patch: raspi-firmware's kernel hook"), std::string::npos) << p.out;
    auto pj = run(bin + " boot patch " + b + " --json" + root_opt);
    EXPECT_EQ(pj.exit_code, 0) << pj.out << pj.err;
    EXPECT_NE(pj.out.find("\"changed\": false"), std::string::npos) << pj.out;
  }
  auto rel = run(bin + " boot check " + b + " --board pi4 --root " + r);
  EXPECT_NE(rel.out.find("(Debian GNU/Linux 12 (bookworm))"), std::string::npos) << rel.out;
  EXPECT_EQ(read_tree(tr.boot), boot_before);  // every byte
  EXPECT_EQ(read_tree(tr.root), root_before);
}

// provision of a Debian-style image (p1 FAT RASPIFIRM holding what the hook wrote, p2 ext4
// RASPIROOT, as raspi.debian.net's images are laid out): the layout is detected, nothing is
// patched, the boot partition stays byte-identical and the final check is OK.
TEST(ProvisionDebianRaspi, HookGeneratedImageChangesNothing) {
  PIPROV_REQUIRE_LOOP();
  PIPROV_REQUIRE_TOOL("unshare");
  PIPROV_REQUIRE_TOOL("dpkg-deb");
  PIPROV_REQUIRE_TOOL("mkfs.vfat");
  PIPROV_REQUIRE_TOOL("mcopy");
  PIPROV_REQUIRE_TOOL("sfdisk");
  HookGeneratedTree tr;
  if (!tr.why_not.empty()) PIPROV_SKIP(tr.why_not);
  const fs::path d = tr.t.path;
  // The root fs of the image: the root dir of the tree, made with mke2fs -d (no mount).
  auto mk = run("cd " + q(d.string()) +
                " && truncate -s 32M boot.vfat && mkfs.vfat -n RASPIFIRM boot.vfat >/dev/null"
                " && MTOOLS_SKIP_CHECK=1 mcopy -s -i boot.vfat " +
                q(tr.boot.string()) + "/* ::/" +
                " && truncate -s 16M root.ext4 && mke2fs -q -F -t ext4 -L RASPIROOT -d " + q(tr.root.string()) +
                " root.ext4"
                " && truncate -s 50M debian.img"
                " && printf 'label: dos\\nstart=2048, size=65536, type=c\\nstart=67584, type=83\\n' | sfdisk -q "
                "debian.img"
                " && dd if=boot.vfat of=debian.img bs=1M seek=1 conv=notrunc status=none"
                " && dd if=root.ext4 of=debian.img bs=512 seek=67584 conv=notrunc status=none");
  ASSERT_EQ(mk.exit_code, 0) << mk.err;
  piprov::test::LoopDevice loop(d / "disk.img", 64ull << 20);
  auto r = run(piprov::test::piprov_bin() + " provision " + q((d / "debian.img").string()) + " " + loop.path +
               " --yes --progress none");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"((^|\n)\[5/9\] patch +\S+(?: s)?  layout debian-raspi )")))
      << r.out;
  EXPECT_NE(r.out.find("nothing to patch: raspi-firmware's kernel hook"), std::string::npos) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"((^|\n)\[7/9\] check +\S+(?: s)?  OK)"))) << r.out;
  EXPECT_NE(r.out.find("provision: " + loop.path + " is ready: "), std::string::npos) << r.out;
  auto cmp =
      run("cmp -n " + std::to_string(32ull << 20) + " " + q((d / "boot.vfat").string()) + " " + loop.path + "p1");
  EXPECT_EQ(cmp.exit_code, 0) << "the boot partition differs from the image's: " << cmp.out << cmp.err;
}
