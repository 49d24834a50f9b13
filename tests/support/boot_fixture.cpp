#include "support/boot_fixture.hpp"

#include <gtest/gtest.h>

#include <vector>

#include <stdexcept>

#include "core/hashing.hpp"
#include "support/testsupport.hpp"

namespace fs = std::filesystem;

namespace piprov::boot::test {

std::string uboot_binary() {
  std::string b(300000, '\0');
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<char>((i * 2654435761u) >> 24);
  const std::string v = std::string("U-Boot 2024.01 (Jan 08 2024 - 12:00:00 +0000)") + '\0';
  b.replace(150000, v.size(), v);
  b.replace(0x38, 4, "\0\0\0\0", 4);
  return b;
}

std::string mkimage_script(const std::string& script, const std::string& extra) {
  piprov::test::TempDir d("piprov-bootscr");
  piprov::test::write_file(d.path / "boot.cmd", script);
  auto r = piprov::test::run("mkimage -A arm64 -O linux " + extra + " -d " +
                             piprov::test::q((d.path / "boot.cmd").string()) + " " +
                             piprov::test::q((d.path / "boot.scr").string()));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  return r.exit_code == 0 ? piprov::test::read_file(d.path / "boot.scr") : std::string();
}

std::string fake_image(std::size_t size, std::uint32_t seed) {
  std::string s(size, '\0');
  std::uint32_t x = seed ? seed : 1;
  for (std::size_t i = 64; i < size; ++i) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    // Half the bytes zero so gzip has something to do, like a real kernel.
    s[i] = (i / 512) % 2 ? static_cast<char>(x) : '\0';
  }
  s[0] = 'M';
  s[1] = 'Z';
  s.replace(0x38, 4, std::string("ARM\x64", 4));
  return s;
}

void compress_to(const fs::path& out, const std::string& content, const std::string& tool) {
  piprov::test::TempDir d("piprov-fixture");
  piprov::test::write_file(d.path / "in", content);
  std::string cmd = tool == "cat" ? "cat" : tool + " -c";
  auto r = piprov::test::run(cmd + " < '" + (d.path / "in").string() + "' > '" + out.string() + "'");
  if (r.exit_code != 0) throw std::runtime_error(tool + " failed: " + r.err);
}

std::string sha256(const std::string& s) {
  Sha256 h;
  h.update({reinterpret_cast<const std::byte*>(s.data()), s.size()});
  return h.hex();
}

const char* const kUbuntuGaConfig =
    "# Please DO NOT modify this file; if you need to modify the boot config, the\n"
    "# \"usercfg.txt\" file is the place to include user changes. Please refer to\n"
    "# the README file for a description of the various configuration files on\n"
    "# the boot partition.\n"
    "\n"
    "[pi4]\n"
    "kernel=uboot_rpi_4.bin\n"
    "max_framebuffers=2\n"
    "\n"
    "[pi2]\n"
    "kernel=uboot_rpi_2.bin\n"
    "\n"
    "[pi3]\n"
    "kernel=uboot_rpi_3.bin\n"
    "\n"
    "[all]\n"
    "arm_64bit=1\n"
    "device_tree_address=0x03000000\n"
    "\n"
    "enable_uart=1\n"
    "cmdline=nobtcmd.txt\n"
    "\n"
    "include syscfg.txt\n"
    "include usercfg.txt\n";

const char* const kUbuntuCmdline =
    "net.ifnames=0 dwc_otg.lpm_enable=0 console=serial0,115200 console=tty1 root=LABEL=writable rootfstype=ext4 "
    "elevator=deadline rootwait fixrtc\n";

void write_dtbs(const fs::path& dir, bool pi5) {
  fs::create_directories(dir);
  std::vector<const char*> names{"bcm2711-rpi-4-b.dtb", "bcm2711-rpi-400.dtb", "bcm2711-rpi-cm4.dtb"};
  if (pi5) names.insert(names.end(), {"bcm2712-rpi-5-b.dtb", "bcm2712-rpi-500.dtb", "bcm2712-rpi-cm5-cm5io.dtb"});
  for (const char* n : names)
    piprov::test::write_file(dir / n, std::string("\xd0\x0d\xfe\xed", 4) + std::string(252, '\0'));
}

void make_boot_dir(const fs::path& dir, const std::string& image) {
  using piprov::test::write_file;
  fs::create_directories(dir);
  compress_to(dir / "vmlinuz", image);
  write_file(dir / "initrd.img", std::string("\x1f\x8b fake initrd", 15));
  write_file(dir / "config.txt", kUbuntuGaConfig);
  write_file(dir / "syscfg.txt", "enable_uart=1\ndtparam=audio=on\ncmdline=cmdline.txt\n");
  write_file(dir / "usercfg.txt", "# Place \"config.txt\" changes in this file.\n");
  write_file(dir / "cmdline.txt", kUbuntuCmdline);
  write_file(dir / "nobtcmd.txt", kUbuntuCmdline);
  write_file(dir / "uboot_rpi_4.bin", "u-boot");
  write_dtbs(dir, false);  // Ubuntu 20.04 predates the Pi 5
}

BootTree::BootTree() {
  make_boot_dir(boot, image);
  fs::create_directories(root / "etc/apt/apt.conf.d");
}

piprov::Disk raspios_image_disk(const std::string& name) {
  piprov::Disk d;
  d.path = name;
  piprov::Partition p1, p2;
  p1.number = 1;
  p1.path = name + " partition 1";
  p1.fstype = "vfat";
  p1.label = "bootfs";
  p1.uuid = "91FE-7499";
  p1.partuuid = "6c586e13-01";
  p2.number = 2;
  p2.path = name + " partition 2";
  p2.fstype = "ext2/3/4";
  p2.label = "rootfs";
  p2.uuid = "56f80fa2-e005-4cca-86e6-19da1069914d";
  p2.partuuid = "6c586e13-02";
  d.partitions = {p1, p2};
  return d;
}

std::string findings_text(const piprov::boot::CheckReport& report) {
  std::string s;
  for (const auto& f : report.findings) s += f.rule + ": " + f.message + " | " + f.fix + "\n";
  return s;
}

piprov::boot::CheckReport check_on_image_disk(const std::filesystem::path& boot, bool on_disk,
                                              const std::string& name) {
  piprov::boot::CheckOptions o;
  o.boot_dir = boot;
  o.scan_usb = false;
  o.board = PiBoard::Pi4;
  if (on_disk) {
    o.disk = raspios_image_disk(name);
    o.disk_partuuids = true;
    o.disk_labels = true;
  }
  return piprov::boot::check_boot(o);
}

}  // namespace piprov::boot::test
