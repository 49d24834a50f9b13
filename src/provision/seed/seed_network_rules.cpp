// netplan's rules across a version 2 network-config's entries, and the references of a version 1 one
// (seed_network_detail.hpp).
#include <map>
#include <set>
#include <vector>

#include "core/finding.hpp"
#include "provision/seed/seed_network_detail.hpp"

namespace piprov::provision::detail {
namespace {

constexpr const char* kSrcNetplanRefs =
    "netplan docs, YAML configuration (bridges/bonds 'interfaces', vlans 'link'): "
    "https://netplan.readthedocs.io/en/stable/netplan-yaml/; netplan tests/ctests/fixtures/missing_interface.yaml";
constexpr const char* kSrcNetplanDefault =
    "netplan: \"Conflicting default route declarations\" (src/validation.c, validate_default_route_consistency); "
    "netplan docs, YAML configuration: gateway4 deprecated, routes";

std::string route_text(const nlohmann::json& j) { return j.is_string() ? j.get<std::string>() : dump_json(j, -1); }

/// The IP family of a default route entry (to: default / 0.0.0.0/0 / ::/0), 0 when it is not one.
int default_route_family(const nlohmann::json& r) {
  if (!r.is_object() || !r.contains("to")) return 0;
  const std::string to = route_text(r["to"]);
  if (to == "default") {
    auto via = r.contains("via") ? IpValue::parse(route_text(r["via"])) : std::nullopt;
    return via ? via->family : 4;  // netplan takes the family of 'via'
  }
  auto v = IpValue::parse(to);
  return v && v->is_default_route() ? v->family : 0;
}

}  // namespace

void check_v2_references(const nlohmann::json& net, const NetAdd& add) {
  std::set<std::string> defined;
  for (const auto& [section, devs] : net.items())
    if (devs.is_object() && section != "version" && section != "renderer")
      for (const auto& [name, d] : devs.items()) defined.insert(name);
  auto need = [&](const std::string& owner, const nlohmann::json& ref, const std::string& path) {
    const std::string name = route_text(ref);
    if (defined.count(name)) return;
    add("seed-network-reference", Severity::Error, path,
        owner + ": interface '" + name + "' is not defined (netplan): netplan refuses the whole config and the node " +
            "comes up without network",
        "define " + name + " (e.g. under ethernets: {" + name + ": {}}) or name an interface this config defines",
        kSrcNetplanRefs);
  };
  for (const char* section : {"bridges", "bonds"}) {
    if (!net.contains(section) || !net[section].is_object()) continue;
    for (const auto& [name, d] : net[section].items()) {
      if (!d.is_object() || !d.contains("interfaces") || !d["interfaces"].is_array()) continue;
      const std::string at = std::string(section) + "." + name + ".interfaces";
      for (std::size_t i = 0; i < d["interfaces"].size(); ++i)
        need(name, d["interfaces"][i], at + "." + std::to_string(i));
    }
  }
  if (net.contains("vlans") && net["vlans"].is_object())
    for (const auto& [name, d] : net["vlans"].items())
      if (d.is_object() && d.contains("link")) need(name, d["link"], "vlans." + name + ".link");
}

void check_v1_references(const nlohmann::json& net, const NetAdd& add) {
  static constexpr const char* kSrcV1Refs =
      "cloud-init docs, Networking config Version 1 (bond_interfaces, bridge_interfaces, vlan_link): "
      "https://cloudinit.readthedocs.io/en/latest/reference/network-config-format-v1.html; "
      "cloudinit/net/network_state.py (handle_bond, handle_bridge: placeholder interfaces)";
  if (!net.contains("config") || !net["config"].is_array()) return;
  const auto& config = net["config"];
  std::set<std::string> defined;
  for (const auto& e : config)
    if (e.is_object() && e.contains("name")) defined.insert(route_text(e["name"]));
  for (std::size_t i = 0; i < config.size(); ++i) {
    const auto& e = config[i];
    if (!e.is_object() || !e.contains("type")) continue;
    const std::string type = route_text(e["type"]), owner = e.contains("name") ? route_text(e["name"]) : type;
    const std::string at = "config." + std::to_string(i);
    if (type == "vlan" && e.contains("vlan_link") && !defined.count(route_text(e["vlan_link"]))) {
      const std::string link = route_text(e["vlan_link"]);
      add("seed-network-reference", Severity::Error, at + ".vlan_link",
          owner + ": vlan_link '" + link + "' names no entry of this config: cloud-init renders it as a VLAN link " +
              "netplan does not define, and netplan refuses the whole config (\"interface '" + link +
              "' is not defined\"): the node comes up without network",
          "add an entry {type: physical, name: " + link +
              "} (with its mac_address) or link an interface this config "
              "defines",
          kSrcV1Refs);
    }
    const char* key = type == "bond" ? "bond_interfaces" : type == "bridge" ? "bridge_interfaces" : nullptr;
    if (!key || !e.contains(key) || !e[key].is_array()) continue;
    for (std::size_t m = 0; m < e[key].size(); ++m) {
      const std::string name = route_text(e[key][m]);
      if (defined.count(name)) continue;
      add("seed-network-reference", Severity::Warning, at + "." + key + "." + std::to_string(m),
          owner + ": " + key + " names '" + name + "', which no entry of this config defines: cloud-init adds a " +
              "placeholder interface '" + name + "' with no MAC address, so the " + type +
              " has this member only if the Pi has an interface of exactly that name",
          "add an entry {type: physical, name: " + name +
              ", mac_address: ...} or name an interface this config "
              "defines",
          kSrcV1Refs);
    }
  }
}

std::pair<bool, bool> check_v2_default_routes(const nlohmann::json& dev, const std::string& path, const NetAdd& add) {
  struct Decl {
    std::string what, at;
  };
  std::map<std::tuple<int, std::string, std::string>, std::vector<Decl>> seen;  // (family, table, metric)
  bool route4 = false, route6 = false;
  for (const auto& [g, fam] : {std::pair<const char*, int>{"gateway4", 4}, {"gateway6", 6}})
    if (dev.contains(g))
      seen[{fam, "main", "default"}].push_back({std::string(g) + ": " + route_text(dev[g]), path + "." + g});
  if (dev.contains("routes") && dev["routes"].is_array())
    for (std::size_t i = 0; i < dev["routes"].size(); ++i) {
      const auto& r = dev["routes"][i];
      const int fam = default_route_family(r);
      if (!fam) continue;
      (fam == 4 ? route4 : route6) = true;
      const std::string table = r.contains("table") ? route_text(r["table"]) : "main";
      const std::string metric = r.contains("metric") ? route_text(r["metric"]) : "default";
      seen[{fam, table, metric}].push_back(
          {"to: " + route_text(r["to"]) + (r.contains("via") ? " via " + route_text(r["via"]) : ""),
           path + ".routes." + std::to_string(i)});
    }
  for (const auto& [key, decls] : seen) {
    if (decls.size() < 2) continue;
    const auto& [fam, table, metric] = key;
    std::vector<std::string> whats;
    for (const auto& d : decls) whats.push_back("'" + d.what + "'");
    std::string list;
    for (std::size_t i = 0; i < whats.size(); ++i)
      list += (i ? (i + 1 == whats.size() ? " and " : ", ") : "") + whats[i];
    const std::string name = path.substr(path.rfind('.') + 1);
    const bool has_gateway = decls.front().what.rfind("gateway", 0) == 0;
    add("seed-network-default-route-conflict", Severity::Warning, decls[1].at,
        "Conflicting default route declarations for IPv" + std::to_string(fam) + " (table: " + table +
            ", metric: " + metric + "), first declared in " + name + " but also in " + name + " (netplan): " + list +
            " are two default routes on one interface",
        has_gateway ? "keep one: remove " + std::string(fam == 4 ? "gateway4" : "gateway6") +
                          " (deprecated) and keep the route under routes"
                    : "keep one: remove all but one of these routes (to: " +
                          std::string(fam == 4 ? "0.0.0.0/0" : "\"::/0\"") + " is read by every netplan)",
        kSrcNetplanDefault);
  }
  return {route4, route6};
}

}  // namespace piprov::provision::detail
