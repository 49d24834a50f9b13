#pragma once
// Fixtures for boot tests: fake arm64 Images (real header magic, pseudo-random
// body), compressed with the real tools, and an Ubuntu 20.04-style boot dir.
#include <cstdint>
#include <filesystem>
#include <string>

#include "boot/check.hpp"
#include "core/blockdev.hpp"
#include "core/finding.hpp"
#include "support/testsupport.hpp"

namespace piprov::boot::test {

/// `size` bytes: an arm64 Image header ("ARM\x64" at 0x38) and a pseudo-random body from `seed`.
std::string fake_image(std::size_t size, std::uint32_t seed);
/// Writes `content` compressed with `tool` ("gzip -n", "xz", "zstd -q", "lz4 -l", "bzip2", "cat") to `out`.
void compress_to(const std::filesystem::path& out, const std::string& content, const std::string& tool = "gzip -n");
/// SHA-256 hex of a string.
std::string sha256(const std::string& s);
/// Writes the device trees of the Pi 4 family (bcm2711-rpi-4-b.dtb, -400, -cm4) and, with `pi5`,
/// of the Pi 5 family (bcm2712-rpi-5-b.dtb, -500, -cm5-cm5io) to `dir`, as a kernel package
/// puts them on the boot partition: a flattened device tree header (magic 0xd00dfeed) and filler.
void write_dtbs(const std::filesystem::path& dir, bool pi5 = true);
/// 300,000 bytes that are U-Boot by content (its version string "U-Boot 2024.01 (...)", no arm64
/// Image magic), as HAOS ships u-boot.bin.
std::string uboot_binary();
/// A boot.scr made by the real mkimage (Debian's u-boot-tools) from `script`: a 64-byte legacy
/// header, the length table, then the script text. `extra` sets mkimage's -T and -C. A test failure
/// (and "") when mkimage fails.
std::string mkimage_script(const std::string& script, const std::string& extra = "-T script -C none");
/// Ubuntu 20.04 GA config.txt (as in scripts/make-test-image.sh).
extern const char* const kUbuntuGaConfig;
extern const char* const kUbuntuCmdline;
/// Fills `dir` like Ubuntu 20.04's system-boot: vmlinuz (gzip of `image`), initrd.img,
/// config.txt, syscfg.txt, usercfg.txt, cmdline.txt, nobtcmd.txt, uboot_rpi_4.bin and the
/// Pi 4 family's device trees (write_dtbs).
void make_boot_dir(const std::filesystem::path& dir, const std::string& image);

/// The raspios test image as ImageTree lists it (MBR disk id 6c586e13; p1 FAT bootfs, p2 ext rootfs,
/// paths "NAME partition N"): the disk root= and fstab are judged against.
piprov::Disk raspios_image_disk(const std::string& name = "raspios.img");

/// `boot check` of `boot` on a Pi 4 as `boot check IMAGE` runs it on the raspios test image named
/// `name` (raspios_image_disk(), its PARTUUIDs and labels known), or with no known disk.
piprov::boot::CheckReport check_on_image_disk(const std::filesystem::path& boot, bool on_disk = true,
                                              const std::string& name = "raspios.img");

/// Every finding of `report` as "rule: message | fix", a line each: a failed assertion's context.
std::string findings_text(const piprov::boot::CheckReport& report);

/// Skips the test when mkimage (u-boot-tools) is missing: boot.scr fixtures are made by it.
#define PIPROV_REQUIRE_MKIMAGE()                                                                     \
  do {                                                                                               \
    if (auto why = piprov::test::tool_unavailable_reason("mkimage"); !why.empty()) PIPROV_SKIP(why); \
  } while (0)

/// A temp dir holding boot/ (make_boot_dir with a 400000-byte fake kernel) and
/// an empty root/ with etc/apt/apt.conf.d.
struct BootTree {
  piprov::test::TempDir t;
  std::filesystem::path boot = t.path / "boot", root = t.path / "root";
  std::string image = fake_image(400000, 11);
  BootTree();
};

/// The first finding of `report` (a boot check report, anything with .findings) whose rule is
/// `rule`; nullptr when there is none.
template <class Report>
const piprov::Finding* find_rule(const Report& report, const std::string& rule) {
  for (const auto& f : report.findings)
    if (f.rule == rule) return &f;
  return nullptr;
}

}  // namespace piprov::boot::test
