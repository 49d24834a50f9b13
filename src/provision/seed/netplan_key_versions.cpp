// The one table of netplan keys a newer netplan only reads (seed_network_detail.hpp): each key
// with the netplan version that first reads it, as netplan's YAML reference notes it
// ("– since 0.104"): netplan docs, YAML configuration
// (https://netplan.readthedocs.io/en/stable/netplan-yaml/, doc/netplan-yaml.md of canonical/netplan).
// An older netplan has no handler for the key (src/parse.c) and refuses the whole config with
// "Error in network definition: unknown key '...'".
#include <string>
#include <vector>

#include "provision/seed/image_cloud_init.hpp"
#include "provision/seed/seed_network_detail.hpp"

namespace piprov::provision::detail {
namespace {

struct NetplanKeySince {
  const char* scope;  ///< NetplanScope name: where the key sits
  const char* key;
  const char* since;
};

/// Scopes: "device" = every device type (netplan "Common properties for all device types",
/// COMMON_LINK_HANDLERS in src/parse.c), "physical" = ethernets and wifis, "ethernets", "wifis",
/// "access-point" = an entry of wifis' access-points, "auth", "routes" = a route entry,
/// "dhcp-overrides", "bond" = bonds' parameters.
const std::vector<NetplanKeySince>& nkv_table() {
  static const std::vector<NetplanKeySince> t = {
      {"device", "ipv6-mtu", "0.98"},
      {"device", "ipv6-address-generation", "0.99"},
      {"device", "networkmanager", "0.99"},
      {"device", "ipv6-address-token", "0.100"},
      {"device", "openvswitch", "0.100"},
      {"device", "activation-mode", "0.103"},
      {"device", "ignore-carrier", "0.104"},
      {"device", "neigh-suppress", "0.105"},
      {"device", "hairpin", "1.0"},
      {"device", "port-mac-learning", "1.0"},
      {"device", "ra-overrides", "1.1"},
      {"physical", "emit-lldp", "0.99"},
      {"physical", "receive-checksum-offload", "0.104"},
      {"physical", "transmit-checksum-offload", "0.104"},
      {"physical", "tcp-segmentation-offload", "0.104"},
      {"physical", "tcp6-segmentation-offload", "0.104"},
      {"physical", "generic-segmentation-offload", "0.104"},
      {"physical", "generic-receive-offload", "0.104"},
      {"physical", "large-receive-offload", "0.104"},
      {"ethernets", "link", "0.99"},
      {"ethernets", "virtual-function-count", "0.99"},
      {"ethernets", "embedded-switch-mode", "0.104"},
      {"ethernets", "delay-virtual-functions-rebind", "0.104"},
      {"ethernets", "infiniband-mode", "0.105"},
      {"wifis", "wakeonwlan", "0.99"},
      {"wifis", "regulatory-domain", "0.105"},  // canonical/netplan PR #281
      {"access-point", "bssid", "0.99"},
      {"access-point", "band", "0.99"},
      {"access-point", "channel", "0.99"},
      {"access-point", "hidden", "0.100"},
      {"auth", "phase2-auth", "0.99"},
      {"routes", "mtu", "0.101"},
      {"routes", "congestion-window", "0.102"},
      {"routes", "advertised-receive-window", "0.102"},
      {"routes", "advertised-mss", "1.1"},
      {"dhcp-overrides", "use-domains", "0.98"},
      {"bond", "all-members-active", "0.106"},  // alias all-slaves-active: every netplan
      {"bond", "packets-per-member", "0.106"},  // alias packets-per-slave: every netplan
  };
  return t;
}

std::vector<std::string> nkv_split(const std::string& path) {
  std::vector<std::string> out(1);
  for (char c : path)
    if (c == '.')
      out.emplace_back();
    else
      out.back() += c;
  return out;
}

}  // namespace

std::string netplan_key_since(const std::string& section, const std::string& scope, const std::string& key) {
  for (const auto& e : nkv_table()) {
    const std::string s = e.scope;
    const bool in_scope =
        s == scope ||
        (scope == "device" && (s == section || (s == "physical" && (section == "ethernets" || section == "wifis"))));
    if (in_scope && key == e.key) return e.since;
  }
  return "";
}

std::string netplan_key_since_at(const std::string& path) {
  // Keys hold no dot, device names and SSIDs may ("eth0.10"): read the path from its end.
  auto seg = nkv_split(path);
  if (!seg.empty() && seg.front() == "network") seg.erase(seg.begin());  // a file that wraps its config
  if (seg.size() < 3) return "";
  const std::string& key = seg.back();
  const std::string& up = seg[seg.size() - 2];
  const std::string& up2 = seg.size() >= 4 ? seg[seg.size() - 3] : "";
  std::string scope = "device";
  if (up == "auth")
    scope = "auth";
  else if (up == "parameters" && seg.front() == "bonds")
    scope = "bond";
  else if (up == "dhcp4-overrides" || up == "dhcp6-overrides")
    scope = "dhcp-overrides";
  else if (up2 == "routes" && !up.empty() && up.find_first_not_of("0123456789") == std::string::npos)
    scope = "routes";
  else if (up2 == "access-points" || path.find(".access-points.") != std::string::npos)
    scope = "access-point";
  return netplan_key_since(seg.front(), scope, key);
}

bool netplan_key_is_newer(const std::string& since) {
  return !since.empty() && compare_versions(since, kNetplanOldest) > 0;
}

}  // namespace piprov::provision::detail
