// The host addresses of a network-config (seed_network_detail.hpp): the addresses, gateways and
// name servers of a version 1 or 2 config judged by the rule --ip, --gateway and --dns are judged
// by (IpValue::not_a_host(), ip_value.hpp).
#include <string>
#include <vector>

#include "core/finding.hpp"
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
  if (auto why = v->not_a_host(); !why.empty())
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

}  // namespace

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
