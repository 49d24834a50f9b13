#pragma once
// The one IP value of provision: an address, with or without a prefix length, of family 4 or 6.
// The option checks (--ip, --gateway, --dns: identity.hpp), the network-config checks
// (seed_network.cpp) and the generated network-config (cloud_init.cpp) all read addresses
// through it. Sources: inet_pton(3) (address syntax), RFC 4632 (IPv4 prefix notation), RFC 4291
// section 2.3 (IPv6 prefix notation), RFC 4291 2.5.6 (link-local), RFC 950 / RFC 919 (network and broadcast
// addresses), RFC 1122 3.2.1.3 and RFC 6890 (special-purpose addresses, which are no host's).
#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace piprov::provision {

struct IpValue {
  int family = 0;                         ///< 4 or 6
  std::array<unsigned char, 16> bytes{};  ///< the address, network byte order (4 or 16 used)
  std::optional<int> prefix;              ///< prefix length; nullopt for a bare address
  std::string text;                       ///< as written ("192.168.1.11/24")

  /// "ADDR" or "ADDR/PREFIX" (decimal, 0..32 or 0..128); with `allow_netmask`, also an IPv4
  /// "ADDR/NETMASK" (Python's ipaddress.ip_network(strict=False), which cloud-init uses),
  /// turned into its prefix. nullopt when `s` is none of these.
  static std::optional<IpValue> parse(std::string_view s, bool allow_netmask = false);
  /// The address without the prefix ("192.168.1.11").
  std::string address() const;
  /// 32 or 128.
  int max_prefix() const { return family == 4 ? 32 : 128; }
  /// The default route of this family, as netplan and cloud-init read it: "0.0.0.0/0" or "::/0"
  /// (never "default": netplan before 0.103 rejects it).
  std::string default_route() const { return family == 4 ? "0.0.0.0/0" : "::/0"; }
  /// True when this is a default-route network (prefix 0).
  bool is_default_route() const { return prefix && *prefix == 0; }
  /// True when `other`'s address lies in this network (its first `prefix` bits; a bare address
  /// is a host route) and both are of one family.
  bool contains(const IpValue& other) const;
  /// True for an IPv6 link-local address (fe80::/10, RFC 4291 section 2.5.6): on-link on every
  /// interface, and how routers are reached (RFC 4861 sections 4.2 and 6.1.2: a Router
  /// Advertisement's source, hence a host's default router, is link-local).
  bool is_link_local() const { return family == 6 && bytes[0] == 0xfe && (bytes[1] & 0xc0) == 0x80; }
  /// Same family and address (prefixes ignored).
  bool same_address(const IpValue& other) const;
  /// IPv4 with a prefix of 30 or less: "network" or "broadcast" when the address is that of its
  /// subnet (all host bits 0 or 1, RFC 950, RFC 919), else "".
  std::string subnet_role() const;
  /// The special-purpose block this address is in, which no host has on a link, "" when none:
  /// IPv4 "a 'this network' address (0.0.0.0/8, RFC 1122 3.2.1.3)", "a loopback address
  /// (127.0.0.0/8, ...)", "a multicast address (224.0.0.0/4, RFC 5771)", "a reserved address
  /// (240.0.0.0/4, RFC 1112 section 4)", "the limited broadcast address (255.255.255.255, RFC 919)";
  /// IPv6 "the unspecified address (::, RFC 4291 2.5.2)", "the loopback address (::1, RFC 4291
  /// 2.5.3)", "a multicast address (ff00::/8, RFC 4291 2.7)". RFC 6890 lists these blocks.
  std::string special_use() const;
  /// The one rule for an address given as a host's (a node's, a router's, a name server's): why it
  /// cannot be one, "" when it can: special_use(), else "the network address of its subnet" /
  /// "the broadcast address of its subnet" (subnet_role()). Options (check_ip) and files
  /// (network-config) are judged by it alike. `name_server`: the address is a name server's, and a
  /// loopback one is fine there: a resolver on the node itself (systemd-resolved's 127.0.0.53,
  /// unbound, dnsmasq, Pi-hole; resolv.conf(5) takes any address).
  std::string not_a_host(bool name_server = false) const;
  /// 127.0.0.0/8 or ::1.
  bool is_loopback() const;
};

/// The address to give instead of `v` when not_a_host() refuses it, as a `whose` ("node", "router",
/// "name server") has it: for a subnet's network or broadcast address a host of that subnet
/// ("10.0.5.11/24"), else an example of the family ("192.168.1.11/24", "192.168.1.1", "1.1.1.1";
/// "fd00::11/64", "fe80::1", "2606:4700:4700::1111"). One wording for options and files.
std::string host_example(const IpValue& v, const std::string& whose);

/// Why a gateway cannot be the router of a node, and what to give instead; both "" when it can be.
struct GatewayRefusal {
  std::string
      why;  ///< "is the node's own address (NODE)", "is the broadcast address of the subnet of NODE, not a router's"
  std::string fix;  ///< "give the router of that network", "give the router's own address (... e.g. 10.0.0.254)"
};

/// The one rule for a gateway against the address and prefix `node` of the node's interface
/// (`node_name` names it in the words: "--ip 10.0.0.2/24", "eth0's address 10.0.0.2/24"): it
/// must not be the node's own address, nor, in IPv4 with a prefix of 30 or less, the network or
/// broadcast address of that subnet (no host's, so no router's: RFC 950, RFC 919). IPv6's all-zero
/// host is the Subnet-Router anycast address (RFC 4291 2.6.1), which routers answer: accepted.
/// --gateway (check_gateway) and a network-config's gateways (seed check) are judged by it alike.
GatewayRefusal gateway_refusal(const IpValue& gateway, const IpValue& node, const std::string& node_name);

}  // namespace piprov::provision
