// Trial 5's seed check findings (issue 29): netplan's typed keys, cloud-config keys of a newer
// cloud-init, meta-data's local-hostname and unknown keys, and the default-route conflict's count. Schemas:
// ../shared/data/cloud-init-schemas.
#include <gtest/gtest.h>

#include <memory>

#include "core/error.hpp"
#include "provision/identity.hpp"
#include "provision/seed/seed_check.hpp"
#include "provision/seed/seed_check_detail.hpp"
#include "support/testsupport.hpp"

namespace piprov::provision {
namespace {

std::string t5_dump(const SeedCheck& c) { return findings_text(c.findings); }

/// The findings of `rule`, in order.
std::vector<Finding> t5_of(const SeedCheck& c, const std::string& rule) {
  std::vector<Finding> out;
  for (const auto& f : c.findings)
    if (f.rule == rule) out.push_back(f);
  return out;
}

// Finding 2: `mtu: big`, a VLAN `id: a` and `id: 4095` are netplan's errors ("invalid unsigned
// int value", "invalid id '4095' (allowed values are 0 to 4094)"): one rule, naming key, value, range.
TEST(Trial5NetplanTypes, MtuAndVlanIdValuesAreErrorsNamingKeyValueAndRange) {
  auto c = check_network_config(
      "version: 2\nethernets:\n  eth0:\n    dhcp4: true\n    mtu: big\nvlans:\n  v1:\n    id: a\n    link: eth0\n"
      "  v2:\n    id: 4095\n    link: eth0\n  v3:\n    id: 4094\n    link: eth0\n  v4:\n    id: \"10\"\n    link: "
      "eth0\n",
      "mtu2.yaml");
  auto f = t5_of(c, "seed-network-device");
  ASSERT_EQ(f.size(), 3u) << t5_dump(c);
  EXPECT_EQ(f[0].line, 5);
  EXPECT_EQ(f[0].key, "ethernets.eth0.mtu");
  EXPECT_EQ(f[0].severity, Severity::Error);
  EXPECT_NE(f[0].message.find("'mtu: big' is not an unsigned integer (netplan: \"invalid unsigned int value 'big'\"; "
                              "mtu takes 0 to 4294967295)"),
            std::string::npos)
      << f[0].message;
  EXPECT_EQ(f[1].line, 8);
  EXPECT_NE(f[1].message.find("'id: a' is not an unsigned integer"), std::string::npos) << f[1].message;
  EXPECT_NE(f[1].message.find("id takes 0 to 4094"), std::string::npos) << f[1].message;
  EXPECT_EQ(f[2].line, 11);
  EXPECT_EQ(f[2].key, "vlans.v2.id");
  EXPECT_NE(f[2].message.find("'id: 4095' is out of range (netplan: \"invalid id '4095' (allowed values are 0 to "
                              "4094)\")"),
            std::string::npos)
      << f[2].message;
  EXPECT_EQ(f[2].fix, "write a whole number from 0 to 4094");
  EXPECT_TRUE(c.refused());
}

// The other typed keys of the table: booleans (netplan's true/false/yes/no/on/off/y/n, any case)
// and unsigned ints in routes, routing-policy, overrides, access points, bond and bridge parameters.
TEST(Trial5NetplanTypes, EveryTypedKeyOfTheTableIsChecked) {
  const std::string eth = "version: 2\nethernets:\n  eth0:\n";
  struct Case {
    std::string yaml, key;
    bool error;
  };
  const std::vector<Case> cases = {
      {eth + "    dhcp4: maybe\n", "ethernets.eth0.dhcp4", true},
      {eth + "    dhcp6: 1\n", "ethernets.eth0.dhcp6", true},
      {eth + "    dhcp4: \"y\"\n", "", false},
      {eth + "    dhcp4: \"On\"\n", "", false},
      {eth + "    ipv6-mtu: -1\n", "ethernets.eth0.ipv6-mtu", true},
      {eth + "    mtu: 1500.5\n", "ethernets.eth0.mtu", true},
      {eth + "    mtu: 4294967296\n", "ethernets.eth0.mtu", true},
      {eth + "    mtu: \"9000\"\n", "", false},
      {eth + "    wakeonlan: sometimes\n", "ethernets.eth0.wakeonlan", true},
      {eth + "    receive-checksum-offload: 2\n", "ethernets.eth0.receive-checksum-offload", true},
      {eth + "    virtual-function-count: many\n", "ethernets.eth0.virtual-function-count", true},
      {eth + "    routes:\n    - {to: 10.0.0.0/8, via: 10.0.0.1, metric: -5}\n", "ethernets.eth0.routes.0.metric",
       true},
      {eth + "    routes:\n    - {to: 10.0.0.0/8, via: 10.0.0.1, on-link: sure}\n", "ethernets.eth0.routes.0.on-link",
       true},
      {eth + "    routes:\n    - {to: 10.0.0.0/8, via: 10.0.0.1, table: main}\n", "ethernets.eth0.routes.0.table",
       true},
      {eth + "    routing-policy:\n    - {from: 10.0.0.0/8, table: 100, priority: high}\n",
       "ethernets.eth0.routing-policy.0.priority", true},
      {eth + "    dhcp4-overrides: {route-metric: low}\n", "ethernets.eth0.dhcp4-overrides.route-metric", true},
      {eth + "    dhcp4-overrides: {use-dns: 0}\n", "ethernets.eth0.dhcp4-overrides.use-dns", true},
      {"version: 2\nwifis:\n  wlan0:\n    access-points:\n      home:\n        password: secretpass\n"
       "        hidden: perhaps\n",
       "wifis.wlan0.access-points.home.hidden", true},
      {"version: 2\nethernets:\n  eth0: {}\n  eth1: {}\nbonds:\n  bond0:\n    interfaces: [eth0, eth1]\n"
       "    parameters: {min-links: two}\n",
       "bonds.bond0.parameters.min-links", true},
      {"version: 2\nethernets:\n  eth0: {}\nbridges:\n  br0:\n    interfaces: [eth0]\n    parameters: {stp: 3}\n",
       "bridges.br0.parameters.stp", true},
      {"version: 2\nethernets:\n  eth0: {}\nbridges:\n  br0:\n    interfaces: [eth0]\n"
       "    parameters: {stp: false, priority: 32768}\n",
       "", false},
  };
  for (const auto& k : cases) {
    auto c = check_network_config(k.yaml, "nc");
    auto f = t5_of(c, "seed-network-device");
    if (!k.error) {
      EXPECT_TRUE(f.empty()) << k.yaml << t5_dump(c);
      continue;
    }
    ASSERT_EQ(f.size(), 1u) << k.yaml << t5_dump(c);
    EXPECT_EQ(f[0].key, k.key) << k.yaml;
    EXPECT_EQ(f[0].severity, Severity::Error) << k.yaml;
  }
}

/// An image whose cloud-init `version` carries the shared schema of that version.
std::shared_ptr<ImageCloudInit> t5_image(const std::string& version, const std::filesystem::path& schema) {
  auto image = std::make_shared<ImageCloudInit>();
  image->image = "n.img";
  image->cloud_init_version = version;
  image->schema_text = test::read_file(schema);
  image->root_read = true;
  return image;
}

// Finding 3: 'rpi' (cc_raspberry_pi, cloud-init 25.2) is not a misspelling. The image's
// cloud-init 24.1 judging: an error naming both versions and what to do; this workstation's schema
// judging (22.4.2): a warning that the node's cloud-init decides, not a refusal; 25.2 reads it.
TEST(Trial5CloudInitVersion, RpiModuleIsNamedWithTheVersionThatReadsIt) {
  PIPROV_REQUIRE_SHARED("cloud-init/09-user-data-rpi-module-cloud-init-25.2", ud);
  PIPROV_REQUIRE_SHARED("cloud-init-schemas/schema-cloud-config-v1-22.4.2.json", s22);
  PIPROV_REQUIRE_SHARED("cloud-init-schemas/schema-cloud-config-v1-24.1.json", s24);
  PIPROV_REQUIRE_SHARED("cloud-init-schemas/schema-cloud-config-v1-25.2.json", s25);
  NodeIdentity n;
  n.user_data_file = "09";
  n.user_data_base = test::read_file(ud);

  auto old = check_seed(n, {.schema_path = s22.string(), .image = t5_image("24.1", s24)});
  auto e = t5_of(old, "seed-cloud-init-version");
  ASSERT_EQ(e.size(), 1u) << t5_dump(old);
  EXPECT_EQ(e[0].severity, Severity::Error);
  EXPECT_EQ(e[0].key, "rpi");
  EXPECT_NE(e[0].message.find("'rpi' is read by cloud-init 25.2 and later"), std::string::npos) << e[0].message;
  EXPECT_NE(e[0].message.find("this image's cloud-init is 24.1"), std::string::npos) << e[0].message;
  EXPECT_EQ(e[0].message.find("spelling"), std::string::npos) << e[0].message;
  EXPECT_NE(e[0].fix.find("use an image whose cloud-init is 25.2 or later"), std::string::npos) << e[0].fix;
  EXPECT_TRUE(t5_of(old, "seed-unknown-key").empty()) << t5_dump(old);
  EXPECT_TRUE(old.refused());

  auto host = check_seed(n, {.schema_path = s22.string()});
  auto w = t5_of(host, "seed-cloud-init-version");
  ASSERT_EQ(w.size(), 1u) << t5_dump(host);
  EXPECT_EQ(w[0].severity, Severity::Warning);
  EXPECT_NE(w[0].message.find("the node's cloud-init decides"), std::string::npos) << w[0].message;
  EXPECT_NE(w[0].fix.find("--image IMAGE"), std::string::npos) << w[0].fix;
  EXPECT_FALSE(host.refused()) << t5_dump(host);

  // --image given, but it gives no schema: the host's judges, the fix does not ask for --image.
  auto none = std::make_shared<ImageCloudInit>();
  none->image = "nstock.img";
  none->note = "no schema";
  auto judged_by_host = check_seed(n, {.schema_path = s24.string(), .image = none});
  w = t5_of(judged_by_host, "seed-cloud-init-version");
  ASSERT_EQ(w.size(), 1u) << t5_dump(judged_by_host);
  EXPECT_EQ(w[0].severity, Severity::Warning);
  EXPECT_EQ(w[0].fix,
            "keep 'rpi' only if the node's cloud-init is 25.2 or later (the image gives no schema to judge by)");
  EXPECT_FALSE(judged_by_host.refused());

  auto newer = check_seed(n, {.schema_path = s22.string(), .image = t5_image("25.2", s25)});
  EXPECT_TRUE(t5_of(newer, "seed-cloud-init-version").empty()) << t5_dump(newer);
  EXPECT_FALSE(newer.refused()) << t5_dump(newer);
}

// Each entry of the table checked against the shared schemas: absent before its version, present from it.
TEST(Trial5CloudInitVersion, TableAgreesWithTheSchemas) {
  EXPECT_EQ(cloud_init_key_since("rpi"), "25.2");
  EXPECT_EQ(cloud_init_key_since("ubuntu_pro"), "24.1");
  EXPECT_EQ(cloud_init_key_since("runcmd"), "");
  for (const auto& [key, version, known] :
       std::vector<std::tuple<std::string, std::string, bool>>{{"rpi", "24.1", false},
                                                               {"rpi", "25.2", true},
                                                               {"rpi", "26.2", true},
                                                               {"ubuntu_pro", "22.4.2", false},
                                                               {"ubuntu_pro", "24.1", true}}) {
    const std::string rel = "cloud-init-schemas/schema-cloud-config-v1-" + version + ".json";
    PIPROV_REQUIRE_SHARED(rel, schema);
    auto c = check_user_data("#cloud-config\n" + key + ": {}\n", "u", {.schema_path = schema.string()});
    bool flagged = !t5_of(c, "seed-cloud-init-version").empty() || !t5_of(c, "seed-unknown-key").empty();
    EXPECT_EQ(flagged, !known) << key << " " << version << t5_dump(c);
  }
}

// Finding 8: local-hostname follows the host name rule of --hostname (RFC 1123); an unknown key warns.
TEST(Trial5MetaData, LocalHostnameIsAHostNameAndUnknownKeysWarn) {
  auto c = check_meta_data("instance-id: i1\nlocal-hostname: bad_name!\nfoo: 1\n", "md.yaml");
  auto h = t5_of(c, "seed-meta-data-hostname");
  ASSERT_EQ(h.size(), 1u) << t5_dump(c);
  EXPECT_EQ(h[0].severity, Severity::Error);
  EXPECT_EQ(h[0].line, 2);
  EXPECT_NE(h[0].message.find("local-hostname 'bad_name!' is not a host name"), std::string::npos) << h[0].message;
  auto u = t5_of(c, "seed-meta-data-unknown-key");
  ASSERT_EQ(u.size(), 1u) << t5_dump(c);
  EXPECT_EQ(u[0].severity, Severity::Warning);
  EXPECT_EQ(u[0].key, "foo");
  EXPECT_EQ(u[0].line, 3);
  EXPECT_TRUE(c.refused());
  for (const char* good : {"node1", "node-1.example.com", "A1"}) {
    auto ok = check_meta_data(std::string("instance-id: i1\nlocal-hostname: ") + good + "\n", "md");
    EXPECT_TRUE(ok.findings.empty()) << good << t5_dump(ok);
  }
  for (const char* bad :
       {"-node", "node..x", "a_b", "12345678901234567890123456789012345678901234567890123456789012345"})
    EXPECT_EQ(
        t5_of(check_meta_data(std::string("local-hostname: ") + bad + "\n", "md"), "seed-meta-data-hostname").size(),
        1u)
        << bad;
  // --hostname writes its name over it: a warning then, not a refusal.
  NodeIdentity n;
  n.meta_data_file = "md.yaml";
  n.meta_data_base = "local-hostname: bad_name!\n";
  n.hostname = "n1";
  auto with = check_seed(n, {.schema_path = "none"});
  auto w = t5_of(with, "seed-meta-data-hostname");
  ASSERT_EQ(w.size(), 1u) << t5_dump(with);
  EXPECT_EQ(w[0].severity, Severity::Warning);
  EXPECT_NE(w[0].message.find("(--hostname n1 replaces it on this disk)"), std::string::npos) << w[0].message;
  EXPECT_FALSE(with.refused());
}

// Finding 11 (a): three default routes are called three.
TEST(Trial5DefaultRoutes, TheCountIsTheNumberOfRoutesListed) {
  auto c = check_network_config(
      "version: 2\nethernets:\n  eth0:\n    addresses: [10.0.0.2/24]\n    gateway4: 10.0.0.254\n    routes:\n"
      "      - {to: 0.0.0.0/0, via: 10.0.0.1}\n  eth1:\n    addresses: [10.1.0.2/24]\n    routes:\n"
      "      - {to: default, via: 10.1.0.1}\n",
      "v2.yaml");
  auto f = t5_of(c, "seed-network-default-route-conflict");
  ASSERT_EQ(f.size(), 1u) << t5_dump(c);
  EXPECT_NE(f[0].message.find("'gateway4: 10.0.0.254' (eth0), 'to: 0.0.0.0/0 via 10.0.0.1' (eth0) and 'to: default "
                              "via 10.1.0.1' (eth1) are three default routes"),
            std::string::npos)
      << f[0].message;
  EXPECT_EQ(f[0].message.find("two default routes"), std::string::npos) << f[0].message;
}

}  // namespace
}  // namespace piprov::provision
