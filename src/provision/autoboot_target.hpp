#pragma once
// provision on a disk whose first FAT partition holds only autoboot.txt (the
// A/B layout of rpi-eeprom issue 575 and rpi-image-gen's images: partition 1
// `[all] tryboot_a_b=1 boot_partition=2`, `[tryboot] boot_partition=3`,
// partitions 2 and 3 the FAT boot partitions). The bootloader boots partition
// N of `boot_partition=N` (Raspberry Pi documentation, config_txt:
// autoboot.txt), so the boot patch, the PARTUUID= rewrite, the seed and the
// boot check go there; partition 1 is only read. The [tryboot] partition gets
// its cmdline files' PARTUUID= rewritten (a trial boot must find its root too)
// and nothing else (docs/provision.md, "provision on a disk that boots through autoboot.txt").
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "boot/autoboot.hpp"
#include "core/blockdev.hpp"
#include "image/disk_identity.hpp"

namespace piprov::provision {

/// Where autoboot.txt sends the bootloader on one disk.
struct AutobootBoot {
  std::string autoboot_partition;    ///< the partition holding autoboot.txt ("/dev/loop3p1")
  boot::Autoboot file;               ///< autoboot.txt as the bootloader reads it
  Partition boot;                    ///< partition boot_partition=N: provision's boot partition
  std::optional<Partition> tryboot;  ///< the [tryboot] partition when it is FAT and not `boot`
  std::string tryboot_note;          ///< why the [tryboot] partition is left alone ("" when it is used or unset)
  std::vector<std::string> tryboot_rewritten;  ///< its cmdline files whose PARTUUID= were rewritten
  /// "autoboot.txt boot_partition=2" (what the output and the JSON give as the reason).
  std::string reason() const;
};

/// What `disk`'s autoboot.txt `a` (read from `first_fat`) means for provision:
/// partition N of boot_partition=N must exist and be FAT; the [tryboot]
/// partition is kept when it is FAT (else tryboot_note says why not).
/// Throws Error{Usage}, one line naming autoboot.txt, N and the disk's
/// partitions, when there is no usable boot_partition (unset, 0, not a number,
/// missing, not FAT, > 4 on MBR). Pure: no I/O.
AutobootBoot plan_autoboot(const Disk& disk, const Partition& first_fat, const boot::Autoboot& a);

/// plan_autoboot() for `disk` (as probed) when its FAT partition `first_fat`
/// holds autoboot.txt and no config.txt (read through a read-only mount, else
/// mtools); nullopt for any other boot partition. Throws Error{Usage} as
/// plan_autoboot(), Error{Io} when `first_fat` cannot be read.
std::optional<AutobootBoot> follow_autoboot(const Disk& disk, const Partition& first_fat);

/// Rewrites PARTUUID= (old -> new of `id`) in the cmdline files (first_boot.hpp
/// cmdline_files()) of the FAT partition `p`, mounted in a private temp dir
/// (or copied out, rewritten and written back with mtools when vfat cannot be
/// mounted). Returns the files rewritten. Throws Error{Io}.
std::vector<std::string> rewrite_partition_partuuids(const Partition& p, const image::DiskIdentity& id);

/// Why provision took `boot` as the boot partition: the autoboot reason when
/// `ab` is set, else "LABEL=system-boot" or "the first FAT partition".
std::string boot_partition_reason(const Partition& boot, const std::optional<AutobootBoot>& ab);

/// The partitions step's addition: " (autoboot.txt boot_partition=2 on /dev/sdb1; [tryboot] partition 3:
/// /dev/sdb3)".
std::string autoboot_partitions_text(const AutobootBoot& ab);

/// The seed step's addition for the [tryboot] partition: "; [tryboot] partition 3 (/dev/sdb3): PARTUUID=
/// rewritten in cmdline.txt, no seed (...)", or tryboot_note.
std::string autoboot_seed_text(const AutobootBoot& ab);

/// provision --json's "autoboot" of a target: null, or {"autoboot_partition", "boot_partition",
/// "tryboot_partition", "tryboot_a_b", "tryboot_device", "tryboot_rewritten", "tryboot_note"}
/// (partition numbers or null; device paths or "").
nlohmann::json autoboot_json(const std::optional<AutobootBoot>& ab);

}  // namespace piprov::provision
