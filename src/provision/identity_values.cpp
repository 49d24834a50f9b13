// The identity options' single values (identity.hpp): the Wi-Fi country, the time zone, the
// Wi-Fi passphrase, a host name label, the IP values of --ip, --gateway and --dns. Sources: RFC 1123 2.1 (host names),
// ISO 3166-1 (the tz database's iso3166.tab), RFC 8536 (TZif), IEEE 802.11i (WPA passphrase 8-63 characters, or 64 hex
// digits).
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/file.hpp"
#include "core/strings.hpp"
#include "provision/identity.hpp"

namespace piprov::provision {
namespace {

Error identity_value_usage(const std::string& m) { return Error(ErrorKind::Usage, m); }

/// True when `f` is a zone of the tz database: a TZif file (RFC 8536).
bool tz_is_zone(const std::filesystem::path& f) {
  std::error_code ec;
  return std::filesystem::is_regular_file(f, ec) &&
         read_file_capped(f.string(), 1 << 20, "zone file").value_or("").rfind("TZif", 0) == 0;
}

/// The zone under `zoneinfo` that `tz` most likely meant, "" when none is near: the one that
/// differs only in case ("europe/berlin"), else the nearest by edit distance, ignoring case, within
/// 3 edits ("Asia/Tokio"). The posix/ and right/ copies of the database are not walked.
std::string tz_nearest(const std::string& tz, const std::filesystem::path& zoneinfo) {
  const std::string want = to_lower(tz);
  std::vector<std::pair<std::size_t, std::string>> near;  // (distance, zone)
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(zoneinfo, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    const std::string rel = it->path().lexically_relative(zoneinfo).generic_string();
    if (it->is_directory(ec)) {
      if (rel == "posix" || rel == "right") it.disable_recursion_pending();
      continue;
    }
    if (const std::size_t d = edit_distance(want, to_lower(rel), 3); d <= 3) near.emplace_back(d, rel);
  }
  std::sort(near.begin(), near.end());
  for (const auto& [d, zone] : near)
    if (tz_is_zone(zoneinfo / zone)) return zone;
  return "";
}

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
  if (tz_is_zone(zoneinfo / tz)) return;
  const std::string meant = tz_nearest(tz, zoneinfo);
  throw identity_value_usage("--timezone: '" + tz + "' is not in the tz database (" + zoneinfo.string() + "): " +
                             (meant.empty()
                                  ? "give a name as `timedatectl list-timezones` prints it, e.g. "
                                    "Europe/Berlin or UTC"
                                  : "did you mean " + meant + "?" +
                                        (to_lower(meant) == to_lower(tz) ? " (zone names are case-sensitive)" : "")));
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

IpValue check_ip(std::string_view text, bool require_prefix, const std::string& what) {
  const std::string cidr(text);
  auto v = IpValue::parse(cidr);
  if (!v || v->prefix.has_value() != require_prefix)
    throw identity_value_usage(
        what + ": '" + cidr + "' is not " +
        (require_prefix ? "an address with its prefix length (e.g. 192.168.1.11/24)" : "an IP address"));
  if (require_prefix && *v->prefix == 0)
    throw identity_value_usage(
        what + ": " + cidr + " has the prefix length 0, which is no subnet (netplan: invalid prefix length): " +
        "give the prefix of the node's network, e.g. " + v->address() + (v->family == 4 ? "/24" : "/64"));
  if (auto why = v->not_a_host(what == "--dns"); !why.empty()) {  // one rule and wording for options and files
    const std::string whose = what == "--gateway" ? "router" : what == "--dns" ? "name server" : "node";
    throw identity_value_usage(what + ": " + cidr + " is " + why + ", not a " + whose + "'s: give the " + whose +
                               "'s own address (e.g. " + host_example(*v, whose) + ")");
  }
  return *v;
}

void check_gateway(const IpValue& gateway, const IpValue& cidr) {
  if (gateway.family != cidr.family)
    throw identity_value_usage("--gateway " + gateway.text + " and --ip " + cidr.text +
                               " are not of the same IP version");
  // An IPv6 link-local router (fe80::/10) is on-link whatever the subnet: routers are reached
  // by their link-local address (RFC 4861 4.2, 6.1.2); netplan takes `via: fe80::1`.
  if (!cidr.contains(gateway) && !gateway.is_link_local())
    throw identity_value_usage(
        "--gateway " + gateway.text + " is not in the subnet of --ip " + cidr.text +
        ": the node could not reach it; give the router of that network (or fix the prefix length)");
  if (auto r = gateway_refusal(gateway, cidr, "--ip " + cidr.text); !r.why.empty())
    throw identity_value_usage("--gateway " + gateway.text + " " + r.why + ": " + r.fix);
}

}  // namespace piprov::provision
