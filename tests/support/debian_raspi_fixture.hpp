#pragma once
// A boot partition written by Debian's own raspi-firmware kernel hook
// (/etc/kernel/postinst.d/z50-raspi-firmware of the raspi-firmware package,
// fetched with apt-get download at test time and cached), and the root fs
// around it: the debian-raspi layout as raspi.debian.net's images have it.
// The hook runs unchanged, as root, in a private mount namespace: tmpfs on
// /boot and /boot/firmware (its mount-point check), a fake arm64 kernel and
// initrd in /boot, and /etc/default bind-mounted on a dir holding the image's
// settings (ROOTPART=LABEL=RASPIROOT). KERNEL_ARCH=arm64 because dpkg
// --print-architecture is the host's here; CONSOLES and CMA=0 make the output
// what a Pi 4 gets (no host /dev/ttyS1, no device tree). Used by boot's and
// provision's integration tests.
#include <filesystem>
#include <string>

#include "support/testsupport.hpp"

namespace piprov::boot::test {

/// The kernel version the hook is run for.
inline constexpr const char* kHookKernelVersion = "6.1.0-99-arm64";

/// BOOT: what the hook wrote, plus the firmware files the package's postinst copies.
/// ROOT: the package's hook and settings, Debian 12's os-release, dpkg status.
struct HookGeneratedTree {
  piprov::test::TempDir t{"piprov-debian-raspi"};
  std::filesystem::path deb = t.path / "deb", boot = t.path / "boot", root = t.path / "root";
  std::string why_not;  ///< "" when made; else why not (not root, no package, the hook failed)
  /// Runs the hook (needs root, unshare, dpkg-deb); sets why_not when it cannot.
  HookGeneratedTree();
};

}  // namespace piprov::boot::test
