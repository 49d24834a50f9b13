// The typed netplan keys of a version 2 network-config (seed_network_detail.hpp): booleans,
// unsigned integers, the VLAN id's range, and a bond's mode (one of netplan's words). netplan reads a boolean with
// handle_generic_bool
// ("invalid boolean value '%s'") and an unsigned int with handle_netdef_guint / handle_routes_guint
// ("invalid unsigned int value '%s'"), a VLAN id 0-4094 ("invalid id '%u' (allowed values are 0 to
// 4094)"), src/parse.c and src/validation.c; then it refuses the whole config.
#include <string>
#include <vector>

#include "core/finding.hpp"
#include "provision/seed/seed_network_detail.hpp"

namespace piprov::provision::detail {
namespace {

constexpr const char* kSrcNetplanTypes =
    "netplan docs, YAML configuration (each key's type: bool, scalar number; vlans: \"id (scalar): VLAN ID, a "
    "number between 0 and 4094\"; bonds: parameters mode): https://netplan.readthedocs.io/en/stable/netplan-yaml/; "
    "canonical/netplan src/parse.c (\"invalid boolean value\", \"invalid unsigned int value\", \"unknown bond "
    "mode\"), tests/generator/test_vlans.py test_vlan_invalid_id";

enum class NetplanType { Bool, Uint, Word };

/// netplan's bond modes (parse.c handle_bond_mode: "unknown bond mode '%s'"; netplan docs, bonds:
/// parameters mode; balance-tcp and balance-slb choose the Open vSwitch backend).
const std::vector<std::string> kNetplanBondModes = {"balance-rr",  "active-backup", "balance-xor",
                                                    "broadcast",   "802.3ad",       "balance-tlb",
                                                    "balance-alb", "balance-tcp",   "balance-slb"};

struct NetplanTypedKey {
  const char* scope;  ///< "device" (every device), a section ("ethernets", "vlans"), or a map under a device:
                      ///< "routes", "routing-policy", "dhcp-overrides", "ra-overrides", "access-point",
                      ///< "bond", "bridge"
  const char* key;
  NetplanType type;
  unsigned long long max = 4294967295ULL;           ///< G_MAXUINT, or the key's own range
  const std::vector<std::string>* words = nullptr;  ///< Word: the values netplan takes
};

/// The one table of typed netplan keys (the keys of seed_network_keys.cpp whose value netplan parses).
const std::vector<NetplanTypedKey>& ntk_table() {
  using T = NetplanType;
  static const std::vector<NetplanTypedKey> t = {
      {"device", "dhcp4", T::Bool},
      {"device", "dhcp6", T::Bool},
      {"device", "optional", T::Bool},
      {"device", "critical", T::Bool},
      {"device", "accept-ra", T::Bool},
      {"device", "ipv6-privacy", T::Bool},
      {"device", "ignore-carrier", T::Bool},
      {"device", "neigh-suppress", T::Bool},
      {"device", "hairpin", T::Bool},
      {"device", "port-mac-learning", T::Bool},
      {"device", "mtu", T::Uint},
      {"device", "ipv6-mtu", T::Uint},
      {"physical", "wakeonlan", T::Bool},
      {"physical", "emit-lldp", T::Bool},
      {"physical", "receive-checksum-offload", T::Bool},
      {"physical", "transmit-checksum-offload", T::Bool},
      {"physical", "tcp-segmentation-offload", T::Bool},
      {"physical", "tcp6-segmentation-offload", T::Bool},
      {"physical", "generic-segmentation-offload", T::Bool},
      {"physical", "generic-receive-offload", T::Bool},
      {"physical", "large-receive-offload", T::Bool},
      {"ethernets", "virtual-function-count", T::Uint},
      {"ethernets", "delay-virtual-functions-rebind", T::Bool},
      {"vlans", "id", T::Uint, 4094},
      {"routes", "on-link", T::Bool},
      {"routes", "metric", T::Uint},
      {"routes", "table", T::Uint},
      {"routes", "mtu", T::Uint},
      {"routes", "congestion-window", T::Uint},
      {"routes", "advertised-receive-window", T::Uint},
      {"routes", "advertised-mss", T::Uint},
      {"routing-policy", "priority", T::Uint},
      {"routing-policy", "table", T::Uint},
      {"routing-policy", "mark", T::Uint},
      {"routing-policy", "type-of-service", T::Uint},
      {"dhcp-overrides", "use-dns", T::Bool},
      {"dhcp-overrides", "use-ntp", T::Bool},
      {"dhcp-overrides", "send-hostname", T::Bool},
      {"dhcp-overrides", "use-hostname", T::Bool},
      {"dhcp-overrides", "use-mtu", T::Bool},
      {"dhcp-overrides", "use-routes", T::Bool},
      {"dhcp-overrides", "route-metric", T::Uint},
      {"ra-overrides", "use-dns", T::Bool},
      {"ra-overrides", "table", T::Uint},
      {"access-point", "hidden", T::Bool},
      {"access-point", "channel", T::Uint},
      {"bond", "min-links", T::Uint},
      {"bond", "all-members-active", T::Bool},
      {"bond", "all-slaves-active", T::Bool},
      {"bond", "gratuitous-arp", T::Uint},
      {"bond", "gratuitious-arp", T::Uint},
      {"bond", "packets-per-member", T::Uint},
      {"bond", "packets-per-slave", T::Uint},
      {"bond", "resend-igmp", T::Uint},
      {"bond", "mode", T::Word, 0, &kNetplanBondModes},
      {"bridge", "stp", T::Bool},
      {"bridge", "priority", T::Uint},
  };
  return t;
}

/// The scalar text netplan reads for `v` (cloud-init writes the config back with PyYAML: a
/// boolean as true/false, a number as its digits); `*ok` false for a map or list.
std::string ntk_scalar(const nlohmann::json& v, bool* ok) {
  *ok = !v.is_object() && !v.is_array() && !v.is_null();
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  return dump_json(v, -1);
}

std::string ntk_lower(std::string s) {
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

struct NetplanTypeChecker {
  const NetAdd& add;

  void value(const NetplanTypedKey& k, const nlohmann::json& v, const std::string& at) {
    bool scalar = false;
    const std::string text = ntk_scalar(v, &scalar);
    const std::string shown = "'" + std::string(k.key) + ": " + (scalar ? text : dump_json(v, -1)) + "'";
    const std::string effect = ": netplan refuses the whole config and the node comes up without network, eth0 too";
    if (k.type == NetplanType::Word) {
      for (const auto& w : *k.words)
        if (scalar && text == w) return;
      std::string all;
      for (const auto& w : *k.words) all += (all.empty() ? "" : ", ") + w;
      add("seed-network-device", Severity::Error, at,
          shown + " is not a bond mode (netplan: \"unknown bond mode '" + text + "'\"; it takes " + all + ")" + effect,
          "write one of " + all + (text == "fast" || text == "slow" ? " (fast and slow are values of lacp-rate)" : ""),
          kSrcNetplanTypes);
      return;
    }
    if (k.type == NetplanType::Bool) {
      static const char* const ok[] = {"true", "false", "yes", "no", "on", "off", "y", "n"};
      const std::string low = ntk_lower(text);
      for (const char* o : ok)
        if (scalar && low == o) return;
      add("seed-network-device", Severity::Error, at,
          shown + " is not a boolean (netplan: \"invalid boolean value\")" + effect, "write true or false",
          kSrcNetplanTypes);
      return;
    }
    const bool digits =
        scalar && !text.empty() && text.size() <= 20 && text.find_first_not_of("0123456789") == std::string::npos;
    const std::string range = "0 to " + std::to_string(k.max);
    if (!digits || std::stoull(text) > 4294967295ULL) {
      add("seed-network-device", Severity::Error, at,
          shown + " is not an unsigned integer (netplan: \"invalid unsigned int value '" + text + "'\"; " + k.key +
              " takes " + range + ")" + effect,
          "write a whole number from " + range, kSrcNetplanTypes);
      return;
    }
    if (std::stoull(text) > k.max)
      add("seed-network-device", Severity::Error, at,
          shown + " is out of range (netplan: \"invalid " + k.key + " '" + text + "' (allowed values are " + range +
              ")\")" + effect,
          "write a whole number from " + range, kSrcNetplanTypes);
  }

  /// The typed keys of scope `scope` (and, for "device", of `section` and "physical") in map `m` at `where`.
  void map(const nlohmann::json& m, const std::string& where, const std::string& scope, const std::string& section) {
    if (!m.is_object()) return;
    for (const auto& k : ntk_table()) {
      const std::string s = k.scope;
      const bool in =
          s == scope ||
          (scope == "device" && (s == section || (s == "physical" && (section == "ethernets" || section == "wifis"))));
      if (in && m.contains(k.key)) value(k, m[k.key], where + "." + k.key);
    }
  }

  void list(const nlohmann::json& l, const std::string& where, const std::string& scope) {
    if (!l.is_array()) return;
    for (std::size_t i = 0; i < l.size(); ++i) map(l[i], where + "." + std::to_string(i), scope, "");
  }

  void device(const nlohmann::json& d, const std::string& section, const std::string& where) {
    map(d, where, "device", section);
    if (d.contains("routes")) list(d["routes"], where + ".routes", "routes");
    if (d.contains("routing-policy")) list(d["routing-policy"], where + ".routing-policy", "routing-policy");
    for (const char* o : {"dhcp4-overrides", "dhcp6-overrides"})
      if (d.contains(o)) map(d[o], where + "." + o, "dhcp-overrides", "");
    if (d.contains("ra-overrides")) map(d["ra-overrides"], where + ".ra-overrides", "ra-overrides", "");
    if (d.contains("parameters") && (section == "bonds" || section == "bridges"))
      map(d["parameters"], where + ".parameters", section == "bonds" ? "bond" : "bridge", "");
    if (section == "wifis" && d.contains("access-points") && d["access-points"].is_object())
      for (const auto& [ssid, ap] : d["access-points"].items())
        map(ap, where + ".access-points." + ssid, "access-point", "");
  }
};

}  // namespace

void check_v2_types(const nlohmann::json& net, const NetAdd& add) {
  NetplanTypeChecker c{add};
  for_each_v2_device(
      net, [&c](const nlohmann::json& d, const char* section, const std::string& path) { c.device(d, section, path); });
}

}  // namespace piprov::provision::detail
