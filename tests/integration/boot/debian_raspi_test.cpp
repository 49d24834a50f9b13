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
// must change no byte (the tree: support/debian_raspi_fixture.hpp; provision of
// such an image: tests/integration/provision/debian_raspi_provision_test.cpp).
#include <gtest/gtest.h>

#include <regex>

#include "support/boot_fixture.hpp"
#include "support/debian_raspi_fixture.hpp"
#include "support/layout_fixture.hpp"
#include "support/testsupport.hpp"

namespace fs = std::filesystem;
using piprov::boot::test::HookGeneratedTree;
using piprov::boot::test::kHookKernelVersion;
using piprov::test::q;
using piprov::test::read_file;
using piprov::test::read_tree;
using piprov::test::run;

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
