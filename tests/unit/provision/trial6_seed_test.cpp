// The seed check on the sixth new-user trial of issue 29 (findings 6-8): addresses that are no
// host's in a network-config, a gateway off the interface's subnets, user-data that is another
// format than cloud-config, and a quoted network-config version.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "provision/seed/seed_check.hpp"

namespace piprov::provision {
namespace {

std::string t6_dump(const SeedCheck& c) { return findings_text(c.findings); }

/// The findings of `rule`, in order.
std::vector<Finding> t6_of(const SeedCheck& c, const std::string& rule) {
  std::vector<Finding> out;
  for (const auto& f : c.findings)
    if (f.rule == rule) out.push_back(f);
  return out;
}

// Finding 8: `version: "2"` has a version, as a string: say so, and the fix is the number.
TEST(Trial6SeedVersion, QuotedVersionIsNamedAsAString) {
  for (const std::string v : {"2", "1"}) {
    auto c = check_network_config("version: \"" + v + "\"\nethernets:\n  eth0:\n    dhcp4: true\n", "n.yaml");
    auto f = t6_of(c, "seed-network-version");
    ASSERT_EQ(f.size(), 1u) << t6_dump(c);
    EXPECT_EQ(f[0].severity, Severity::Error);
    EXPECT_EQ(f[0].line, 1);
    EXPECT_EQ(f[0].message, "n.yaml: version is the string \"" + v + "\"; cloud-init wants the number " + v);
    EXPECT_EQ(f[0].fix, "write version: " + v + " (without quotes)");
    EXPECT_TRUE(c.refused());
  }
  // Under 'network:' too; a quoted "3" is no version at all, and the number passes.
  auto wrapped = check_network_config("network:\n  version: '2'\n  ethernets: {eth0: {dhcp4: true}}\n", "w.yaml");
  ASSERT_EQ(t6_of(wrapped, "seed-network-version").size(), 1u) << t6_dump(wrapped);
  EXPECT_EQ(t6_of(wrapped, "seed-network-version")[0].line, 2);
  auto three = check_network_config("version: \"3\"\n", "t.yaml");
  ASSERT_EQ(t6_of(three, "seed-network-version").size(), 1u);
  EXPECT_NE(t6_of(three, "seed-network-version")[0].message.find("has no 'version: 1' or 'version: 2'"),
            std::string::npos);
  EXPECT_TRUE(
      t6_of(check_network_config("version: 2\nethernets: {eth0: {dhcp4: true}}\n", "ok"), "seed-network-version")
          .empty());
}

// Finding 7: user-data in another of cloud-init's formats stays refused, but is named, and the fix
// fits it: never "put '#cloud-config' on its first line" (that breaks a script or a template).
TEST(Trial6SeedFormat, OtherUserDataFormatsAreNamedWithAFixThatFits) {
  struct Case {
    std::string text, is, fix;
  };
  const std::vector<Case> cases = {
      {"#!/bin/bash\napt-get -y install nginx\n",
       "u: is a shell script ('#!/bin/bash'), not cloud-config: cloud-init runs it once",
       "write_files (path /usr/local/sbin/firstboot.sh, permissions '0755', content: the script) and runcmd"},
      {"#cloud-boothook\n#!/bin/sh\necho hi > /run/x\n", "u: is a boothook ('#cloud-boothook')", "under bootcmd"},
      {"#include\nhttps://example.com/cc.yaml\n",
       "u: is an include file ('#include'), not cloud-config: URLs cloud-init fetches", "fetch the files it names"},
      {"#include-once\nhttps://example.com/cc.yaml\n", "u: is an include file ('#include-once')", "fetch the files"},
      {"Content-Type: multipart/mixed; boundary=\"X\"\nMIME-Version: 1.0\n\n--X\nContent-Type: text/cloud-config\n\n"
       "#cloud-config\nhostname: a\n--X--\n",
       "u: is a MIME multipart message ('Content-Type: multipart/mixed; boundary=\"X\"')",
       "give its text/cloud-config part alone"},
      {"From nobody Mon Jan 1 00:00:00 2024\nMIME-Version: 1.0\n", "u: is a MIME multipart message", "part alone"},
      {"## template: jinja\n#cloud-config\nhostname: {{ ds.meta_data.name }}\n",
       "u: is a Jinja template of cloud-config ('## template: jinja'), not plain cloud-config: cloud-init renders it "
       "only while '## template: "
       "jinja' is its first line, and piprov cannot render Jinja",
       "write each {{ ... }} value in, drop the '## template: jinja' line and start the file with '#cloud-config'"},
      {"  #Cloud-Boothook\necho hi\n", "u: is a boothook ('#Cloud-Boothook')", "bootcmd"},  // any case, as cloud-init
      {"#cloud-config-archive\n- type: text/cloud-config\n  content: 'a: 1'\n", "u: is a cloud-config archive",
       "the 'content' of its cloud-config part"},
      {"#part-handler\ndef list_types(): return []\n", "u: is a part handler", "'#cloud-config'"},
  };
  for (const auto& k : cases) {
    auto c = check_user_data(k.text, "u", {.schema_path = "none"});
    auto f = t6_of(c, "seed-not-cloud-config");
    ASSERT_EQ(f.size(), 1u) << k.text << t6_dump(c);
    EXPECT_EQ(f[0].severity, Severity::Error);
    EXPECT_EQ(f[0].message.rfind(k.is, 0), 0u) << f[0].message;
    EXPECT_NE(f[0].message.find(", not "), std::string::npos) << f[0].message;
    EXPECT_NE(f[0].fix.find(k.fix), std::string::npos) << f[0].fix;
    EXPECT_EQ(f[0].fix.find("put '#cloud-config' on its first line"), std::string::npos) << f[0].fix;
    EXPECT_TRUE(c.refused());
  }
  // YAML without the header keeps the fix that fits it.
  auto plain = t6_of(check_user_data("hostname: a\n", "u", {.schema_path = "none"}), "seed-not-cloud-config");
  ASSERT_EQ(plain.size(), 1u);
  EXPECT_EQ(plain[0].fix, "put '#cloud-config' on its first line");
}

// Finding 6, files: the addresses --ip refuses are refused in a network-config too, by the same
// rule (IpValue::not_a_host()), as errors with --ip's fix: gw2.yaml's network, broadcast and loopback
// addresses, and special-purpose gateways and name servers, in version 2 and version 1.
TEST(Trial6SeedHosts, AddressesNoHostHasAreErrorsInFilesAsInOptions) {
  auto c = check_network_config(
      "version: 2\nethernets:\n  eth0:\n    addresses: [10.0.5.0/24, 10.0.5.255/24, 127.0.0.2/8, 10.0.5.9/24]\n",
      "gw2.yaml");
  auto f = t6_of(c, "seed-network-not-a-host");
  ASSERT_EQ(f.size(), 3u) << t6_dump(c);
  EXPECT_EQ(f[0].key, "ethernets.eth0.addresses.0");
  EXPECT_EQ(f[0].line, 4);
  EXPECT_EQ(f[0].severity, Severity::Error);
  EXPECT_EQ(f[0].message, "gw2.yaml: 10.0.5.0/24 is the network address of its subnet, not a node's");
  EXPECT_EQ(f[0].fix, "give the node's own address (e.g. 10.0.5.11/24), as --ip must");
  EXPECT_EQ(f[1].message, "gw2.yaml: 10.0.5.255/24 is the broadcast address of its subnet, not a node's");
  EXPECT_EQ(f[2].key, "ethernets.eth0.addresses.2");
  EXPECT_EQ(f[2].message, "gw2.yaml: 127.0.0.2/8 is a loopback address (127.0.0.0/8, RFC 1122 3.2.1.3), not a node's");
  EXPECT_EQ(f[2].fix, "give the node's own address (e.g. 192.168.1.11/24), as --ip must");
  EXPECT_TRUE(c.refused());

  // Gateways (gateway4, a route's via) and name servers; a multicast route's destination is fine.
  c = check_network_config(
      "version: 2\nethernets:\n  eth0:\n    addresses: [10.0.5.9/24]\n    gateway4: 224.0.0.1\n    routes:\n"
      "    - {to: 224.0.0.0/4, via: 10.0.5.1}\n    - {to: \"::/0\", via: \"::1\"}\n    nameservers:\n"
      "      addresses: [0.0.0.0, 1.1.1.1, 255.255.255.255]\n",
      "n.yaml");
  f = t6_of(c, "seed-network-not-a-host");
  ASSERT_EQ(f.size(), 4u) << t6_dump(c);
  EXPECT_EQ(f[0].key, "ethernets.eth0.gateway4");
  EXPECT_EQ(f[0].message, "n.yaml: 224.0.0.1 is a multicast address (224.0.0.0/4, RFC 5771), not a router's");
  EXPECT_EQ(f[0].fix, "give the router's own address (e.g. 192.168.1.1), as --gateway must");
  EXPECT_EQ(f[1].key, "ethernets.eth0.routes.1.via");
  EXPECT_EQ(f[1].fix, "give the router's own address (e.g. fe80::1), as --gateway must");
  EXPECT_EQ(f[2].key, "ethernets.eth0.nameservers.addresses.0");
  EXPECT_EQ(f[2].message,
            "n.yaml: 0.0.0.0 is a 'this network' address (0.0.0.0/8, RFC 1122 3.2.1.3), not a name "
            "server's");
  EXPECT_EQ(f[2].fix, "give the name server's own address (e.g. 1.1.1.1), as --dns must");
  EXPECT_EQ(f[3].key, "ethernets.eth0.nameservers.addresses.2");

  // Version 1: a static subnet's address (with its prefix or its netmask), gateway, dns_nameservers,
  // and a nameserver entry.
  c = check_network_config(
      "version: 1\nconfig:\n- type: physical\n  name: eth0\n  subnets:\n  - {type: static, address: 0.0.0.5/8}\n"
      "  - {type: static, address: 192.168.7.0, netmask: 255.255.255.0, gateway: 127.0.0.1}\n"
      "  - {type: static6, address: \"fd00::11/64\", dns_nameservers: [\"ff02::1\"]}\n"
      "- {type: nameserver, address: [9.9.9.9, 240.0.0.1]}\n",
      "v1.yaml");
  f = t6_of(c, "seed-network-not-a-host");
  ASSERT_EQ(f.size(), 5u) << t6_dump(c);
  EXPECT_EQ(f[0].key, "config.0.subnets.0.address");
  EXPECT_EQ(f[1].key, "config.0.subnets.1.address");
  EXPECT_EQ(f[1].message, "v1.yaml: 192.168.7.0 is the network address of its subnet, not a node's");
  EXPECT_EQ(f[1].fix, "give the node's own address (e.g. 192.168.7.11/24), as --ip must");
  EXPECT_EQ(f[2].key, "config.0.subnets.1.gateway");
  EXPECT_EQ(f[3].key, "config.0.subnets.2.dns_nameservers.0");
  EXPECT_EQ(f[4].key, "config.1.address.1");
  EXPECT_NE(f[4].message.find("240.0.0.1 is a reserved address"), std::string::npos);

  // Hosts pass, and a malformed value is left to the syntax rule (one finding, not two).
  c = check_network_config(
      "version: 2\nethernets:\n  eth0:\n    addresses: [10.0.5.9/24, \"fd00::11/64\", 127.0.0.1]\n"
      "    routes: [{to: 0.0.0.0/0, via: 10.0.5.1}]\n    nameservers: {addresses: [1.1.1.1, 127.0.0.1, \"::1\"]}\n",
      "ok.yaml");
  f = t6_of(c, "seed-network-not-a-host");
  EXPECT_TRUE(f.empty()) << t6_dump(c);
  EXPECT_EQ(t6_of(c, "seed-network-address").size(), 1u) << t6_dump(c);
}

// Finding 6, gateways: a gateway in none of the interface's static subnets is a warning, as
// --gateway outside --ip's subnet is refused ("the node could not reach it"); netplan's
// `on-link: true` makes it reachable (no finding), and so does DHCP or a link-local IPv6 router.
TEST(Trial6SeedHosts, GatewayOutsideTheSubnetsIsAWarningUnlessOnLink) {
  const std::string eth = "version: 2\nethernets:\n  eth0:\n    addresses: [10.0.5.9/24]\n";
  auto c = check_network_config(eth + "    routes:\n    - {to: default, via: 10.0.6.1}\n", "gw.yaml");
  auto f = t6_of(c, "seed-network-gateway-off-link");
  ASSERT_EQ(f.size(), 1u) << t6_dump(c);
  EXPECT_EQ(f[0].severity, Severity::Warning);
  EXPECT_EQ(f[0].key, "ethernets.eth0.routes.0.via");
  EXPECT_EQ(f[0].line, 6);
  EXPECT_EQ(f[0].message,
            "gw.yaml: the gateway 10.0.6.1 is in none of eth0's subnets (10.0.5.9/24): the node could not reach it");
  EXPECT_EQ(f[0].fix,
            "give the router of eth0's network (or fix the prefix length); if it is reachable on the link anyway, add "
            "on-link: true to this route");

  c = check_network_config(eth + "    gateway4: 10.0.6.1\n", "gw.yaml");
  f = t6_of(c, "seed-network-gateway-off-link");
  ASSERT_EQ(f.size(), 1u) << t6_dump(c);
  EXPECT_EQ(f[0].key, "ethernets.eth0.gateway4");
  EXPECT_NE(f[0].fix.find("write routes: [{to: 0.0.0.0/0, via: 10.0.6.1, on-link: true}] instead"), std::string::npos)
      << f[0].fix;

  // Version 1: the subnet's gateway, by the interface's static subnets (address/prefix or netmask).
  c = check_network_config(
      "version: 1\nconfig:\n- type: physical\n  name: eth0\n  subnets:\n"
      "  - {type: static, address: 10.0.5.9/24, gateway: 10.0.6.1}\n",
      "v1.yaml");
  f = t6_of(c, "seed-network-gateway-off-link");
  ASSERT_EQ(f.size(), 1u) << t6_dump(c);
  EXPECT_EQ(f[0].key, "config.0.subnets.0.gateway");
  EXPECT_EQ(f[0].message,
            "v1.yaml: the gateway 10.0.6.1 is in none of eth0's subnets (10.0.5.9/24): the node could not reach it");
  EXPECT_EQ(t6_of(check_network_config("version: 1\nconfig:\n- type: physical\n  name: eth0\n  subnets:\n"
                                       "  - {type: static, address: 10.0.5.9, netmask: 255.255.254.0, gateway: "
                                       "10.0.4.1}\n",
                                       "v1.yaml"),
                  "seed-network-gateway-off-link")
                .size(),
            0u);

  // No finding: on-link (any netplan boolean spelling), inside one of several subnets, DHCP of the
  // family, an IPv6 link-local router, no static subnet of the family.
  for (const std::string& ok : std::vector<std::string>{
           eth + "    routes:\n    - {to: default, via: 10.0.6.1, on-link: true}\n",
           eth + "    routes:\n    - {to: 0.0.0.0/0, via: 10.0.6.1, on-link: \"yes\"}\n",
           "version: 2\nethernets:\n  eth0:\n    addresses: [10.0.5.9/24, 10.0.6.9/24]\n    gateway4: 10.0.6.1\n",
           eth + "    dhcp4: true\n    routes: [{to: 0.0.0.0/0, via: 10.0.6.1}]\n",
           eth + "    routes: [{to: \"::/0\", via: \"fe80::1\"}]\n",
           eth + "    routes: [{to: \"::/0\", via: \"2001:db8::1\"}]\n",
           eth + "    routes: [{to: 0.0.0.0/0, via: 10.0.5.1}]\n",
       }) {
    c = check_network_config(ok, "ok.yaml");
    EXPECT_TRUE(t6_of(c, "seed-network-gateway-off-link").empty()) << ok << t6_dump(c);
  }
  // A warning: the file is written (the check does not refuse).
  EXPECT_FALSE(check_network_config(eth + "    routes: [{to: 0.0.0.0/0, via: 10.0.6.1}]\n", "w").refused());
}

// Trial 10 (trial 9 nit 15): a gateway that is the network or broadcast address of its
// interface's subnet, or the interface's own address, is an error, in the words --gateway against
// --ip is refused with (gateway_refusal()); the gateway4 deprecation fix no longer proposes it.
TEST(Trial10SeedGateway, GatewayOnTheSubnetsBroadcastNetworkOrOwnAddressIsAnError) {
  const std::string eth = "version: 2\nethernets:\n  eth0:\n    addresses: [10.0.0.2/24]\n";
  auto c = check_network_config(eth + "    gateway4: 10.0.0.255\n", "gw.yaml");
  auto f = t6_of(c, "seed-network-not-a-host");
  ASSERT_EQ(f.size(), 1u) << t6_dump(c);
  EXPECT_EQ(f[0].severity, Severity::Error);
  EXPECT_EQ(f[0].key, "ethernets.eth0.gateway4");
  EXPECT_EQ(f[0].line, 5);
  EXPECT_EQ(f[0].message,
            "gw.yaml: the gateway 10.0.0.255 is the broadcast address of the subnet of eth0's address 10.0.0.2/24, "
            "not a router's");
  EXPECT_EQ(f[0].fix,
            "give the router's own address (often the first or last host, e.g. 10.0.0.254), as --gateway must");
  EXPECT_TRUE(t6_of(c, "seed-network-gateway-off-link").empty()) << t6_dump(c);
  auto dep = t6_of(c, "seed-network-gateway");
  ASSERT_EQ(dep.size(), 1u) << t6_dump(c);
  EXPECT_EQ(dep[0].fix, "use routes: [{to: 0.0.0.0/0, via: <the router's address>}]");
  EXPECT_EQ(dep[0].fix.find("10.0.0.255"), std::string::npos);

  // A route's via: the network address, and the interface's own address.
  c = check_network_config(
      eth + "    routes:\n    - {to: default, via: 10.0.0.0}\n    - {to: 10.1.0.0/16, via: 10.0.0.2}\n", "gw.yaml");
  f = t6_of(c, "seed-network-not-a-host");
  ASSERT_EQ(f.size(), 2u) << t6_dump(c);
  EXPECT_EQ(f[0].key, "ethernets.eth0.routes.0.via");
  EXPECT_EQ(f[0].message,
            "gw.yaml: the gateway 10.0.0.0 is the network address of the subnet of eth0's address 10.0.0.2/24, not a "
            "router's");
  EXPECT_EQ(f[0].fix, "give the router's own address (often the first or last host, e.g. 10.0.0.1), as --gateway must");
  EXPECT_EQ(f[1].key, "ethernets.eth0.routes.1.via");
  EXPECT_EQ(f[1].message, "gw.yaml: the gateway 10.0.0.2 is the node's own address (eth0's address 10.0.0.2/24)");
  EXPECT_EQ(f[1].fix, "give the router of that network, as --gateway must");

  // Version 1: a subnet's gateway against the address with its netmask; IPv6's own address too.
  c = check_network_config(
      "version: 1\nconfig:\n- type: physical\n  name: eth0\n  subnets:\n"
      "  - {type: static, address: 192.168.1.5, netmask: 255.255.255.0, gateway: 192.168.1.255}\n",
      "v1.yaml");
  f = t6_of(c, "seed-network-not-a-host");
  ASSERT_EQ(f.size(), 1u) << t6_dump(c);
  EXPECT_EQ(f[0].key, "config.0.subnets.0.gateway");
  EXPECT_EQ(f[0].message,
            "v1.yaml: the gateway 192.168.1.255 is the broadcast address of the subnet of eth0's address "
            "192.168.1.5/255.255.255.0, not a router's");
  c = check_network_config(
      "version: 2\nethernets:\n  eth0:\n    addresses: [\"fd00::2/64\"]\n    gateway6: \"fd00::2\"\n", "gw.yaml");
  f = t6_of(c, "seed-network-not-a-host");
  ASSERT_EQ(f.size(), 1u) << t6_dump(c);
  EXPECT_EQ(f[0].message, "gw.yaml: the gateway fd00::2 is the node's own address (eth0's address fd00::2/64)");

  // Routers of the subnet pass: a host, IPv6's Subnet-Router anycast address, a /31's ends.
  for (const std::string& ok : std::vector<std::string>{
           eth + "    routes: [{to: default, via: 10.0.0.1}]\n", eth + "    gateway4: 10.0.0.254\n",
           "version: 2\nethernets:\n  eth0:\n    addresses: [\"fd00::2/64\"]\n"
           "    routes: [{to: \"::/0\", via: \"fd00::\"}]\n",
           "version: 2\nethernets:\n  eth0:\n    addresses: [10.0.0.0/31]\n"
           "    routes: [{to: default, via: 10.0.0.1}]\n"}) {
    c = check_network_config(ok, "ok.yaml");
    EXPECT_TRUE(t6_of(c, "seed-network-not-a-host").empty()) << ok << t6_dump(c);
  }
}

}  // namespace
}  // namespace piprov::provision
