#include "provision/ip_value.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>
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

}  // namespace piprov::provision
