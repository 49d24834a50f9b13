// network-config checks of the seed check (seed_check.hpp): what netplan
// (Ubuntu, cloud-init passes v2 through) and cloud-init's own network_state
// (v1 everywhere, v2 on other renderers) both accept.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <set>

#include "core/finding.hpp"
#include "core/strings.hpp"
#include "provision/seed/seed_check.hpp"
#include "provision/seed/seed_check_detail.hpp"
#include "provision/seed/seed_network_detail.hpp"
#include "provision/seed/yaml_json.hpp"

namespace piprov::provision {
namespace {

constexpr const char* kSrcNetV2 =
    "cloud-init docs, Networking config Version 2: "
    "https://cloudinit.readthedocs.io/en/latest/reference/network-config-format-v2.html; netplan docs: "
    "https://netplan.readthedocs.io/en/stable/netplan-yaml/";
constexpr const char* kSrcNetV1 =
    "cloud-init docs, Networking config Version 1: "
    "https://cloudinit.readthedocs.io/en/latest/reference/network-config-format-v1.html";
constexpr const char* kSrcDefaultRoute =
    "netplan < 0.103 (Ubuntu 20.04 before 20.04.4) and cloud-init's network_state before PR 6391 reject 'to: "
    "default': https://github.com/canonical/cloud-init/issues/3988, "
    "https://github.com/canonical/cloud-init/issues/4133, "
    "https://github.com/canonical/cloud-init/pull/6391";

/// 4, 6 or 0 (not a bare IP address).
int nw_family(const std::string& a) {
  auto v = IpValue::parse(a);
  return v && !v->prefix ? v->family : 0;
}

/// netplan's address rule: "" when `s` is ADDR/PREFIX with prefix 1..32 / 1..128, else netplan's message.
std::string nw_netplan_address(const std::string& s) {
  if (s.find('/') == std::string::npos) return "address '" + s + "' is missing /prefixlength";
  if (!IpValue::parse(s.substr(0, s.find('/'))))
    return "malformed address '" + s + "', must be X.X.X.X/NN or X:X:X:X:X:X:X:X/NN";
  auto v = IpValue::parse(s);
  if (!v || *v->prefix == 0) return "invalid prefix length in address '" + s + "'";
  return "";
}

/// Python's ipaddress.ip_network(s, strict=False): ADDR, ADDR/PREFIX, IPv4 ADDR/NETMASK. The family, 0 when invalid;
/// *bare when there is no prefix.
int nw_network(const std::string& s, bool* bare = nullptr) {
  auto v = IpValue::parse(s, true);
  if (bare) *bare = v && !v->prefix;
  return v ? v->family : 0;
}

std::string nw_text(const nlohmann::json& j) {
  if (j.is_string()) return j.get<std::string>();
  return dump_json(j, -1);
}

struct NetChecker {
  const YamlDoc& doc;
  const std::string& file;
  Findings& out;
  std::string prefix;                                 ///< "network." when the file wraps its config
  std::vector<detail::DefaultRouteDecl> defaults_{};  ///< a v2 config's default routes (all devices)

  void add(const std::string& rule, Severity sev, const std::string& path, const std::string& message,
           const std::string& fix, const char* source) {
    std::string at = join_path(prefix.empty() ? "" : prefix.substr(0, prefix.size() - 1), path);
    out.push_back(seed_finding(rule, sev, seed_line(doc, at), at, file, message, fix, source));
  }

  detail::NetAdd adder() {
    return [this](const std::string& rule, Severity sev, const std::string& path, const std::string& message,
                  const std::string& fix, const char* source) { add(rule, sev, path, message, fix, source); };
  }

  void v2_addresses(const nlohmann::json& a, const std::string& path) {
    if (!a.is_array())
      return add("seed-network-address", Severity::Error, path, "'addresses' is not a list",
                 "write addresses: [192.168.1.11/24]", kSrcNetV2);
    for (std::size_t i = 0; i < a.size(); ++i) {
      std::string at = path + "." + std::to_string(i);
      if (a[i].is_object()) {
        add("seed-network-address", Severity::Warning, at,
            "an address with options (ADDR/PREFIX: {lifetime, label}) is netplan-only: cloud-init's own "
            "network_state (non-netplan renderers) cannot read it",
            "write the address as a plain 'ADDR/PREFIX' string unless the image renders with netplan", kSrcNetV2);
      } else if (auto why = nw_netplan_address(nw_text(a[i])); !why.empty()) {
        add("seed-network-address", Severity::Error, at, why + " (netplan)", "write ADDR/PREFIX, e.g. 192.168.1.11/24",
            kSrcNetV2);
      }
    }
  }

  void v2_routes(const nlohmann::json& r, const std::string& path) {
    if (!r.is_array())
      return add("seed-network-route", Severity::Error, path, "'routes' is not a list",
                 "write routes: [{to: 0.0.0.0/0, via: 192.168.1.1}]", kSrcNetV2);
    for (std::size_t i = 0; i < r.size(); ++i) {
      std::string at = path + "." + std::to_string(i);
      const nlohmann::json& e = r[i];
      if (!e.is_object()) {
        add("seed-network-route", Severity::Error, at, "a route is not a map", "write {to: NETWORK, via: GATEWAY}",
            kSrcNetV2);
        continue;
      }
      int to_family = 0;
      if (!e.contains("to")) {
        add("seed-network-route", Severity::Error, at,
            "a route without 'to' (netplan: a global unicast route must include both a 'to' and 'via' IP; "
            "cloud-init: no network or destination)",
            "add to: 0.0.0.0/0 (default route) or to: NETWORK/PREFIX", kSrcNetV2);
      } else if (nw_text(e["to"]) == "default") {
        add("seed-network-route-default", Severity::Warning, at + ".to",
            "'to: default' is rejected by netplan before 0.103 (Ubuntu 20.04 before 20.04.4) and by cloud-init's "
            "network_state on non-netplan renderers (cloud-init releases before PR 6391)",
            "write to: 0.0.0.0/0 (IPv4) or to: \"::/0\" (IPv6)", kSrcDefaultRoute);
      } else {
        bool bare = false;
        to_family = nw_network(nw_text(e["to"]), &bare);
        if (!to_family)
          add("seed-network-route", Severity::Error, at + ".to",
              "'to: " + nw_text(e["to"]) + "' is not a network address (ADDR/PREFIX)", "write e.g. to: 10.0.0.0/8",
              kSrcNetV2);
        else if (bare)
          add("seed-network-route", Severity::Warning, at + ".to",
              "'to: " + nw_text(e["to"]) +
                  "' has no prefix length: netplan reads /32 (/128), cloud-init's "
                  "network_state /24 (/64)",
              "write the prefix length, e.g. " + nw_text(e["to"]) + (to_family == 4 ? "/32" : "/128"), kSrcNetV2);
      }
      if (e.contains("via")) {
        int via = nw_family(nw_text(e["via"]));
        if (!via)
          add("seed-network-route", Severity::Error, at + ".via",
              "'via: " + nw_text(e["via"]) + "' is not an IP address", "write the gateway's address", kSrcNetV2);
        else if (to_family && via != to_family)
          add("seed-network-route", Severity::Error, at + ".via",
              "IP family mismatch in route to " + nw_text(e["to"]) + " (netplan)",
              "use a gateway of the same IP version as 'to'", kSrcNetV2);
      }
    }
  }

  void v2_nameservers(const nlohmann::json& n, const std::string& path) {
    if (!n.is_object())
      return add("seed-network-nameserver", Severity::Error, path, "'nameservers' is not a map",
                 "write nameservers: {addresses: [1.1.1.1]}", kSrcNetV2);
    if (n.contains("addresses")) {
      if (!n["addresses"].is_array())
        add("seed-network-nameserver", Severity::Error, path + ".addresses", "'nameservers.addresses' is not a list",
            "write addresses: [1.1.1.1]", kSrcNetV2);
      else
        for (std::size_t i = 0; i < n["addresses"].size(); ++i)
          if (!nw_family(nw_text(n["addresses"][i])))
            add("seed-network-nameserver", Severity::Error, path + ".addresses." + std::to_string(i),
                "malformed address '" + nw_text(n["addresses"][i]) + "', must be X.X.X.X or X:X:X:X:X:X:X:X (netplan)",
                "give the name server's IP address", kSrcNetV2);
    }
    if (n.contains("search") && !n["search"].is_array())
      add("seed-network-nameserver", Severity::Error, path + ".search", "'nameservers.search' is not a list",
          "write search: [example.com]", kSrcNetV2);
  }

  void v2_wifi(const nlohmann::json& d, const std::string& path) {
    const nlohmann::json* aps = d.contains("access-points") ? &d["access-points"] : nullptr;
    if (!aps || !aps->is_object() || aps->empty())
      return add("seed-network-wifi", Severity::Error, path, "No access points defined (netplan)",
                 "add access-points: {\"SSID\": {password: \"...\"}}", kSrcNetV2);
    for (const auto& [ssid, ap] : aps->items()) {
      std::string at = path + ".access-points." + ssid;
      if (ssid.size() > 32)
        add("seed-network-wifi", Severity::Error, at, "the SSID '" + ssid + "' is longer than 32 bytes",
            "give the network's real SSID", kSrcNetV2);
      if (!ap.is_object() || !ap.contains("password") || !ap["password"].is_string()) continue;
      std::string pw = ap["password"].get<std::string>();
      bool hex = pw.size() == 64 && std::all_of(pw.begin(), pw.end(), [](unsigned char c) { return std::isxdigit(c); });
      bool phrase = pw.size() >= 8 && pw.size() <= 63 &&
                    std::all_of(pw.begin(), pw.end(), [](char c) { return c >= 0x20 && c < 0x7f; });
      if (!hex && !phrase)
        add("seed-network-wifi", Severity::Error, at + ".password",
            "ASCII passphrase must be between 8 and 63 characters (inclusive) (netplan)",
            "give the WPA passphrase (8-63 printable characters) or the 64-hex-digit PSK", kSrcNetV2);
    }
  }

  void v2_device(const nlohmann::json& d, const std::string& path, const std::string& section) {
    if (!d.is_object())
      return add("seed-network-device", Severity::Error, path, "'" + path + "' is not a map of settings",
                 "write its settings as a map (dhcp4: true ...)", kSrcNetV2);
    if (d.contains("addresses")) v2_addresses(d["addresses"], path + ".addresses");
    for (const auto& [g, fam] : {std::pair<const char*, int>{"gateway4", 4}, {"gateway6", 6}}) {
      if (!d.contains(g)) continue;
      if (nw_family(nw_text(d[g])) != fam)
        add("seed-network-address", Severity::Error, path + "." + g,
            "invalid IPv" + std::to_string(fam) + " address '" + nw_text(d[g]) + "' (netplan)",
            "give the gateway's address", kSrcNetV2);
      else
        add("seed-network-gateway", Severity::Warning, path + "." + g,
            std::string("'") + g + "' is deprecated in netplan 0.103 and later",
            detail::gateway_fix(defaults_, path + "." + g,
                                detail::v2_gateway_refused(d, d[g]) ? "<the router's address>" : nw_text(d[g])),
            kSrcNetV2);
    }
    if (d.contains("routes")) v2_routes(d["routes"], path + ".routes");
    if (d.contains("nameservers")) v2_nameservers(d["nameservers"], path + ".nameservers");
    if (d.contains("set-name") && !d.contains("match"))
      add("seed-network-device", Severity::Error, path + ".set-name",
          "'set-name:' requires 'match:' properties (netplan)", "add match: {macaddress: ...} or remove set-name",
          kSrcNetV2);
    if (section == "wifis") v2_wifi(d, path);
  }

  void v2(const nlohmann::json& net) {
    defaults_ = detail::v2_default_routes(net);
    static const std::set<std::string> known = {"version", "renderer", "ethernets", "wifis",
                                                "bonds",   "bridges",  "vlans"};
    static const std::set<std::string> netplan_only = {"tunnels",    "vrfs",          "modems",
                                                       "nm-devices", "dummy-devices", "virtual-ethernets"};
    for (const auto& [k, v] : net.items()) {
      if (netplan_only.count(k)) {
        add("seed-network-section", Severity::Warning, k,
            "'" + k +
                "' is a netplan-only section: cloud-init's own network_state (non-netplan renderers) has no "
                "handler for it",
            "use it only with images that render with netplan (Ubuntu)", kSrcNetV2);
      } else if (!known.count(k)) {
        add("seed-network-section", Severity::Error, k, "'" + k + "' is not a section of network config version 2",
            "use ethernets, wifis, bonds, bridges or vlans", kSrcNetV2);
      } else if (k == "renderer") {
        if (nw_text(v) != "networkd" && nw_text(v) != "NetworkManager")
          add("seed-network-section", Severity::Error, k,
              "'renderer: " + nw_text(v) + "' is not networkd or NetworkManager",
              "write renderer: networkd or leave it out", kSrcNetV2);
      } else if (k != "version") {
        if (!v.is_object()) {
          add("seed-network-section", Severity::Error, k, "'" + k + "' is not a map of interfaces",
              "write " + k + ": {NAME: {...}}", kSrcNetV2);
          continue;
        }
        for (const auto& [name, d] : v.items()) v2_device(d, k + "." + name, k);
      }
    }
    detail::check_default_routes(defaults_, adder());
    detail::check_v2_hosts(net, adder());
    detail::check_v2_gateways_on_link(net, adder());
    detail::check_v2_references(net, adder());
    detail::check_v2_members(net, adder(), [this](const std::string& path) {
      return seed_line(doc, join_path(prefix.empty() ? "" : prefix.substr(0, prefix.size() - 1), path));
    });
    detail::check_v2_keys(net, adder());
    detail::check_v2_types(net, adder());
  }

  /// seed-network-route: `v` at `at` must be a network (ADDR[/PREFIX]), never "default".
  void v1_network(const nlohmann::json& v, const std::string& at) {
    std::string s = nw_text(v);
    if (s == "default")
      add("seed-network-route", Severity::Error, at,
          "'default' is not an address for cloud-init's network config version 1 (network_state: 'Address default "
          "is not a valid ip address')",
          "write 0.0.0.0/0 (IPv4) or ::/0 (IPv6)", kSrcDefaultRoute);
    else if (!nw_network(s))
      add("seed-network-route", Severity::Error, at, "'" + s + "' is not a valid network (ADDR[/PREFIX])",
          "write e.g. 10.0.0.0/8", kSrcNetV1);
  }

  /// A version 1 'route' entry: its destination/network and gateway.
  void v1_route(const nlohmann::json& e, const std::string& at) {
    for (const char* k : {"destination", "network"})
      if (e.contains(k)) v1_network(e[k], at + "." + k);
    if (e.contains("gateway") && !nw_family(nw_text(e["gateway"])))
      add("seed-network-route", Severity::Error, at + ".gateway",
          "'" + nw_text(e["gateway"]) + "' is not an IP address", "give the gateway's address", kSrcNetV1);
  }

  /// A version 1 'nameserver' entry: its interface among `names`, its addresses.
  void v1_nameserver(const nlohmann::json& e, const std::string& at, const std::set<std::string>& names) {
    if (e.contains("interface") && !names.count(nw_text(e["interface"])))
      add("seed-network-nameserver", Severity::Error, at + ".interface",
          "Nameserver specified for interface " + nw_text(e["interface"]) + ", but interface " +
              nw_text(e["interface"]) + " does not exist! (cloud-init)",
          "name an interface of this config", kSrcNetV1);
    if (!e.contains("address")) return;
    const nlohmann::json& a = e["address"];
    std::vector<nlohmann::json> list =
        a.is_array() ? std::vector<nlohmann::json>(a.begin(), a.end()) : std::vector<nlohmann::json>{a};
    for (const auto& x : list)
      if (!nw_family(nw_text(x)))
        add("seed-network-nameserver", Severity::Error, at + ".address",
            "'" + nw_text(x) + "' is not a name server's IP address", "give the name server's IP address", kSrcNetV1);
  }

  /// One subnet of a version 1 entry: a known type, a static subnet's address, gateway, routes.
  void v1_subnet(const nlohmann::json& sn, const std::string& sat) {
    static const std::set<std::string> subnet_types = {
        "dhcp",      "dhcp4", "dhcp6", "static", "static6", "manual", "ipv6_dhcpv6-stateful", "ipv6_dhcpv6-stateless",
        "ipv6_slaac"};
    if (!sn.is_object() || !subnet_types.count(sn.is_object() ? nw_text(sn.value("type", nlohmann::json(""))) : ""))
      return add("seed-network-address", Severity::Error, sat, "a subnet without a known 'type'",
                 "use type: dhcp, static, static6, manual, ...", kSrcNetV1);
    std::string st = nw_text(sn["type"]);
    if (st == "static" || st == "static6") {
      const char* key = sn.contains("address") ? "address" : sn.contains("ip_address") ? "ip_address" : nullptr;
      if (!key)
        add("seed-network-address", Severity::Error, sat,
            "a static subnet without 'address' (cloud-init: No config network address keys [address,ip_address])",
            "add address: 192.168.1.11/24", kSrcNetV1);
      else if (nw_text(sn[key]) == "default" || !nw_network(nw_text(sn[key])))
        add("seed-network-address", Severity::Error, sat + "." + key,
            "Address " + nw_text(sn[key]) + " is not a valid ip address (cloud-init)", "write ADDR/PREFIX", kSrcNetV1);
    }
    if (sn.contains("gateway") && !nw_family(nw_text(sn["gateway"])))
      add("seed-network-address", Severity::Error, sat + ".gateway",
          "'" + nw_text(sn["gateway"]) + "' is not an IP address", "give the gateway's address", kSrcNetV1);
    if (sn.contains("routes") && sn["routes"].is_array())
      for (std::size_t r = 0; r < sn["routes"].size(); ++r)
        for (const char* k : {"network", "destination"})
          if (sn["routes"][r].is_object() && sn["routes"][r].contains(k))
            v1_network(sn["routes"][r][k], sat + ".routes." + std::to_string(r) + "." + k);
  }

  /// One entry of a version 1 config at `at`: a type with a handler, its
  /// required keys, then by type (route, nameserver) and its subnets.
  void v1_entry(const nlohmann::json& e, const std::string& at, const std::set<std::string>& names) {
    static const std::set<std::string> types = {"physical",   "bond",  "bridge",   "vlan",
                                                "nameserver", "route", "loopback", "infiniband"};
    if (!e.is_object() || !e.contains("type") || !types.count(nw_text(e["type"])))
      return add("seed-network-section", Severity::Error, at,
                 "entry type '" + (e.is_object() && e.contains("type") ? nw_text(e["type"]) : std::string()) +
                     "' has no handler in cloud-init (No handler found for command)",
                 "use physical, bond, bridge, vlan, nameserver, route, loopback or infiniband", kSrcNetV1);
    std::string type = nw_text(e["type"]);
    std::vector<const char*> required;
    if (type == "physical" || type == "bond" || type == "bridge" || type == "infiniband") required = {"name"};
    if (type == "vlan") required = {"name", "vlan_id", "vlan_link"};
    if (type == "nameserver") required = {"address"};
    if (type == "route") required = {"destination"};
    for (const char* k : required)
      if (!e.contains(k) && !(type == "route" && e.contains("network")))
        add("seed-network-section", Severity::Error, at,
            "a '" + type + "' entry misses the required key '" + k + "' (cloud-init: Command missing)",
            std::string("add ") + k + ": ...", kSrcNetV1);
    if (type == "route") v1_route(e, at);
    if (type == "nameserver") v1_nameserver(e, at, names);
    if (!e.contains("subnets") || !e["subnets"].is_array()) return;
    for (std::size_t s = 0; s < e["subnets"].size(); ++s)
      v1_subnet(e["subnets"][s], at + ".subnets." + std::to_string(s));
  }

  void v1(const nlohmann::json& net) {
    if (!net.contains("config") || !net["config"].is_array())
      return add("seed-network-section", Severity::Error, "config", "version 1 needs 'config', a list of entries",
                 "add config: [{type: physical, name: eth0, subnets: [{type: dhcp}]}]", kSrcNetV1);
    std::set<std::string> names;
    for (const auto& e : net["config"])
      if (e.is_object() && e.contains("name")) names.insert(nw_text(e["name"]));
    for (std::size_t i = 0; i < net["config"].size(); ++i)
      v1_entry(net["config"][i], "config." + std::to_string(i), names);
    detail::check_v1_hosts(net, adder());
    detail::check_v1_gateways_on_link(net, adder());
    detail::check_v1_references(net, adder());
    detail::check_v1_members(net, adder());
    detail::check_default_routes(detail::v1_default_routes(net), adder());
  }
};

}  // namespace

SeedCheck check_network_config(std::string_view text, const std::string& file) {
  SeedCheck c;
  c.validator = "piprov's own rules";
  c.rules = {"seed-yaml-invalid",           "seed-not-a-map",
             "seed-network-version",        "seed-network-section",
             "seed-network-device",         "seed-network-address",
             "seed-network-gateway",        "seed-network-route",
             "seed-network-route-default",  "seed-network-nameserver",
             "seed-network-wifi",           "seed-template-marker",
             "seed-network-reference",      "seed-network-default-route-conflict",
             "seed-network-unknown-key",    "seed-network-netplan-version",
             "seed-network-not-a-host",     "seed-network-gateway-off-link",
             "seed-network-member-conflict"};
  auto loaded = seed_load(text, file, c.findings);
  if (!loaded) return c;
  const YAML::Node& root = *loaded;
  if (!root.IsMap()) {
    c.findings.push_back(seed_finding("seed-not-a-map", Severity::Error, root.IsNull() ? 1 : root.Mark().line + 1, "",
                                      file, "is not a YAML map (a network config is one)",
                                      "write version: 2 and its sections", kSrcNetV2));
    return c;
  }
  YamlDoc doc = yaml_to_json(root);
  seed_yaml_notes(doc, file, c.findings);
  bool wrapped = doc.value.contains("network") && doc.value["network"].is_object();
  const nlohmann::json& net = wrapped ? doc.value["network"] : doc.value;
  nlohmann::json version = net.value("version", nlohmann::json());
  NetChecker nc{doc, file, c.findings, wrapped ? "network." : ""};
  if (version == 2)
    nc.v2(net);
  else if (version == 1)
    nc.v1(net);
  else if (version == "1" || version == "2")  // cloud-init compares the number: a quoted "2" is no version
    nc.add("seed-network-version", Severity::Error, "version",
           "version is the string \"" + version.get<std::string>() + "\"; cloud-init wants the number " +
               version.get<std::string>(),
           "write version: " + version.get<std::string>() + " (without quotes)",
           version == "2" ? kSrcNetV2 : kSrcNetV1);
  else
    nc.add(
        "seed-network-version", Severity::Error, "version",
        "has no 'version: 1' or 'version: 2' (at the top or under 'network:'): it is not a cloud-init network config",
        "add version: 2 (netplan style) or version: 1", kSrcNetV2);
  seed_scan_markers(doc, file, c.findings);
  return c;
}

}  // namespace piprov::provision
