#pragma once
// Boot partitions (and root dirs) laid out like the real ones of each
// release, built at test time from ../shared/data/config-txt (canonical/pi-gadget,
// RPi-Distro/pi-gen configs): config + includes + cmdline + autoboot.txt, gzip
// arm64 kernels made by boot_fixture, a synthetic start4.elf with the
// firmware's build-id strings, and etc/os-release + var/lib/dpkg/status in ROOT.
#include <filesystem>
#include <string>
#include <vector>

namespace piprov::boot::test {

/// One stock layout.
struct Stock {
  const char* name;     ///< "noble"
  const char* layout;   ///< layout_name() expected: "ubuntu-direct"
  const char* release;  ///< release expected from ROOT/etc/os-release: "Ubuntu 24.04 LTS"
  bool pi5;             ///< the release supports the Pi 5
  const char* fw_date;  ///< start4.elf's __DATE__ ("Aug 26 2022"), "" for none
};

/// focal (20.04 GA), focal-late, groovy (20.10), jammy (22.04), noble (24.04),
/// questing (25.10 A/B), raspios-2019, bookworm (Raspberry Pi OS), bootfix (17: legacy-vmlinux).
const std::vector<Stock>& stock_layouts();
const Stock& stock(const std::string& name);

/// Fills BOOT and ROOT (both created) like `s`. Config files come from
/// `config_dir` (../shared/data/config-txt). Throws std::runtime_error when a file is missing.
void make_stock_boot(const Stock& s, const std::filesystem::path& config_dir, const std::filesystem::path& boot,
                     const std::filesystem::path& root);

/// A synthetic start4.elf: filler bytes around the strings raspberrypi/firmware
/// builds carry ("VC_BUILD_ID_TIME: 14:03:16\0\0VC_BUILD_ID_VARIANT: start\0\0VC_BUILD_ID_TIME: <date>\0").
void write_start4(const std::filesystem::path& file, const std::string& date);

/// Extracts Debian's raspi-firmware package (apt-get download, cached in $PIPROV_CACHE_DIR or
/// /var/tmp/piprov-cache as debs/raspi-firmware.deb) into `out_dir` (dpkg-deb -x). Returns "" on
/// success, else why not (offline?).
std::string fetch_raspi_firmware_deb(const std::filesystem::path& out_dir);

/// Extracts usr/lib/raspi-firmware/start4.elf of Debian's raspi-firmware
/// package (apt-get download, cached in $PIPROV_CACHE_DIR or /var/tmp/piprov-cache
/// as debs/raspi-firmware.deb) to `out`. Returns "" on success, else why not (offline?).
std::string fetch_real_start4(const std::filesystem::path& out);

}  // namespace piprov::boot::test
