#pragma once
// The two per-target passes of `provision` that make each disk its own node:
//  - identity (right after the write, nothing mounted): a new random disk
//    identifier (image::renew_disk_identity), so PARTUUIDs differ between the
//    disks and from the source image (raspberrypi/linux issue 5956);
//  - seed (boot and root fs mounted, after boot patch): `PARTUUID=` in every
//    cmdline file of the boot partition and in the root fs's /etc/fstab
//    rewritten to the new ids, then the cloud-init NoCloud seed written
//    (cloud_init.hpp: write_seed) when identity options were given and the
//    root fs has cloud-init (cloud_init_missing()).
#include <filesystem>
#include <string>
#include <vector>

#include "image/disk_identity.hpp"
#include "provision/cloud_init.hpp"

namespace piprov::provision {

/// What the seed pass changed on one disk.
struct SeedOutcome {
  std::vector<std::string> rewritten;   ///< files whose PARTUUID= were rewritten ("cmdline.txt", "/etc/fstab")
  int partuuid_references = 0;          ///< PARTUUID= values replaced in them
  std::vector<std::string> seed_files;  ///< "user-data", ... ("" when no seed was asked for)
  std::vector<std::string> regdom_set;  ///< cmdline files given cfg80211.ieee80211_regdom= (--wifi-country)
  std::vector<std::string> replaced;    ///< the image's own seed files the new seed replaced (seed_notes.hpp)
  std::string login_warning;            ///< the image's seed gave a login, the new one none ("" otherwise)
};

/// Cmdline files on the boot partition at `boot_dir` a layout may use:
/// cmdline.txt, nobtcmd.txt, btcmd.txt, the file config.txt's `cmdline=` names
/// ([pi4]), and cmdline.txt under the A/B prefixes current/, new/, old/
/// (os_prefix, Raspberry Pi documentation config.txt "os_prefix"). Only the
/// ones that exist, relative to `boot_dir`, without duplicates.
std::vector<std::string> cmdline_files(const std::filesystem::path& boot_dir);

/// Rewrites PARTUUID= (old -> new of `id`) in cmdline_files() and in
/// root_dir/etc/fstab, each atomically and only when it changes (so the disk
/// boots with its new ids). Fills `rewritten` and `partuuid_references`.
/// Throws Error{Io} on write failures.
/// --wifi-country: sets cfg80211.ieee80211_regdom=CC (the kernel's regulatory domain, Linux
/// net/wireless/reg.c) on the first line of every cmdline_files() file, as rpi-imager writes it
/// (raspberrypi/rpi-imager issues 1066, 1123: without a country the Pi's Wi-Fi stays blocked),
/// each atomically and only when it changes. Returns the files changed. Throws Error{Io}.
std::vector<std::string> set_wifi_regdom(const std::filesystem::path& boot_dir, const std::string& country);

/// "cfg80211.ieee80211_regdom=CC in cmdline.txt, nobtcmd.txt" for the files set_wifi_regdom()
/// changed (`set`), "... in the cmdline (already set)" when it changed none.
std::string regdom_text(const std::string& country, const std::vector<std::string>& set);

/// The note of a plan with --wifi-ssid and no --wifi-country: the Wi-Fi may stay blocked
/// without a country (raspberrypi/rpi-imager issues 1066, 1123); a note, not a refusal (the
/// image may set a country itself).
std::string wifi_without_country_note();

SeedOutcome rewrite_partuuid_references(const std::filesystem::path& boot_dir, const std::filesystem::path& root_dir,
                                        const image::DiskIdentity& id);

}  // namespace piprov::provision
