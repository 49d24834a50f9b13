// The host addresses of a network-config (seed_network_detail.hpp): the addresses, gateways and
// name servers of a version 1 or 2 config judged by the rule --ip, --gateway and --dns are judged
// by (IpValue::not_a_host(), ip_value.hpp), and each gateway by the interface's static subnets, as
// --gateway is by --ip's.
#include <algorithm>
#include <string>
#include <vector>

#include "core/finding.hpp"
#include "core/strings.hpp"
#include "provision/seed/seed_network_detail.hpp"

namespace piprov::provision::detail {
namespace {

constexpr const char* kSrcNotAHost =
    "RFC 1122 3.2.1.3 and the IANA special-purpose address registries (RFC 6890): 0.0.0.0/8, 127.0.0.0/8, "
    "224.0.0.0/4, 240.0.0.0/4, 255.255.255.255, ::, ::1, ff00::/8; RFC 950, RFC 919 (a subnet's network and "
    "broadcast address)";

std::string host_text(const nlohmann::json& j) { return j.is_string() ? j.get<std::string>() : dump_json(j, -1); }

/// seed-network-not-a-host for the value `j` at `path` when it parses (as `whose` has it: a node's
/// address with its prefix, or a bare router's or name server's address) and is no host's.
/// Values that do not parse are the syntax rules' (seed-network-address, -route, -nameserver).
void judge_host(const nlohmann::json& j, const std::string& path, const std::string& whose, const NetAdd& add,
                const std::string& netmask = "") {
  if (!j.is_string()) return;
  const std::string text = j.get<std::string>();
  auto v = IpValue::parse(netmask.empty() || text.find('/') != std::string::npos ? text : text + "/" + netmask,
                          !netmask.empty());
  if (!v || (whose != "node" && v->prefix)) return;
  if (auto why = v->not_a_host(whose == "name server"); !why.empty())
    add("seed-network-not-a-host", Severity::Error, path, text + " is " + why + ", not a " + whose + "'s",
        "give the " + whose + "'s own address (e.g. " + host_example(*v, whose) + "), as --" +
            (whose == "node"     ? "ip"
             : whose == "router" ? "gateway"
                                 : "dns") +
            " must",
        kSrcNotAHost);
}

/// Each entry of the list `j` (or `j` itself when it is one value) at `path`, by judge_host().
void judge_hosts(const nlohmann::json& j, const std::string& path, const std::string& whose, const NetAdd& add) {
  if (!j.is_array()) return judge_host(j, path, whose, add);
  for (std::size_t i = 0; i < j.size(); ++i) judge_host(j[i], path + "." + std::to_string(i), whose, add);
}

constexpr const char* kSrcOffLink =
    "netplan docs, YAML configuration (routes: on-link, \"the route is directly connected to the interface\"): "
    "https://netplan.readthedocs.io/en/stable/netplan-yaml/; RFC 1122 3.3.1.1 (a host sends to a gateway on one "
    "of its connected networks)";

/// True for a netplan boolean that is on (true, yes, on, y: netplan's src/parse.c, any case).
bool host_flag_on(const nlohmann::json& d, const char* key) {
  if (!d.is_object() || !d.contains(key)) return false;
  if (d[key].is_boolean()) return d[key].get<bool>();
  const std::string v = to_lower(host_text(d[key]));
  return v == "true" || v == "yes" || v == "on" || v == "y";
}

/// The static subnets of an interface and the address families it also gets by DHCP.
struct HostSubnets {
  std::vector<IpValue> statics;
  bool dhcp4 = false, dhcp6 = false;
};

/// The first refusal, by the rule --gateway is judged by (gateway_refusal()), of the gateway `v`
/// against the static subnets `statics` of the interface `iface`; std::nullopt when none refuses it.
std::optional<GatewayRefusal> host_gateway_refusal(const std::vector<IpValue>& statics, const IpValue& v,
                                                   const std::string& iface) {
  for (const auto& s : statics)
    if (auto r = gateway_refusal(v, s, iface + "'s address " + s.text); !r.why.empty()) return r;
  return std::nullopt;
}

/// seed-network-not-a-host for the gateway `via` at `path` when it is the own, network or broadcast
/// address of one of `subnets`' static subnets (as --gateway against --ip); else
/// seed-network-gateway-off-link when `subnets` has static subnets of its family, no DHCP for it,
/// and none of them holds it (an IPv6 link-local gateway is on-link).
void judge_on_link(const nlohmann::json& via, const std::string& path, const std::string& iface,
                   const HostSubnets& subnets, const std::string& fix, const NetAdd& add) {
  auto v = IpValue::parse(host_text(via));
  if (!v || v->prefix) return;
  if (auto r = host_gateway_refusal(subnets.statics, *v, iface))
    return add("seed-network-not-a-host", Severity::Error, path, "the gateway " + v->address() + " " + r->why,
               r->fix + ", as --gateway must", kSrcNotAHost);
  if (v->is_link_local() || (v->family == 4 ? subnets.dhcp4 : subnets.dhcp6)) return;
  std::vector<std::string> mine;
  for (const auto& s : subnets.statics)
    if (s.family == v->family) mine.push_back(s.text);
  if (mine.empty() ||
      std::any_of(subnets.statics.begin(), subnets.statics.end(), [&](const IpValue& s) { return s.contains(*v); }))
    return;
  add("seed-network-gateway-off-link", Severity::Warning, path,
      "the gateway " + v->address() + " is in none of " + iface + "'s subnets (" + join(mine, ", ") +
          "): the node could not reach it",
      fix, kSrcOffLink);
}

/// The static subnets of a version 2 device `d` (its `addresses` with a prefix).
std::vector<IpValue> host_v2_statics(const nlohmann::json& d) {
  std::vector<IpValue> statics;
  if (d.contains("addresses") && d["addresses"].is_array())
    for (const auto& a : d["addresses"])
      if (auto v = IpValue::parse(host_text(a)); v && v->prefix) statics.push_back(*v);
  return statics;
}

}  // namespace

bool v2_gateway_refused(const nlohmann::json& device, const nlohmann::json& via) {
  auto v = IpValue::parse(host_text(via));
  return device.is_object() && v && !v->prefix && host_gateway_refusal(host_v2_statics(device), *v, "").has_value();
}

void check_v2_gateways_on_link(const nlohmann::json& net, const NetAdd& add) {
  for (const auto& [section, devs] : net.items()) {
    if (!devs.is_object() || section == "version" || section == "renderer") continue;
    for (const auto& [name, d] : devs.items()) {
      if (!d.is_object()) continue;
      HostSubnets subnets{host_v2_statics(d), host_flag_on(d, "dhcp4"), host_flag_on(d, "dhcp6")};
      const std::string at = section + "." + name;
      const std::string router = "give the router of " + name + "'s network (or fix the prefix length)";
      for (const auto& [g, to] :
           {std::pair<const char*, const char*>{"gateway4", "0.0.0.0/0"}, {"gateway6", "\"::/0\""}})
        if (d.contains(g))
          judge_on_link(d[g], at + "." + g, name, subnets,
                        router + "; if it is reachable on the link anyway, write routes: [{to: " + to +
                            ", via: " + host_text(d[g]) + ", on-link: true}] instead",
                        add);
      if (!d.contains("routes") || !d["routes"].is_array()) continue;
      for (std::size_t i = 0; i < d["routes"].size(); ++i) {
        const auto& r = d["routes"][i];
        if (r.is_object() && r.contains("via") && !host_flag_on(r, "on-link"))
          judge_on_link(r["via"], at + ".routes." + std::to_string(i) + ".via", name, subnets,
                        router + "; if it is reachable on the link anyway, add on-link: true to this route", add);
      }
    }
  }
}

void check_v1_gateways_on_link(const nlohmann::json& net, const NetAdd& add) {
  if (!net.contains("config") || !net["config"].is_array()) return;
  const auto& config = net["config"];
  for (std::size_t i = 0; i < config.size(); ++i) {
    const auto& e = config[i];
    if (!e.is_object() || !e.contains("subnets") || !e["subnets"].is_array()) continue;
    const std::string name = e.contains("name") ? host_text(e["name"]) : "config." + std::to_string(i);
    HostSubnets subnets;
    for (const auto& sn : e["subnets"]) {
      if (!sn.is_object() || !sn.contains("type")) continue;
      const std::string type = host_text(sn["type"]);
      subnets.dhcp4 |= type == "dhcp" || type == "dhcp4";
      subnets.dhcp6 |= type == "dhcp6" || type.rfind("ipv6_", 0) == 0;
      const char* key = sn.contains("address") ? "address" : sn.contains("ip_address") ? "ip_address" : nullptr;
      if ((type != "static" && type != "static6") || !key) continue;
      std::string a = host_text(sn[key]);
      if (a.find('/') == std::string::npos && sn.contains("netmask")) a += "/" + host_text(sn["netmask"]);
      if (auto v = IpValue::parse(a, true); v && v->prefix) subnets.statics.push_back(*v);
    }
    for (std::size_t s = 0; s < e["subnets"].size(); ++s)
      if (e["subnets"][s].is_object() && e["subnets"][s].contains("gateway"))
        judge_on_link(e["subnets"][s]["gateway"],
                      "config." + std::to_string(i) + ".subnets." + std::to_string(s) + ".gateway", name, subnets,
                      "give the router of " + name +
                          "'s network (or fix the prefix length): version 1 has no "
                          "on-link; a version 2 route takes on-link: true",
                      add);
  }
}

void check_v2_hosts(const nlohmann::json& net, const NetAdd& add) {
  for (const auto& [section, devs] : net.items()) {
    if (!devs.is_object() || section == "version" || section == "renderer") continue;
    for (const auto& [name, d] : devs.items()) {
      if (!d.is_object()) continue;
      const std::string at = section + "." + name;
      if (d.contains("addresses") && d["addresses"].is_array())  // a bare address is netplan's syntax error
        for (std::size_t i = 0; i < d["addresses"].size(); ++i)
          if (host_text(d["addresses"][i]).find('/') != std::string::npos)
            judge_host(d["addresses"][i], at + ".addresses." + std::to_string(i), "node", add);
      for (const char* g : {"gateway4", "gateway6"})
        if (d.contains(g)) judge_host(d[g], at + "." + g, "router", add);
      if (d.contains("routes") && d["routes"].is_array())
        for (std::size_t i = 0; i < d["routes"].size(); ++i)
          if (d["routes"][i].is_object() && d["routes"][i].contains("via"))
            judge_host(d["routes"][i]["via"], at + ".routes." + std::to_string(i) + ".via", "router", add);
      if (d.contains("nameservers") && d["nameservers"].is_object() && d["nameservers"].contains("addresses"))
        judge_hosts(d["nameservers"]["addresses"], at + ".nameservers.addresses", "name server", add);
    }
  }
}

void check_v1_hosts(const nlohmann::json& net, const NetAdd& add) {
  if (!net.contains("config") || !net["config"].is_array()) return;
  const auto& config = net["config"];
  for (std::size_t i = 0; i < config.size(); ++i) {
    const auto& e = config[i];
    if (!e.is_object()) continue;
    const std::string at = "config." + std::to_string(i), type = e.contains("type") ? host_text(e["type"]) : "";
    if (type == "nameserver" && e.contains("address")) judge_hosts(e["address"], at + ".address", "name server", add);
    if (type == "route" && e.contains("gateway")) judge_host(e["gateway"], at + ".gateway", "router", add);
    if (!e.contains("subnets") || !e["subnets"].is_array()) continue;
    for (std::size_t s = 0; s < e["subnets"].size(); ++s) {
      const auto& sn = e["subnets"][s];
      if (!sn.is_object()) continue;
      const std::string sat = at + ".subnets." + std::to_string(s);
      const std::string netmask = sn.contains("netmask") ? host_text(sn["netmask"]) : "";
      for (const char* k : {"address", "ip_address"})
        if (sn.contains(k)) judge_host(sn[k], sat + "." + k, "node", add, netmask);
      if (sn.contains("gateway")) judge_host(sn["gateway"], sat + ".gateway", "router", add);
      if (sn.contains("dns_nameservers"))
        judge_hosts(sn["dns_nameservers"], sat + ".dns_nameservers", "name server", add);
    }
  }
}

}  // namespace piprov::provision::detail
