#pragma once
// Bootloader version (from an image's BUILD_TIMESTAMP or from a live Pi) and
// the rpi-eeprom-update release channel, with the rules that depend on them.
// Source: raspberrypi/rpi-eeprom firmware release notes (USB mass-storage boot: stable channel from the
// 2020-06-15 release, default/critical channel from 2020-09-03;
// FIRMWARE_RELEASE_STATUS critical/stable/beta in 2020, default/latest today).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/finding.hpp"
#include "eeprom/boot_order.hpp"

namespace piprov::eeprom {

struct BootloaderInfo {
  std::optional<std::int64_t> build_timestamp;  ///< unix seconds (UTC)
  std::string version;                          ///< git hash, may be ""
  std::string source;                           ///< "image", "vcgencmd bootloader_version", "device tree"
};

/// "2020-09-03" (UTC) for a unix timestamp.
std::string format_date(std::int64_t unix_seconds);
/// "2020-09-03 12:11:43 UTC".
std::string format_datetime(std::int64_t unix_seconds);

/// First release with USB mass-storage boot on the stable channel: 2020-06-15 00:00 UTC.
inline constexpr std::int64_t kUsbBootStable = 1592179200;
/// First default (critical) channel release with USB mass-storage boot: 2020-09-03 00:00 UTC.
inline constexpr std::int64_t kUsbBootDefault = 1599091200;

/// Whether the bootloader `bl` is known to predate USB mass-storage boot on every channel (built
/// before kUsbBootStable): it cannot boot from USB whatever BOOT_ORDER says. false when unknown.
bool predates_usb_boot(const std::optional<BootloaderInfo>& bl);

/// Parses the shell assignment FIRMWARE_RELEASE_STATUS=... from the text of
/// /etc/default/rpi-eeprom-update (quotes removed, last assignment wins).
std::optional<std::string> parse_release_status(std::string_view file_text);

/// Findings about the bootloader release and channel: bootloader-too-old-for-usb
/// (with --want usb: error before 2020-06-15, warning up to 2020-09-02, whose
/// builds came from the stable/beta channels only), release-channel-unknown,
/// release-channel-legacy. `channel` nullopt = unknown.
Findings check_version(const std::optional<BootloaderInfo>& bl, const std::optional<std::string>& channel,
                       std::optional<Want> want);

}  // namespace piprov::eeprom
