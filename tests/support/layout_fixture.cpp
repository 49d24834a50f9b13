#include "support/layout_fixture.hpp"

#include <cstdlib>
#include <stdexcept>

#include "support/boot_fixture.hpp"
#include "support/testsupport.hpp"

namespace fs = std::filesystem;
using piprov::test::read_file;
using piprov::test::write_file;

namespace piprov::boot::test {
namespace {

std::string config_file(const fs::path& dir, const std::string& name) {
  if (!fs::exists(dir / name)) throw std::runtime_error((dir / name).string() + " is missing");
  return read_file(dir / name);
}

// The first line of a shared config file that is a "# SOURCE: ..." note is not part of the file.
std::string without_source(std::string text) {
  if (text.rfind("# SOURCE:", 0) == 0) text.erase(0, text.find('\n') + 1);
  return text;
}

std::string os_release(const std::string& id, const std::string& version_id, const std::string& version,
                       const std::string& codename, const std::string& pretty) {
  return "PRETTY_NAME=\"" + pretty + "\"\nNAME=\"" + (id == "ubuntu" ? "Ubuntu" : "Debian GNU/Linux") +
         "\"\nVERSION_ID=\"" + version_id + "\"\nVERSION=\"" + version + "\"\nVERSION_CODENAME=" + codename +
         "\nID=" + id + "\n";
}

std::string dpkg_status(const std::vector<std::string>& packages) {
  std::string out;
  for (const auto& p : packages)
    out += "Package: " + p + "\nStatus: install ok installed\nArchitecture: arm64\nVersion: 1.0\n\n";
  return out;
}

void ubuntu_root(const fs::path& root, const std::string& version_id, const std::string& version,
                 const std::string& codename, std::vector<std::string> packages) {
  write_file(root / "etc/os-release",
             os_release("ubuntu", version_id, version, codename, "Ubuntu " + version.substr(0, version.find(" ("))));
  write_file(root / "var/lib/dpkg/status", dpkg_status(packages));
}

void gzip_kernel(const fs::path& file, std::uint32_t seed) { compress_to(file, fake_image(200000, seed), "gzip -n"); }

}  // namespace

const std::vector<Stock>& stock_layouts() {
  static const std::vector<Stock> all = {
      {"focal", "ubuntu-uboot", "Ubuntu 20.04 LTS", false, "Mar 10 2020"},
      {"focal-fixed", "ubuntu-uboot", "Ubuntu 20.04 LTS", false, "Mar 10 2020"},
      {"focal-late", "ubuntu-uboot", "Ubuntu 20.04 LTS", false, "Feb 25 2021"},
      {"groovy", "ubuntu-direct", "Ubuntu 20.10", false, "Oct 22 2020"},
      {"jammy", "ubuntu-direct", "Ubuntu 22.04 LTS", false, "Mar 24 2022"},
      {"noble", "ubuntu-direct", "Ubuntu 24.04 LTS", true, "Feb 29 2024"},
      {"questing", "ubuntu-ab", "Ubuntu 25.10", true, "Jul  1 2025"},
      {"raspios-2019", "raspios", "Raspberry Pi OS (buster)", false, "Sep 20 2019"},
      {"bookworm", "raspios", "Raspberry Pi OS (bookworm)", true, "Nov 29 2023"},
      {"bootfix", "legacy-vmlinux", "Ubuntu 20.04 LTS", false, "Mar 10 2020"},
  };
  return all;
}

const Stock& stock(const std::string& name) {
  for (const auto& s : stock_layouts())
    if (s.name == name) return s;
  throw std::runtime_error("no stock layout " + name);
}

void write_start4(const fs::path& file, const std::string& date) {
  std::string body(4096, '\x7f');
  using namespace std::string_literals;  // "..."s keeps the NULs
  body += "VC_BUILD_ID_TIME: 14:03:16\0\0VC_BUILD_ID_VARIANT: start\0\0VC_BUILD_ID_TIME: "s + date +
          "\0\0\0VC_BUILD_ID_BRANCH: bcm2711_2\0"s;
  body += std::string(4096, '\x01');
  write_file(file, body);
}

void make_stock_boot(const Stock& s, const fs::path& dir, const fs::path& boot, const fs::path& root) {
  const std::string n = s.name;
  fs::create_directories(boot);
  fs::create_directories(root / "etc/apt/apt.conf.d");
  if (*s.fw_date) write_start4(boot / "start4.elf", s.fw_date);
  auto cfg = [&](const std::string& name) { return without_source(config_file(dir, name)); };
  if (n == "focal" || n == "focal-fixed" || n == "focal-late" || n == "bootfix") {
    const char* main = n == "focal"         ? "01-ubuntu2004-ga-config.txt"
                       : n == "focal-fixed" ? "02-ubuntu2004-config-fixed.txt"
                       : n == "focal-late"  ? "05-ubuntu-focal-late.txt"
                                            : "17-theremote-bootfix-generated.txt";
    write_file(boot / "config.txt", cfg(main));
    write_file(boot / "syscfg.txt", cfg("03-ubuntu2004-syscfg.txt"));
    write_file(boot / "usercfg.txt", cfg("04-ubuntu2004-usercfg.txt"));
    write_file(boot / "cmdline.txt", cfg("cmdline-01-ubuntu2004.txt"));
    write_file(boot / "nobtcmd.txt", cfg("cmdline-01-ubuntu2004.txt"));
    write_file(boot / "uboot_rpi_4.bin", "u-boot");
    gzip_kernel(boot / "vmlinuz", 21);
    write_file(boot / "initrd.img", std::string("\x1f\x8b fake initrd", 15));
    write_dtbs(boot, false);
    ubuntu_root(root, "20.04", "20.04.6 LTS (Focal Fossa)", "focal", {"flash-kernel"});
    if (n == "bootfix") {
      write_file(boot / "vmlinux", fake_image(200000, 21));
      write_file(boot / "auto_decompress_kernel", config_file(dir, "legacy-hook-auto_decompress_kernel.sh"));
      write_file(root / "etc/apt/apt.conf.d/999_decompress_rpi_kernel",
                 config_file(dir, "legacy-hook-999_decompress_rpi_kernel.txt"));
    }
    return;
  }
  if (n == "groovy" || n == "jammy" || n == "noble") {
    write_file(boot / "config.txt", cfg(n == "groovy"  ? "06-ubuntu2010-no-uboot.txt"
                                        : n == "jammy" ? "07-ubuntu2204.txt"
                                                       : "14-ubuntu2404-noble-server-config.txt"));
    write_file(boot / "cmdline.txt",
               cfg(n == "noble" ? "cmdline-03-ubuntu2404-noble-server.txt" : "cmdline-02-ubuntu2204-jammy-server.txt"));
    gzip_kernel(boot / "vmlinuz", 22);
    write_file(boot / "initrd.img", std::string("\x1f\x8b fake initrd", 15));
    write_dtbs(boot, s.pi5);
    if (n == "groovy") ubuntu_root(root, "20.10", "20.10 (Groovy Gorilla)", "groovy", {"flash-kernel"});
    if (n == "jammy") ubuntu_root(root, "22.04", "22.04.5 LTS (Jammy Jellyfish)", "jammy", {"flash-kernel"});
    if (n == "noble") ubuntu_root(root, "24.04", "24.04.1 LTS (Noble Numbat)", "noble", {"flash-kernel"});
    return;
  }
  if (n == "questing") {
    write_file(boot / "config.txt", cfg("15-ubuntu2510-questing-server-config.txt"));
    write_file(boot / "autoboot.txt", cfg("autoboot-01-ubuntu2510-questing.txt"));
    write_file(boot / "current/cmdline.txt", cfg("cmdline-04-ubuntu2510-questing-server-current.txt"));
    gzip_kernel(boot / "current/vmlinuz", 23);
    write_file(boot / "current/initrd.img", std::string("\x1f\x8b fake initrd", 15));
    write_dtbs(boot / "current");  // os_prefix=current/: the DTBs live in the slot
    ubuntu_root(root, "25.10", "25.10 (Questing Quokka)", "questing", {"flash-kernel", "piboot-try"});
    return;
  }
  // Raspberry Pi OS: pi-gen's cmdline template with the root= an image build writes.
  std::string cmdline = cfg("cmdline-05-raspios-bookworm-template.txt");
  cmdline.replace(cmdline.find("ROOTDEV"), 7, "PARTUUID=4e639091-02");
  write_file(boot / "cmdline.txt", cmdline);
  write_file(root / "etc/rpi-issue", "Raspberry Pi reference\n");
  // pi-gen's export-image stage writes issue.txt on the boot partition too.
  write_file(boot / "issue.txt", std::string("Raspberry Pi reference ") +
                                     (n == "raspios-2019" ? "2019-09-26" : "2023-12-05") +
                                     "\nGenerated using pi-gen, https://github.com/RPi-Distro/pi-gen\n");
  if (n == "raspios-2019") {
    write_file(boot / "config.txt", cfg("08-raspios-2019.txt"));
    write_file(boot / "kernel7l.img", fake_image(200000, 24));  // 32-bit kernels were uncompressed zImages
    write_file(boot / "kernel8.img", fake_image(200000, 25));   // 2019 firmware loads only an uncompressed Image
    write_dtbs(boot, false);
    write_file(root / "etc/os-release",
               os_release("raspbian", "10", "10 (buster)", "buster", "Raspbian GNU/Linux 10 (buster)"));
    return;
  }
  write_file(boot / "config.txt", cfg("16-raspios-bookworm-config.txt"));
  gzip_kernel(boot / "kernel8.img", 26);
  gzip_kernel(boot / "kernel_2712.img", 27);
  write_file(boot / "initramfs8", std::string("\x1f\x8b fake initramfs", 17));
  write_file(boot / "initramfs_2712", std::string("\x1f\x8b fake initramfs", 17));
  write_dtbs(boot);
  write_file(root / "etc/os-release",
             os_release("debian", "12", "12 (bookworm)", "bookworm", "Debian GNU/Linux 12 (bookworm)"));
}

std::string fetch_raspi_firmware_deb(const fs::path& out_dir) {
  const char* env = std::getenv("PIPROV_CACHE_DIR");
  const fs::path debs = fs::path(env && *env ? env : "/var/tmp/piprov-cache") / "debs";
  const fs::path deb = debs / "raspi-firmware.deb";
  using piprov::test::q;
  using piprov::test::run;
  if (!fs::exists(deb)) {
    piprov::test::TempDir t("piprov-fw");
    auto r = run("cd " + q(t.path.string()) + " && apt-get download -q raspi-firmware >/dev/null 2>&1 && mkdir -p " +
                 q(debs.string()) + " && mv raspi-firmware_*.deb " + q(deb.string()));
    if (r.exit_code != 0) return "apt-get download raspi-firmware failed (offline? the non-free-firmware component?)";
  }
  fs::create_directories(out_dir);
  auto r = run("dpkg-deb -x " + q(deb.string()) + " " + q(out_dir.string()));
  if (r.exit_code != 0) return "dpkg-deb -x raspi-firmware.deb failed: " + r.err;
  return "";
}

std::string fetch_real_start4(const fs::path& out) {
  piprov::test::TempDir x("piprov-fw-x");
  if (auto why = fetch_raspi_firmware_deb(x.path); !why.empty()) return why;
  fs::create_directories(out.parent_path());
  fs::copy_file(x.path / "usr/lib/raspi-firmware/start4.elf", out, fs::copy_options::overwrite_existing);
  return "";
}

}  // namespace piprov::boot::test
