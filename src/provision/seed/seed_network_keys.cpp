// The keys netplan reads in a version 2 network-config, per device type (seed_network_detail.hpp):
// an unknown key refuses the whole config in netplan, so it is an error here.
#include <map>
#include <set>
#include <string>

#include "core/finding.hpp"
#include "provision/seed/image_cloud_init.hpp"
#include "provision/seed/seed_check_detail.hpp"
#include "provision/seed/seed_network_detail.hpp"

namespace piprov::provision::detail {
namespace {

constexpr const char* kSrcNetplanKeys =
    "netplan docs, YAML configuration (every key of ethernets, wifis, bonds, bridges, vlans): "
    "https://netplan.readthedocs.io/en/stable/netplan-yaml/; netplan refuses a key it does not know: "
    "\"Error in network definition: unknown key '...'\" (src/parse.c)";
constexpr const char* kSrcRegdom =
    "netplan docs, YAML configuration, wifis: regulatory-domain; added in netplan 0.105 by canonical/netplan PR #281: "
    "https://github.com/canonical/netplan/pull/281";

constexpr const char* kSrcNetplanSince =
    "netplan docs, YAML configuration, the key's 'since' note: https://netplan.readthedocs.io/en/stable/netplan-yaml/; "
    "a netplan before it has no handler for the key (src/parse.c) and refuses the config: \"Error in network "
    "definition: unknown key '...'\"";

using NetplanKeySet = std::set<std::string>;

/// Properties of every device type (netplan docs: "Common properties for all device types").
const NetplanKeySet& nk_common() {
  static const NetplanKeySet k = {"renderer",
                                  "dhcp4",
                                  "dhcp6",
                                  "ipv6-mtu",
                                  "ipv6-privacy",
                                  "link-local",
                                  "ignore-carrier",
                                  "critical",
                                  "dhcp-identifier",
                                  "dhcp4-overrides",
                                  "dhcp6-overrides",
                                  "accept-ra",
                                  "addresses",
                                  "ipv6-address-generation",
                                  "ipv6-address-token",
                                  "gateway4",
                                  "gateway6",
                                  "nameservers",
                                  "macaddress",
                                  "mtu",
                                  "optional",
                                  "optional-addresses",
                                  "activation-mode",
                                  "routes",
                                  "routing-policy",
                                  "neigh-suppress",
                                  "hairpin",
                                  "port-mac-learning",
                                  "ra-overrides",
                                  "openvswitch",
                                  "networkmanager"};
  return k;
}

/// Properties of physical devices (ethernets, wifis): "Properties for physical device types".
const NetplanKeySet& nk_physical() {
  static const NetplanKeySet k = {"match",
                                  "set-name",
                                  "wakeonlan",
                                  "emit-lldp",
                                  "receive-checksum-offload",
                                  "transmit-checksum-offload",
                                  "tcp-segmentation-offload",
                                  "tcp6-segmentation-offload",
                                  "generic-segmentation-offload",
                                  "generic-receive-offload",
                                  "large-receive-offload",
                                  "auth"};
  return k;
}

/// The keys a device of `section` takes; empty for a section piprov does not model.
NetplanKeySet nk_device_keys(const std::string& section) {
  static const std::map<std::string, NetplanKeySet> own = {
      {"ethernets",
       {"link", "virtual-function-count", "embedded-switch-mode", "delay-virtual-functions-rebind", "infiniband-mode"}},
      {"wifis", {"access-points", "wakeonwlan", "regulatory-domain"}},
      {"bonds", {"interfaces", "parameters"}},
      {"bridges", {"interfaces", "parameters"}},
      {"vlans", {"id", "link"}}};
  auto it = own.find(section);
  if (it == own.end()) return {};
  NetplanKeySet k = nk_common();
  k.insert(it->second.begin(), it->second.end());
  if (section == "ethernets" || section == "wifis") k.insert(nk_physical().begin(), nk_physical().end());
  return k;
}

const NetplanKeySet& nk_auth() {
  static const NetplanKeySet k = {"key-management",     "method",     "identity",
                                  "anonymous-identity", "password",   "ca-certificate",
                                  "client-certificate", "client-key", "client-key-password",
                                  "phase2-auth",        "pmf-mode"};
  return k;
}

/// The keys of a map under a device key (match, nameservers, ...) or of a list entry (routes).
const NetplanKeySet* nk_sub_keys(const std::string& key, const std::string& section) {
  static const NetplanKeySet match = {"name", "macaddress", "driver", "permanent-mac-address"};
  static const NetplanKeySet nameservers = {"search", "addresses"};
  static const NetplanKeySet routes = {"from",
                                       "to",
                                       "via",
                                       "on-link",
                                       "metric",
                                       "type",
                                       "scope",
                                       "table",
                                       "mtu",
                                       "congestion-window",
                                       "advertised-receive-window",
                                       "advertised-mss"};
  static const NetplanKeySet policy = {"from", "to", "table", "priority", "mark", "type-of-service"};
  static const NetplanKeySet ra = {"use-dns", "use-domains", "table"};
  static const NetplanKeySet overrides = {"use-dns",  "use-ntp",    "send-hostname", "use-hostname", "use-mtu",
                                          "hostname", "use-routes", "route-metric",  "use-domains"};
  static const NetplanKeySet bond = {"mode",
                                     "lacp-rate",
                                     "mii-monitor-interval",
                                     "min-links",
                                     "transmit-hash-policy",
                                     "ad-select",
                                     "all-members-active",
                                     "all-slaves-active",
                                     "arp-interval",
                                     "arp-ip-targets",
                                     "arp-validate",
                                     "arp-all-targets",
                                     "up-delay",
                                     "down-delay",
                                     "fail-over-mac-policy",
                                     "gratuitous-arp",
                                     "gratuitious-arp",
                                     "packets-per-member",
                                     "packets-per-slave",
                                     "primary-reselect-policy",
                                     "resend-igmp",
                                     "learn-packet-interval",
                                     "primary"};
  static const NetplanKeySet bridge = {"ageing-time",   "aging-time",    "priority",
                                       "port-priority", "forward-delay", "hello-time",
                                       "max-age",       "path-cost",     "stp"};
  if (key == "match") return &match;
  if (key == "nameservers") return &nameservers;
  if (key == "routes") return &routes;
  if (key == "routing-policy") return &policy;
  if (key == "dhcp4-overrides" || key == "dhcp6-overrides") return &overrides;
  if (key == "ra-overrides") return &ra;
  if (key == "auth") return &nk_auth();
  if (key == "parameters") return section == "bonds" ? &bond : section == "bridges" ? &bridge : nullptr;
  return nullptr;
}

const NetplanKeySet& nk_access_point() {
  static const NetplanKeySet k = {"password", "mode", "bssid", "band", "channel", "hidden", "auth", "networkmanager"};
  return k;
}

/// The scope netplan_key_since() knows the keys of a map under device key `key` by.
std::string nk_sub_scope(const std::string& key, const std::string& section) {
  if (key == "routes") return "routes";
  if (key == "dhcp4-overrides" || key == "dhcp6-overrides") return "dhcp-overrides";
  if (key == "auth") return "auth";
  if (key == "parameters" && section == "bonds") return "bond";
  return "";
}

/// The name every netplan reads for a key netplan 0.106 renamed (netplan docs: "Alias"), "" for others.
std::string nk_old_alias(const std::string& key) {
  if (key == "all-members-active") return "all-slaves-active";
  if (key == "packets-per-member") return "packets-per-slave";
  return "";
}

struct NetplanKeyChecker {
  const NetAdd& add;

  void unknown(const std::string& where, const std::string& key, const NetplanKeySet& known) {
    add("seed-network-unknown-key", Severity::Error, where + "." + key,
        where + ": unknown key '" + key +
            "' (netplan: \"Error in network definition: unknown key\"): netplan refuses the whole config and the "
            "node comes up without network, eth0 too",
        seed_unknown_key_fix(key, known), kSrcNetplanKeys);
  }

  /// seed-network-netplan-version (warning) when `key` is read only by a netplan newer than kNetplanOldest.
  void since(const std::string& where, const std::string& section, const std::string& scope, const std::string& key) {
    const std::string v = netplan_key_since(section, scope, key);
    if (!netplan_key_is_newer(v)) return;
    std::string fix = "check with --image IMAGE (its netplan judges)";
    if (key == "regulatory-domain")
      fix +=
          ", or set the country with provision --wifi-country (it also writes cfg80211.ieee80211_regdom=CC in "
          "cmdline.txt)";
    else if (!nk_old_alias(key).empty())
      fix += ", or write '" + nk_old_alias(key) + "' (its name before netplan " + v + "), which every netplan reads";
    add("seed-network-netplan-version", Severity::Warning, where + "." + key,
        where + ": '" + key + "' is read by netplan " + v + " and later (judged by netplan " + kNetplanNewest +
            "); an older netplan refuses it as an unknown key, and with it the whole config",
        fix, key == "regulatory-domain" ? kSrcRegdom : kSrcNetplanSince);
  }

  void map(const nlohmann::json& m, const std::string& where, const NetplanKeySet& known, const std::string& section,
           const std::string& scope) {
    if (!m.is_object()) return;
    for (const auto& [k, v] : m.items())
      if (!known.count(k))
        unknown(where, k, known);
      else if (!scope.empty())
        since(where, section, scope, k);
  }

  void device(const nlohmann::json& d, const std::string& section, const std::string& where) {
    const NetplanKeySet known = nk_device_keys(section);
    for (const auto& [k, v] : d.items()) {
      if (!known.count(k)) {
        unknown(where, k, known);
        continue;
      }
      since(where, section, "device", k);
      if (const NetplanKeySet* sub = nk_sub_keys(k, section)) {
        const std::string scope = nk_sub_scope(k, section);
        if (v.is_array())
          for (std::size_t i = 0; i < v.size(); ++i)
            map(v[i], where + "." + k + "." + std::to_string(i), *sub, section, scope);
        else
          map(v, where + "." + k, *sub, section, scope);
      }
      if (k == "access-points" && v.is_object())
        for (const auto& [ssid, ap] : v.items()) {
          map(ap, where + ".access-points." + ssid, nk_access_point(), section, "access-point");
          if (ap.is_object() && ap.contains("auth"))
            map(ap["auth"], where + ".access-points." + ssid + ".auth", nk_auth(), section, "auth");
        }
    }
  }
};

/// seed-network-netplan-version (a key a newer netplan only reads: netplan_key_since_at()) judged
/// by the image's netplan `judge`: an info when it reads the key, an error naming both versions when
/// it refuses it.
void nk_judge_keys(const std::string& netplan, const std::string& judge, Findings& findings) {
  for (auto& f : findings) {
    if (f.rule != "seed-network-netplan-version") continue;
    const std::string file = f.message.substr(0, f.message.find(": "));
    const std::string key = f.key.substr(f.key.rfind('.') + 1);
    const std::string since = netplan_key_since_at(f.key);
    if (since.empty()) continue;
    const std::string where = f.key.substr(0, f.key.rfind('.'));
    if (compare_versions(netplan, since) >= 0) {
      f.severity = Severity::Info;
      f.message = file + ": " + where + ": '" + key + "' is read by " + judge + " (netplan " + since + " and later)";
      f.fix.clear();
    } else {
      f.severity = Severity::Error;
      f.message = file + ": " + where + ": '" + key + "' is refused by " + judge + " (unknown key before netplan " +
                  since + "): netplan refuses the whole config and the node comes up without network, eth0 too";
      if (key == "regulatory-domain")
        f.fix =
            "remove regulatory-domain: provision --wifi-country sets the country with cfg80211.ieee80211_regdom=CC in "
            "cmdline.txt, which every kernel reads";
      else if (!nk_old_alias(key).empty())
        f.fix = "write '" + nk_old_alias(key) + "' instead (its name before netplan " + since + ")";
      else
        f.fix = "remove '" + key + "', or use an image whose netplan is " + since + " or later";
    }
  }
}

}  // namespace

void for_each_v2_device(const nlohmann::json& net,
                        const std::function<void(const nlohmann::json&, const char*, const std::string&)>& fn) {
  for (const char* section : {"ethernets", "wifis", "bonds", "bridges", "vlans"}) {
    if (!net.contains(section) || !net[section].is_object()) continue;
    for (const auto& [name, d] : net[section].items())
      if (d.is_object()) fn(d, section, std::string(section) + "." + name);
  }
}

void check_v2_keys(const nlohmann::json& net, const NetAdd& add) {
  NetplanKeyChecker c{add};
  for_each_v2_device(
      net, [&c](const nlohmann::json& d, const char* section, const std::string& path) { c.device(d, section, path); });
}

/// seed-network-route-default judged by the image's netplan (the renderer of
/// cloud-init on Ubuntu): fine from 0.103 (dropped to an info), refused before.
void judge_by_image_netplan(const std::string& netplan, Findings& findings) {
  if (netplan.empty()) {  // an image that names no netplan: the warning stays, its fix says so
    for (auto& f : findings)
      if (f.rule == "seed-network-netplan-version") {
        const std::string key = f.key.substr(f.key.rfind('.') + 1);
        f.fix = "the image names no netplan version (no netplan.io in its dpkg status): keep '" + key +
                "' only if the node's netplan is " + netplan_key_since_at(f.key) + " or later";
        if (key == "regulatory-domain") f.fix += "; provision --wifi-country sets the country in cmdline.txt for any";
      }
    return;
  }
  const bool ok = compare_versions(netplan, "0.103") >= 0;
  const std::string judge = "netplan " + netplan + ", read from the image";
  nk_judge_keys(netplan, judge, findings);
  for (auto& f : findings) {
    if (f.rule != "seed-network-route-default") continue;
    const std::string file = f.message.substr(0, f.message.find(": "));
    if (ok) {
      f.severity = Severity::Info;
      f.message = file + ": 'to: default' is read by " + judge + " (netplan 0.103 and later)";
      f.fix.clear();
    } else {
      f.severity = Severity::Error;
      f.message = file + ": 'to: default' is refused by " + judge +
                  " (netplan before 0.103: Ubuntu 20.04 before 20.04.4): the node would have no default route";
    }
  }
}

}  // namespace piprov::provision::detail
