// The identity options' single values (identity.hpp): the Wi-Fi country, the time zone, the
// Wi-Fi passphrase, a host name label. Sources: RFC 1123 2.1 (host names), ISO 3166-1 (the tz database's iso3166.tab),
// RFC 8536 (TZif), IEEE 802.11i (WPA passphrase 8-63 characters, or 64 hex digits).
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <regex>
#include <string>

#include "core/error.hpp"
#include "core/file.hpp"
#include "core/strings.hpp"
#include "provision/identity.hpp"

namespace piprov::provision {
namespace {

Error identity_value_usage(const std::string& m) { return Error(ErrorKind::Usage, m); }

}  // namespace

std::string check_wifi_country(const std::string& given, const std::filesystem::path& iso3166_tab) {
  std::string cc(trim(given));
  std::transform(cc.begin(), cc.end(), cc.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  const bool shape = cc.size() == 2 && std::all_of(cc.begin(), cc.end(), [](char c) { return c >= 'A' && c <= 'Z'; });
  if (!shape)
    throw identity_value_usage("--wifi-country: '" + given +
                               "' is not an ISO 3166-1 alpha-2 country code (two letters, e.g. GB, DE, US)");
  auto tab = read_file_if_exists(iso3166_tab);
  if (!tab) return cc;  // no tz database here: the shape is all we can check
  for (const auto& line : split(*tab, '\n'))
    if (line.size() > 2 && line.compare(0, 2, cc) == 0 && line[2] == '\t') return cc;
  // Codes people write that ISO 3166-1 reserves for other uses: the United Kingdom is GB
  // (UK is only "exceptionally reserved"), Greece GR (EL is the EU's code for it).
  const std::string meant = cc == "UK" ? "GB" : cc == "EL" ? "GR" : "";
  throw identity_value_usage(
      "--wifi-country: '" + given + "' is not an ISO 3166-1 country code (not in " + iso3166_tab.string() +
      (meant.empty() ? "): give the two-letter code of the country the Pi is in, e.g. GB, DE, US"
                     : "): did you mean " + meant + "? (" + cc + " is not ISO 3166-1's code; " + meant + " is)"));
}

void check_timezone(const std::string& tz, const std::filesystem::path& zoneinfo) {
  static const std::regex shape("[A-Za-z0-9_+-]+(/[A-Za-z0-9_+-]+)*");
  if (!std::regex_match(tz, shape))
    throw identity_value_usage("--timezone: '" + tz + "' is not a time zone name (e.g. Europe/Berlin, UTC)");
  std::error_code ec;
  if (!std::filesystem::is_directory(zoneinfo, ec)) return;  // no tzdata here: the shape is all we can check
  // A zone is a TZif file (RFC 8536) in the tz database; "posixrules" and the like are not zones.
  auto f = zoneinfo / tz;
  if (!std::filesystem::is_regular_file(f, ec) ||
      read_file_capped(f.string(), 1 << 20, "zone file").value_or("").rfind("TZif", 0) != 0)
    throw identity_value_usage("--timezone: '" + tz + "' is not in the tz database (" + zoneinfo.string() +
                               "): give a name as `timedatectl list-timezones` prints it, e.g. Europe/Berlin or UTC");
}

bool is_host_label(const std::string& name) {
  static const std::regex label("[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?");
  return std::regex_match(name, label);
}

std::string parse_wifi_psk(std::string_view text, const std::string& file) {
  // Only the line end goes: a space is one of a passphrase's printable characters (IEEE 802.11i).
  std::string psk(text.substr(0, text.find('\n')));
  if (!psk.empty() && psk.back() == '\r') psk.pop_back();
  bool hex = psk.size() == 64 && std::all_of(psk.begin(), psk.end(), ::isxdigit);
  bool phrase = psk.size() >= 8 && psk.size() <= 63 &&
                std::all_of(psk.begin(), psk.end(), [](char c) { return c >= 0x20 && c < 0x7f; });
  if (!hex && !phrase)
    throw identity_value_usage("--wifi-psk-file " + file +
                               ": its first line is not a WPA passphrase (8-63 printable ASCII "
                               "characters) or a 64-hex-digit PSK");
  return psk;
}

}  // namespace piprov::provision
