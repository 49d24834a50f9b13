#include "provision/ip_value.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>

namespace piprov::provision {
namespace {

/// 1..3 decimal digits.
bool ip_prefix_digits(std::string_view s) {
  return !s.empty() && s.size() <= 3 &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

/// The prefix length of a contiguous IPv4 netmask ("255.255.255.0" -> 24), nullopt otherwise.
std::optional<int> ip_netmask_prefix(const unsigned char* m) {
  const std::uint32_t v = (std::uint32_t{m[0]} << 24) | (std::uint32_t{m[1]} << 16) | (std::uint32_t{m[2]} << 8) | m[3];
  int n = 0;
  while (n < 32 && (v & (0x80000000u >> n))) ++n;
  const std::uint32_t want = n == 0 ? 0 : ~0u << (32 - n);
  if (v != want) return std::nullopt;
  return n;
}

}  // namespace

std::optional<IpValue> IpValue::parse(std::string_view s, bool allow_netmask) {
  IpValue v;
  v.text = std::string(s);
  const auto slash = s.find('/');
  const std::string addr(s.substr(0, slash));
  if (::inet_pton(AF_INET, addr.c_str(), v.bytes.data()) == 1)
    v.family = 4;
  else if (::inet_pton(AF_INET6, addr.c_str(), v.bytes.data()) == 1)
    v.family = 6;
  else
    return std::nullopt;
  if (slash == std::string_view::npos) return v;
  const std::string_view p = s.substr(slash + 1);
  if (ip_prefix_digits(p)) {
    const int n = std::stoi(std::string(p));
    if (n > v.max_prefix()) return std::nullopt;
    v.prefix = n;
    return v;
  }
  unsigned char mask[4];
  if (allow_netmask && v.family == 4 && ::inet_pton(AF_INET, std::string(p).c_str(), mask) == 1)
    if (auto n = ip_netmask_prefix(mask)) {
      v.prefix = *n;
      return v;
    }
  return std::nullopt;
}

std::string IpValue::address() const { return text.substr(0, text.find('/')); }

bool IpValue::contains(const IpValue& other) const {
  if (family != other.family) return false;
  const int bits = prefix.value_or(max_prefix());
  for (int bit = 0; bit < bits; ++bit) {
    const auto mask = static_cast<unsigned char>(0x80u >> (bit % 8));
    if ((bytes[bit / 8] & mask) != (other.bytes[bit / 8] & mask)) return false;
  }
  return true;
}

bool IpValue::same_address(const IpValue& other) const {
  return family == other.family && std::memcmp(bytes.data(), other.bytes.data(), family == 4 ? 4 : 16) == 0;
}

std::string IpValue::subnet_role() const {
  if (family != 4 || !prefix || *prefix > 30) return "";
  const std::uint32_t a =
      (std::uint32_t{bytes[0]} << 24) | (std::uint32_t{bytes[1]} << 16) | (std::uint32_t{bytes[2]} << 8) | bytes[3];
  const std::uint32_t host = *prefix == 0 ? ~0u : (1u << (32 - *prefix)) - 1;
  if ((a & host) == 0) return "network";
  if ((a & host) == host) return "broadcast";
  return "";
}

std::string IpValue::special_use() const {
  if (family == 4) {
    const unsigned char a = bytes[0];
    if (a == 255 && bytes[1] == 255 && bytes[2] == 255 && bytes[3] == 255)
      return "the limited broadcast address (255.255.255.255, RFC 919)";
    if (a >= 240) return "a reserved address (240.0.0.0/4, RFC 1112 section 4)";
    if (a >= 224) return "a multicast address (224.0.0.0/4, RFC 5771)";
    if (a == 127) return "a loopback address (127.0.0.0/8, RFC 1122 3.2.1.3)";
    if (a == 0) return "a 'this network' address (0.0.0.0/8, RFC 1122 3.2.1.3)";
    return "";
  }
  if (bytes[0] == 0xff) return "a multicast address (ff00::/8, RFC 4291 2.7)";
  if (std::all_of(bytes.begin(), bytes.begin() + 15, [](unsigned char b) { return b == 0; })) {
    if (bytes[15] == 0) return "the unspecified address (::, RFC 4291 2.5.2)";
    if (bytes[15] == 1) return "the loopback address (::1, RFC 4291 2.5.3)";
  }
  return "";
}

bool IpValue::is_loopback() const {
  if (family == 4) return bytes[0] == 127;
  return std::all_of(bytes.begin(), bytes.begin() + 15, [](unsigned char b) { return b == 0; }) && bytes[15] == 1;
}

std::string IpValue::not_a_host(bool name_server) const {
  if (name_server && is_loopback()) return "";
  if (auto special = special_use(); !special.empty()) return special;
  if (auto role = subnet_role(); !role.empty()) return "the " + role + " address of its subnet";
  return "";
}

std::string host_example(const IpValue& v, const std::string& whose) {
  const std::string addr = v.address();
  const bool v4 = v.family == 4;
  if (v.special_use().empty() && v.prefix)  // a subnet's network or broadcast address: a host of it
    return addr.substr(0, addr.rfind('.')) + ".11/" + std::to_string(*v.prefix);
  if (whose == "router") return v4 ? "192.168.1.1" : "fe80::1";
  if (whose == "name server") return v4 ? "1.1.1.1" : "2606:4700:4700::1111";
  return v4 ? "192.168.1.11/24" : "fd00::11/64";
}

GatewayRefusal gateway_refusal(const IpValue& gateway, const IpValue& node, const std::string& node_name) {
  if (gateway.same_address(node))
    return {"is the node's own address (" + node_name + ")", "give the router of that network"};
  IpValue in_subnet = gateway;
  in_subnet.prefix = node.prefix;
  if (gateway.family != node.family || !node.contains(gateway)) return {};
  const std::string role = in_subnet.subnet_role();
  if (role.empty()) return {};
  std::uint32_t a = 0;  // the first host after the network address, the last before the broadcast
  for (int i = 0; i < 4; ++i) a = (a << 8) | gateway.bytes[static_cast<std::size_t>(i)];
  a = role == "network" ? a + 1 : a - 1;
  const std::string host = std::to_string(a >> 24) + "." + std::to_string((a >> 16) & 0xff) + "." +
                           std::to_string((a >> 8) & 0xff) + "." + std::to_string(a & 0xff);
  return {"is the " + role + " address of the subnet of " + node_name + ", not a router's",
          "give the router's own address (often the first or last host, e.g. " + host + ")"};
}

}  // namespace piprov::provision
