#pragma once
// Internal to the network-config check (seed_network.cpp): netplan's rules across a version 2
// config's entries (seed_network_rules.cpp).
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "core/finding.hpp"
#include "provision/ip_value.hpp"

namespace piprov::provision::detail {

/// Adds a finding at a path of the config ("bridges.br0.interfaces.0").
using NetAdd = std::function<void(const std::string& rule, Severity sev, const std::string& path,
                                  const std::string& message, const std::string& fix, const char* source)>;

/// seed-network-reference (error): every interface a bridge or bond lists under `interfaces`, and
/// every VLAN's `link`, is defined in the config (netplan: "br0: interface 'ens3' is not defined";
/// netplan then applies nothing and the node has no network).
void check_v2_references(const nlohmann::json& net, const NetAdd& add);

/// seed-network-reference for a version 1 config: a `vlan` entry's `vlan_link` names no entry of
/// the config (error: cloud-init renders it as a VLAN `link` netplan refuses); a `bond`'s
/// `bond_interfaces` or a `bridge`'s `bridge_interfaces` names no entry (warning: cloud-init's
/// network_state adds a placeholder interface of that name, with no MAC address, so the bond or
/// bridge has a member only if the Pi has an interface of exactly that name). Sources: cloud-init
/// docs, Networking config Version 1; cloudinit/net/network_state.py handle_bond/handle_bridge.
void check_v1_references(const nlohmann::json& net, const NetAdd& add);

/// seed-network-default-route-conflict (warning): two default routes of one IP family (same table
/// and metric) on one interface: gateway4/gateway6 plus a route to a default network, or
/// `to: default` plus `to: 0.0.0.0/0` ("::/0"). netplan: "Conflicting default route declarations
/// for IPv4 (table: main, metric: default), first declared in eth0 but also in eth0". The fix
/// keeps one. Returns the families (4, 6) that have a default route in `routes`, for the
/// gateway4/gateway6 fix.
std::pair<bool, bool> check_v2_default_routes(const nlohmann::json& dev, const std::string& path, const NetAdd& add);

}  // namespace piprov::provision::detail
