#include "support/debian_raspi_fixture.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include "support/boot_fixture.hpp"
#include "support/layout_fixture.hpp"

namespace fs = std::filesystem;

namespace piprov::boot::test {

HookGeneratedTree::HookGeneratedTree() {
  using piprov::test::q;
  using piprov::test::read_file;
  using piprov::test::run;
  using piprov::test::write_file;
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
      "DEB_MAINT_PARAMS=configure sh " + q(hook.string()) + "\n" + "cp -a /boot/firmware/. " + q(boot.string()) + "/\n";
  write_file(t.path / "run-hook.sh", script);
  auto r = run("unshare --mount --propagation private sh " + q((t.path / "run-hook.sh").string()));
  if (r.exit_code != 0) {
    why_not = "the raspi-firmware hook failed under unshare: " + r.err;
    return;
  }
  for (const char* f : {"start4.elf", "fixup4.dat"}) fs::copy_file(deb / "usr/lib/raspi-firmware" / f, boot / f);
  // The hook copies the kernel package's bcm*-rpi-*.dtb; this fake kernel has none, so they are written here.
  piprov::boot::test::write_dtbs(boot);
  write_file(root / "etc/default/raspi-firmware", read_file(etc_default / "raspi-firmware"));
  write_file(root / "etc/kernel/postinst.d/z50-raspi-firmware", read_file(hook));
  write_file(root / "etc/os-release",
             "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nNAME=\"Debian GNU/Linux\"\nVERSION_ID=\"12\"\n"
             "VERSION_CODENAME=bookworm\nID=debian\n");
  fs::create_directories(root / "etc/apt/apt.conf.d");
  write_file(root / "var/lib/dpkg/status",
             "Package: raspi-firmware\nStatus: install ok installed\nVersion: 1.20220830+ds-1\n\n");
}

}  // namespace piprov::boot::test
