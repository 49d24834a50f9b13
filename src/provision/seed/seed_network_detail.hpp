#pragma once
// Internal to the network-config check (seed_network.cpp): netplan's rules across a version 2
// config's entries (seed_network_rules.cpp).
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/finding.hpp"
#include "provision/ip_value.hpp"

namespace piprov::provision::detail {

/// Adds a finding at a path of the config ("bridges.br0.interfaces.0").
using NetAdd = std::function<void(const std::string& rule, Severity sev, const std::string& path,
                                  const std::string& message, const std::string& fix, const char* source)>;

/// Calls fn(device, section, path) for each device (a map) of a version 2 config's ethernets,
/// wifis, bonds, bridges and vlans, in that order; path is "SECTION.NAME". Other sections
/// (tunnels, modems ...) are not visited. Source: netplan docs, YAML configuration.
void for_each_v2_device(const nlohmann::json& net,
                        const std::function<void(const nlohmann::json&, const char*, const std::string&)>& fn);

/// seed-network-reference (error): every interface a bridge or bond lists under `interfaces`, and
/// every VLAN's `link`, is defined in the config (netplan: "br0: interface 'ens3' is not defined";
/// netplan then applies nothing and the node has no network).
void check_v2_references(const nlohmann::json& net, const NetAdd& add);

/// The 1-based line of a finding path of the config ("bridges.br0.interfaces.0"), 0 when unknown.
using NetLine = std::function<int(const std::string& path)>;

/// seed-network-member-conflict (error): an interface listed under the `interfaces` of two
/// bridges, of two bonds, or of a bridge and a bond (netplan src/parse.c handle_bridge_interfaces,
/// handle_bond_interfaces: "br1: interface 'eth0' is already assigned to bridge br0", "... to bond
/// bond0"; netplan refuses the whole config). The finding is on the listing netplan parses second
/// (document order by `line_of`; a member defined below its listing is assigned on netplan's second
/// pass), its fix names the membership to remove (or the bond to bridge instead). A member the
/// config does not define is left to check_v2_references. Sources: netplan src/parse.c;
/// tests/generator/test_bridges.py test_bridge_multiple_assignments, test_bonds.py
/// test_bond_multiple_assignments, test_bond_bridge_cross_assignments1/2.
void check_v2_members(const nlohmann::json& net, const NetAdd& add, const NetLine& line_of);

/// seed-network-unknown-key (error): a key netplan does not know in a device of ethernets, wifis
/// (and their access-points, auth), bonds, bridges or vlans, or in its match, nameservers,
/// routes, routing-policy, dhcp4/6-overrides, ra-overrides or bond/bridge parameters (netplan
/// refuses the whole config: "Error in network definition: unknown key '...'"), with the nearest
/// key as "did you mean"; seed-network-netplan-version (warning) for a key only a netplan newer
/// than kNetplanOldest reads (netplan_key_since()), judged by the image's netplan in
/// check_seed(). Sections piprov does not model (tunnels, modems ...) are not looked into.
/// Source: netplan docs, YAML configuration.
void check_v2_keys(const nlohmann::json& net, const NetAdd& add);

/// seed-network-device (error): a boolean or unsigned integer key netplan parses (dhcp4, mtu,
/// a VLAN's id 0-4094, a route's metric, a bond's min-links ...: the one table of netplan_key_types.cpp)
/// holding another value, named with the key, the value and the range (netplan refuses the whole
/// config: "invalid unsigned int value 'big'"). Source: netplan docs, YAML configuration; src/parse.c.
void check_v2_types(const nlohmann::json& net, const NetAdd& add);

/// The oldest netplan piprov judges a config against without an image: Ubuntu 20.04's at release
/// (focal's netplan.io 0.99). Keys netplan reads from this version on pass without a finding.
inline constexpr const char* kNetplanOldest = "0.99";
/// The newest netplan whose YAML reference piprov's key table follows (a config is judged by it
/// when there is no image).
inline constexpr const char* kNetplanNewest = "1.1";

/// The netplan version that first reads `key` ("0.105" for regulatory-domain), per the "since"
/// notes of netplan's YAML reference (doc/netplan-yaml.md; src/parse.c has no handler for it
/// before), "" when no note. `scope`: "device" (a key of a device of `section`: "ethernets",
/// "wifis", "bonds", "bridges", "vlans"), "access-point", "auth", "routes", "dhcp-overrides" or
/// "bond" (bonds' parameters).
std::string netplan_key_since(const std::string& section, const std::string& scope, const std::string& key);
/// netplan_key_since() of the key at a finding path ("wifis.wlan0.access-points.home.hidden",
/// "network." first when the file wraps its config).
std::string netplan_key_since_at(const std::string& path);
/// True when `since` (a netplan_key_since()) is newer than kNetplanOldest: an older netplan refuses the key.
bool netplan_key_is_newer(const std::string& since);

/// The network-config findings judged by the image's netplan `netplan` ("0.99"; "" = unknown:
/// only the fixes say so): seed-network-route-default an info from netplan 0.103, an error
/// before (Ubuntu 20.04 before 20.04.4); seed-network-netplan-version an info when that netplan
/// reads the key (netplan_key_since_at()), an error naming the version when it refuses it.
void judge_by_image_netplan(const std::string& netplan, Findings& findings);

/// seed-network-reference for a version 1 config: a `vlan` entry's `vlan_link` names no entry of
/// the config (error: cloud-init renders it as a VLAN `link` netplan refuses); a `bond`'s
/// `bond_interfaces` or a `bridge`'s `bridge_interfaces` names no entry (warning: cloud-init's
/// network_state adds a placeholder interface of that name, with no MAC address, so the bond or
/// bridge has a member only if the Pi has an interface of exactly that name). Sources: cloud-init
/// docs, Networking config Version 1; cloudinit/net/network_state.py handle_bond/handle_bridge.
void check_v1_references(const nlohmann::json& net, const NetAdd& add);

/// seed-network-member-conflict for a version 1 config: a member in the `bridge_interfaces` of two
/// bridges, or of a bridge and a bond's `bond_interfaces` (error: cloud-init renders it for netplan
/// as two listings netplan refuses, "br1: interface 'eth0' is already assigned to bridge br0" with
/// the bridges in name order and bonds before bridges); a member in the `bond_interfaces` of two
/// bonds (warning: network_state keeps one bond-master, the last bond listing it, so the earlier
/// bond loses the member). Sources: cloudinit/net/network_state.py handle_bond, handle_bridge;
/// cloudinit/net/netplan.py; netplan src/parse.c handle_bridge_interfaces, handle_bond_interfaces.
void check_v1_members(const nlohmann::json& net, const NetAdd& add);

/// seed-network-not-a-host (error): an address (v2 `addresses`, a v1 static subnet's `address` with
/// its prefix or `netmask`), a gateway (`gateway4`/`gateway6`, a route's `via`, a v1 `gateway`) or a
/// name server that no host has on a link: IpValue::not_a_host(), the rule --ip, --gateway and --dns
/// refuse by (loopback, multicast, 0.0.0.0/8, 240.0.0.0/4, 255.255.255.255, ::, ::1, ff00::/8, a
/// subnet's network or broadcast address; RFC 1122 3.2.1.3, RFC 6890, RFC 950, RFC 919), with the
/// fix --ip's refusal gives (host_example()). Values that do not parse are left to the syntax rules.
void check_v2_hosts(const nlohmann::json& net, const NetAdd& add);
void check_v1_hosts(const nlohmann::json& net, const NetAdd& add);

/// seed-network-not-a-host (error), by the rule --gateway is judged by against --ip
/// (gateway_refusal(), ip_value.hpp): a gateway (`gateway4`/`gateway6`, a route's `via`, a v1
/// subnet's `gateway`) that is the own address, or the IPv4 network or broadcast address, of one of
/// its interface's static subnets (RFC 950, RFC 919); then no off-link warning for it.
/// seed-network-gateway-off-link (warning): a gateway (`gateway4`/`gateway6`, a route's `via`, a v1
/// subnet's `gateway`) in none of its interface's static subnets of that family, as --gateway outside
/// --ip's subnet is refused: the node could not reach it. No finding when the interface has no static
/// subnet of that family or gets that family by DHCP, for an IPv6 link-local gateway (RFC 4861 4.2),
/// or for a v2 route with `on-link: true` (netplan docs, YAML configuration).
void check_v2_gateways_on_link(const nlohmann::json& net, const NetAdd& add);

/// True when the gateway `via` of the version 2 device `device` is refused as above (so a fix
/// naming it would propose a refused value).
bool v2_gateway_refused(const nlohmann::json& device, const nlohmann::json& via);
void check_v1_gateways_on_link(const nlohmann::json& net, const NetAdd& add);

/// One default route declaration: a v2 device's gateway4/gateway6 or route to a default network
/// (`to: default`, 0.0.0.0/0, ::/0), or a v1 subnet's `gateway` (cloud-init renders it as the
/// interface's default route). `iface` is the interface's name, `at` the finding path.
struct DefaultRouteDecl {
  int family = 0;  ///< 4 or 6
  std::string table, metric, iface, what, at;
  bool gateway = false;  ///< gateway4/gateway6 (v2) or a subnet's gateway (v1)
};

/// The default route declarations of a version 2 config, over all its devices (sections in key order).
std::vector<DefaultRouteDecl> v2_default_routes(const nlohmann::json& net);
/// The default routes (subnet gateways) of a version 1 config.
std::vector<DefaultRouteDecl> v1_default_routes(const nlohmann::json& net);

/// seed-network-default-route-conflict (warning): two default routes of one IP family, table and
/// metric anywhere in the config, on one interface or on two: netplan compares them across all
/// interfaces, "Conflicting default route declarations for IPv4 (table: main, metric: default),
/// first declared in eth0 but also in eth1" (netplan src/validation.c,
/// validate_default_route_consistency; tests/generator/test_errors.py
/// test_multiple_ip4_gateways). The fix keeps one.
void check_default_routes(const std::vector<DefaultRouteDecl>& decls, const NetAdd& add);

/// seed-network-gateway's fix for the gateway4/gateway6 at `at` (via `via`): remove it when the
/// interface's routes or an earlier interface already hold that family's default route (so the
/// fix never leads to two), else move it under routes. "" when `at` is no declaration.
std::string gateway_fix(const std::vector<DefaultRouteDecl>& decls, const std::string& at, const std::string& via);

}  // namespace piprov::provision::detail
