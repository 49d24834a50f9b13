// netplan's rules across a version 2 network-config's entries, and the references of a version 1 one
// (seed_network_detail.hpp).
#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <vector>

#include "core/finding.hpp"
#include "provision/seed/seed_network_detail.hpp"

namespace piprov::provision::detail {
namespace {

constexpr const char* kSrcNetplanRefs =
    "netplan docs, YAML configuration (bridges/bonds 'interfaces', vlans 'link'): "
    "https://netplan.readthedocs.io/en/stable/netplan-yaml/; netplan tests/ctests/fixtures/missing_interface.yaml";
constexpr const char* kSrcNetplanDefault =
    "netplan: \"Conflicting default route declarations\" (src/validation.c, validate_default_route_consistency; "
    "tests/generator/test_errors.py test_multiple_ip4_gateways, test_multiple_ip6_gateways); "
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

namespace {

constexpr const char* kSrcNetplanMembers =
    "netplan src/parse.c handle_bridge_interfaces, handle_bond_interfaces (\"interface '...' is already assigned "
    "to bridge/bond ...\"); tests/generator/test_bridges.py test_bridge_multiple_assignments, test_bonds.py "
    "test_bond_bridge_cross_assignments1/2; netplan docs, YAML configuration: "
    "https://netplan.readthedocs.io/en/stable/netplan-yaml/";

/// One entry of a bridge's or bond's `interfaces`: `member` listed by `owner` (a "bridge" or "bond").
struct MemberClaim {
  std::string member, owner, kind, path;
  int pass = 0, line = 0;  ///< netplan's parsing pass (1, or 2 for a member defined below), the line
};

/// The fix for `second` listing the member `first` already holds.
std::string member_conflict_fix(const MemberClaim& first, const MemberClaim& second) {
  const std::string& m = second.member;
  if (first.kind == second.kind)
    return "remove " + m + " from " + second.owner + "'s interfaces (or from " + first.owner + "'s): an interface is " +
           "a member of one " + first.kind + " only";
  const MemberClaim& bridge = first.kind == "bridge" ? first : second;
  const MemberClaim& bond = first.kind == "bond" ? first : second;
  return "remove " + m + " from " + bridge.owner + "'s interfaces and list " + bond.owner + " there instead (the " +
         "bridge then carries the bond, and " + m + " through it), or remove " + m + " from " + bond.owner +
         "'s interfaces";
}

}  // namespace

void check_v2_members(const nlohmann::json& net, const NetAdd& add, const NetLine& line_of) {
  std::map<std::string, std::string> defined;  // name -> "SECTION.NAME"
  std::vector<MemberClaim> claims;
  for_each_v2_device(net, [&](const nlohmann::json& d, const char* section, const std::string& path) {
    const std::string sec = section;
    defined.emplace(path.substr(sec.size() + 1), path);
    if ((sec != "bridges" && sec != "bonds") || !d.contains("interfaces") || !d["interfaces"].is_array()) return;
    for (std::size_t i = 0; i < d["interfaces"].size(); ++i)
      claims.push_back({route_text(d["interfaces"][i]), path.substr(sec.size() + 1),
                        sec == "bridges" ? "bridge" : "bond", path + ".interfaces." + std::to_string(i)});
  });
  std::vector<MemberClaim> known;
  for (auto& c : claims) {
    auto def = defined.find(c.member);
    if (def == defined.end()) continue;  // "is not defined": check_v2_references
    c.line = line_of(c.path);
    c.pass = line_of(def->second) < c.line ? 1 : 2;
    known.push_back(c);
  }
  std::stable_sort(known.begin(), known.end(), [](const MemberClaim& a, const MemberClaim& b) {
    return std::tie(a.pass, a.line) < std::tie(b.pass, b.line);
  });
  std::map<std::string, const MemberClaim*> first;  // member -> the listing that assigned it
  for (const auto& c : known) {
    auto [it, fresh] = first.emplace(c.member, &c);
    if (fresh) continue;
    const MemberClaim& a = *it->second;
    if (a.owner == c.owner && a.kind == c.kind) continue;  // listed twice by one bridge or bond: netplan takes it
    add("seed-network-member-conflict", Severity::Error, c.path,
        c.owner + ": interface '" + c.member + "' is already assigned to " + a.kind + " " + a.owner +
            " (netplan): netplan refuses the whole config and the node comes up without network",
        member_conflict_fix(a, c), kSrcNetplanMembers);
  }
}

void check_v1_members(const nlohmann::json& net, const NetAdd& add) {
  static constexpr const char* kSrcV1Members =
      "cloudinit/net/network_state.py (handle_bond: one bond-master per interface, the last bond listing it; "
      "handle_bridge: bridge_ports as listed) and cloudinit/net/netplan.py (bonds then bridges, in name order); "
      "netplan src/parse.c handle_bridge_interfaces, handle_bond_interfaces (\"is already assigned to bridge/bond\")";
  if (!net.contains("config") || !net["config"].is_array()) return;
  const auto& config = net["config"];
  std::map<std::string, std::pair<std::string, std::string>> bond_of;  // member -> (bond, path), the last bond
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> bridges_of;  // member -> (bridge, path)
  for (std::size_t i = 0; i < config.size(); ++i) {
    const auto& e = config[i];
    if (!e.is_object() || !e.contains("type") || !e.contains("name")) continue;
    const std::string type = route_text(e["type"]), owner = route_text(e["name"]);
    const char* key = type == "bond" ? "bond_interfaces" : type == "bridge" ? "bridge_interfaces" : nullptr;
    if (!key || !e.contains(key) || !e[key].is_array()) continue;
    for (std::size_t m = 0; m < e[key].size(); ++m) {
      const std::string member = route_text(e[key][m]);
      const std::string at = "config." + std::to_string(i) + "." + key + "." + std::to_string(m);
      if (type == "bridge") {
        auto& list = bridges_of[member];
        if (std::none_of(list.begin(), list.end(), [&](const auto& b) { return b.first == owner; }))
          list.emplace_back(owner, at);
        continue;
      }
      auto [it, fresh] = bond_of.try_emplace(member, owner, at);
      if (fresh || it->second.first == owner) continue;
      add("seed-network-member-conflict", Severity::Warning, it->second.second,
          it->second.first + ": bond_interfaces lists '" + member + "', which bond " + owner +
              " lists too: cloud-init's network_state gives " + member +
              " one bond-master, the last bond listing it (" + owner + "), so " + it->second.first + " has no " +
              member,
          "remove " + member + " from " + it->second.first + "'s bond_interfaces (or from " + owner +
              "'s): an interface is a member of one bond only",
          kSrcV1Members);
      it->second = {owner, at};
    }
  }
  const std::string refused = ": the node comes up without network";
  for (auto& [member, list] : bridges_of) {
    std::sort(list.begin(), list.end());  // cloud-init writes the bridges in name order
    auto bond = bond_of.find(member);
    for (std::size_t k = 0; k < list.size(); ++k) {
      const auto& [bridge, at] = list[k];
      if (bond != bond_of.end()) {
        const std::string& b = bond->second.first;
        add("seed-network-member-conflict", Severity::Error, at,
            bridge + ": bridge_interfaces lists '" + member + "', which bond " + b +
                "'s bond_interfaces also lists: rendered for netplan, the config is refused (\"" + bridge +
                ": interface '" + member + "' is already assigned to bond " + b + "\")" + refused,
            "remove " + member + " from " + bridge + "'s bridge_interfaces and list " + b +
                " there instead (the bridge then carries the bond, and " + member + " through it), or remove " +
                member + " from " + b + "'s bond_interfaces",
            kSrcV1Members);
      } else if (k > 0) {
        add("seed-network-member-conflict", Severity::Error, at,
            bridge + ": bridge_interfaces lists '" + member + "', which bridge " + list[0].first +
                " also lists: rendered for netplan, the config is refused (\"" + bridge + ": interface '" + member +
                "' is already assigned to bridge " + list[0].first + "\")" + refused,
            "remove " + member + " from " + bridge + "'s bridge_interfaces (or from " + list[0].first +
                "'s): an interface is a port of one bridge only",
            kSrcV1Members);
      }
    }
  }
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

namespace {

/// The default routes of one version 2 device `name` at `path`: gateway4/gateway6, then `routes`.
void collect_v2_device_defaults(const nlohmann::json& dev, const std::string& name, const std::string& path,
                                std::vector<DefaultRouteDecl>& out) {
  for (const auto& [g, fam] : {std::pair<const char*, int>{"gateway4", 4}, {"gateway6", 6}})
    if (dev.contains(g))
      out.push_back({fam, "main", "default", name, std::string(g) + ": " + route_text(dev[g]), path + "." + g, true});
  if (!dev.contains("routes") || !dev["routes"].is_array()) return;
  for (std::size_t i = 0; i < dev["routes"].size(); ++i) {
    const auto& r = dev["routes"][i];
    const int fam = default_route_family(r);
    if (!fam) continue;
    out.push_back({fam, r.contains("table") ? route_text(r["table"]) : "main",
                   r.contains("metric") ? route_text(r["metric"]) : "default", name,
                   "to: " + route_text(r["to"]) + (r.contains("via") ? " via " + route_text(r["via"]) : ""),
                   path + ".routes." + std::to_string(i), false});
  }
}

}  // namespace

std::vector<DefaultRouteDecl> v2_default_routes(const nlohmann::json& net) {
  std::vector<DefaultRouteDecl> out;
  for (const auto& [section, devs] : net.items())
    if (devs.is_object() && section != "version" && section != "renderer")
      for (const auto& [name, d] : devs.items())
        if (d.is_object()) collect_v2_device_defaults(d, name, section + "." + name, out);
  return out;
}

std::vector<DefaultRouteDecl> v1_default_routes(const nlohmann::json& net) {
  std::vector<DefaultRouteDecl> out;
  if (!net.contains("config") || !net["config"].is_array()) return out;
  const auto& config = net["config"];
  for (std::size_t i = 0; i < config.size(); ++i) {
    const auto& e = config[i];
    if (!e.is_object() || !e.contains("subnets") || !e["subnets"].is_array()) continue;
    const std::string name = e.contains("name") ? route_text(e["name"]) : "config." + std::to_string(i);
    for (std::size_t s = 0; s < e["subnets"].size(); ++s) {
      const auto& sn = e["subnets"][s];
      if (!sn.is_object() || !sn.contains("gateway")) continue;
      auto gw = IpValue::parse(route_text(sn["gateway"]));
      if (!gw || gw->prefix) continue;
      out.push_back({gw->family, "main", "default", name, "gateway: " + route_text(sn["gateway"]),
                     "config." + std::to_string(i) + ".subnets." + std::to_string(s) + ".gateway", true});
    }
  }
  return out;
}

namespace {
/// "two", "three" ... for a count of default routes (2 and more), digits past ten.
std::string route_count_words(std::size_t n) {
  static const char* const words[] = {"two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"};
  return n >= 2 && n <= 10 ? words[n - 2] : std::to_string(n);
}
}  // namespace

void check_default_routes(const std::vector<DefaultRouteDecl>& decls, const NetAdd& add) {
  std::map<std::tuple<int, std::string, std::string>, std::vector<const DefaultRouteDecl*>> seen;
  for (const auto& d : decls) seen[{d.family, d.table, d.metric}].push_back(&d);
  for (const auto& [key, group] : seen) {
    if (group.size() < 2) continue;
    const auto& [fam, table, metric] = key;
    const DefaultRouteDecl& first = *group[0];
    const DefaultRouteDecl& second = *group[1];
    const bool one_interface =
        std::all_of(group.begin(), group.end(), [&](const DefaultRouteDecl* d) { return d->iface == first.iface; });
    std::string list;
    for (std::size_t i = 0; i < group.size(); ++i)
      list += (i ? (i + 1 == group.size() ? " and " : ", ") : "") + ("'" + group[i]->what + "'") +
              (one_interface ? "" : " (" + group[i]->iface + ")");
    const std::string g = fam == 4 ? "gateway4" : "gateway6";
    std::string fix;
    if (!one_interface)
      fix = "keep one IPv" + std::to_string(fam) + " default route in the whole config (e.g. " + first.iface +
            "'s): remove the others, or give them different metrics";
    else if (first.gateway && first.what.rfind("gateway:", 0) != 0)
      fix = "keep one: remove " + g + " (deprecated) and keep the route under routes";
    else if (first.gateway)
      fix = "keep one: remove 'gateway' from all but one subnet";
    else
      fix = "keep one: remove all but one of these routes (to: " + std::string(fam == 4 ? "0.0.0.0/0" : "\"::/0\"") +
            " is read by every netplan)";
    add("seed-network-default-route-conflict", Severity::Warning, second.at,
        "Conflicting default route declarations for IPv" + std::to_string(fam) + " (table: " + table + ", metric: " +
            metric + "), first declared in " + first.iface + " but also in " + second.iface + " (netplan): " + list +
            " are " + route_count_words(group.size()) + " default routes" + (one_interface ? " on one interface" : ""),
        fix, kSrcNetplanDefault);
  }
}

std::string gateway_fix(const std::vector<DefaultRouteDecl>& decls, const std::string& at, const std::string& via) {
  const DefaultRouteDecl* self = nullptr;
  for (const auto& d : decls)
    if (d.at == at) self = &d;
  if (!self) return "";
  const std::string g = self->family == 4 ? "gateway4" : "gateway6";
  const DefaultRouteDecl* first = nullptr;
  bool same_iface_route = false;
  for (const auto& d : decls) {
    if (d.family != self->family || d.table != "main" || d.metric != "default") continue;
    if (!first) first = &d;
    if (&d != self && d.iface == self->iface) same_iface_route = true;
  }
  if (same_iface_route) return "remove " + g + ": routes already holds the default route";
  if (first != self)
    return "remove " + g + ": " + first->iface + " already declares the IPv" + std::to_string(self->family) +
           " default route (one per family)";
  return "use routes: [{to: " + std::string(self->family == 4 ? "0.0.0.0/0" : "\"::/0\"") + ", via: " + via + "}]";
}

}  // namespace piprov::provision::detail
