#include "eeprom/version.hpp"

#include <fmt/format.h>
#include <ctime>

#include "core/strings.hpp"

namespace piprov::eeprom {
namespace {
constexpr const char* kUsbBootSource = "raspberrypi/rpi-eeprom firmware release notes: USB MSD boot";

std::tm utc(std::int64_t t) {
  std::time_t tt = static_cast<std::time_t>(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  return tm;
}

}  // namespace

std::string format_date(std::int64_t t) {
  auto tm = utc(t);
  return fmt::format("{:04}-{:02}-{:02}", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);
}

std::string format_datetime(std::int64_t t) {
  auto tm = utc(t);
  return fmt::format("{} {:02}:{:02}:{:02} UTC", format_date(t), tm.tm_hour, tm.tm_min, tm.tm_sec);
}

std::optional<std::string> parse_release_status(std::string_view text) {
  std::optional<std::string> out;
  static constexpr std::string_view kKey = "FIRMWARE_RELEASE_STATUS=";
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t nl = text.find('\n', pos);
    std::string_view line = trim(text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos));
    pos = nl == std::string_view::npos ? text.size() + 1 : nl + 1;
    if (line.substr(0, 7) == "export ") line = trim(line.substr(7));
    if (line.substr(0, kKey.size()) != kKey) continue;
    std::string_view v = line.substr(kKey.size());
    if (!v.empty() && (v.front() == '"' || v.front() == '\'')) {
      char q = v.front();
      auto end = v.find(q, 1);
      v = v.substr(1, end == std::string_view::npos ? std::string_view::npos : end - 1);
    } else if (auto sp = v.find_first_of(" \t#"); sp != std::string_view::npos) {
      v = v.substr(0, sp);
    }
    out = std::string(v);
  }
  return out;
}

bool predates_usb_boot(const std::optional<BootloaderInfo>& bl) {
  return bl && bl->build_timestamp && *bl->build_timestamp < kUsbBootStable;
}

Findings check_version(const std::optional<BootloaderInfo>& bl, const std::optional<std::string>& channel,
                       std::optional<Want> want) {
  Findings f;
  if (channel) {
    const std::string& c = *channel;
    if (c != "critical" && c != "stable" && c != "beta" && c != "default" && c != "latest")
      f.push_back({"release-channel-unknown", Severity::Error, 0, "FIRMWARE_RELEASE_STATUS",
                   fmt::format("FIRMWARE_RELEASE_STATUS=\"{}\" is not a release channel: rpi-eeprom-update finds no "
                               "images and never updates",
                               c),
                   "set FIRMWARE_RELEASE_STATUS=\"default\" (or \"latest\") in /etc/default/rpi-eeprom-update",
                   kUsbBootSource});
    else if (c == "critical" || c == "stable" || c == "beta")
      f.push_back({"release-channel-legacy", Severity::Info, 0, "FIRMWARE_RELEASE_STATUS",
                   fmt::format("FIRMWARE_RELEASE_STATUS=\"{}\" is a 2020 channel name; today it is a symlink to {}", c,
                               c == "critical" ? "default" : "latest"),
                   fmt::format("use \"{}\" in /etc/default/rpi-eeprom-update", c == "critical" ? "default" : "latest"),
                   kUsbBootSource});
  }
  if (!bl || !bl->build_timestamp) return f;
  const std::int64_t ts = *bl->build_timestamp;
  if (ts >= kUsbBootDefault) return f;
  const bool usb = want && *want == Want::Usb;
  // Builds dated 2020-06-15..2020-09-02 were only released on the stable/beta
  // channels (the default channel stayed on 2020-04-16), and they boot from USB.
  const bool stable_ok = !predates_usb_boot(bl);
  const std::string date = format_date(ts);
  std::string msg = fmt::format(
      "bootloader {} ({}) predates USB mass-storage boot in the default channel "
      "(2020-09-03; stable channel from 2020-06-15)",
      date, bl->source);
  std::string fix =
      "update the bootloader: sudo rpi-eeprom-update -a (FIRMWARE_RELEASE_STATUS=\"default\"), or "
      "flash a 2020-09-03 or later pieeprom.bin with rpi-eeprom-update -d -f";
  Severity s = !usb ? Severity::Info : stable_ok ? Severity::Warning : Severity::Error;
  if (stable_ok) msg += "; this stable/beta-channel build can boot from USB, but update to a default-channel release";
  f.push_back({"bootloader-too-old-for-usb", s, 0, "", msg, fix, kUsbBootSource});
  return f;
}

}  // namespace piprov::eeprom
