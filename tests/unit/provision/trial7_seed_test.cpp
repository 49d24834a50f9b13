// Trial 7's seed check nits (issue 29): a netplan bond mode netplan does not know, a meta-data
// instance-id that is not one string, and a bad users entry counted once per problem. Schemas:
// ../shared/data/cloud-init-schemas.
#include <gtest/gtest.h>

#include <algorithm>

#include "provision/seed/seed_check.hpp"
#include "support/testsupport.hpp"

namespace piprov::provision {
namespace {

std::vector<Finding> t7_of(const SeedCheck& c, const std::string& rule) {
  std::vector<Finding> out;
  for (const auto& f : c.findings)
    if (f.rule == rule) out.push_back(f);
  return out;
}

// netplan's parse.c handle_bond_mode refuses a mode it does not know ("unknown bond mode"); `fast`
// is a value of lacp-rate, not of mode.
TEST(Trial7Seed, UnknownBondModeIsAnError) {
  const std::string head =
      "version: 2\nethernets:\n  eth0: {}\n  eth1: {}\nbonds:\n  bond0:\n    interfaces: [eth0, eth1]\n"
      "    parameters:\n";
  auto c = check_network_config(head + "      mode: fast\n      lacp-rate: fast\n", "bond.yaml");
  auto f = t7_of(c, "seed-network-device");
  ASSERT_EQ(f.size(), 1u) << findings_text(c.findings);
  EXPECT_EQ(f[0].severity, Severity::Error);
  EXPECT_EQ(f[0].line, 9);
  EXPECT_EQ(f[0].key, "bonds.bond0.parameters.mode");
  EXPECT_NE(f[0].message.find("'mode: fast' is not a bond mode (netplan: \"unknown bond mode 'fast'\"; it takes "
                              "balance-rr, active-backup, balance-xor, broadcast, 802.3ad, balance-tlb, balance-alb, "
                              "balance-tcp, balance-slb)"),
            std::string::npos)
      << f[0].message;
  EXPECT_NE(f[0].fix.find("(fast and slow are values of lacp-rate)"), std::string::npos) << f[0].fix;
  EXPECT_TRUE(c.refused());
  // Every mode netplan takes passes; a list does not.
  for (const char* m :
       {"balance-rr", "active-backup", "balance-xor", "broadcast", "802.3ad", "balance-tlb", "balance-alb"})
    EXPECT_TRUE(t7_of(check_network_config(head + "      mode: " + m + "\n", "b"), "seed-network-device").empty()) << m;
  EXPECT_EQ(t7_of(check_network_config(head + "      mode: [802.3ad]\n", "b"), "seed-network-device").size(), 1u);
}

// cloud-init names the instance by instance-id: a list, a map or null is no name.
TEST(Trial7Seed, InstanceIdMustBeOneString) {
  auto c = check_meta_data("instance-id: [1,2]\nlocal-hostname: n1\n", "md");
  auto f = t7_of(c, "seed-meta-data-instance-id");
  ASSERT_EQ(f.size(), 1u) << findings_text(c.findings);
  EXPECT_EQ(f[0].severity, Severity::Error);
  EXPECT_EQ(f[0].line, 1);
  EXPECT_EQ(f[0].message.rfind("md: instance-id [1,2] is not a string: cloud-init names the instance by it", 0), 0u)
      << f[0].message;
  EXPECT_TRUE(c.refused());
  EXPECT_EQ(t7_of(check_meta_data("instance-id: {a: 1}\n", "md"), "seed-meta-data-instance-id").size(), 1u);
  EXPECT_EQ(t7_of(check_meta_data("instance-id:\n", "md"), "seed-meta-data-instance-id").size(), 1u);
  for (const char* ok : {"instance-id: iid-local01\n", "instance-id: 1234\n", "local-hostname: n1\n"})
    EXPECT_TRUE(t7_of(check_meta_data(ok, "md"), "seed-meta-data-instance-id").empty()) << ok;
}

// One users entry (a map) with 5 bad values: 5 errors, not also "users.0 is not of type 'string'
// or 'array'" (the oneOf's other branches, which failed on the entry's type only).
TEST(Trial7Seed, BadUsersEntryCountsEachProblemOnce) {
  const std::string ud =
      "#cloud-config\nusers:\n  - name: bob\n    lock_passwd: maybe\n    groups: 5\n    shell: [1]\n    sudo: 3\n"
      "    ssh_authorized_keys: key\n";
  for (const char* v : {"22.4.2", "24.1", "26.2"}) {
    const std::string rel = std::string("cloud-init-schemas/schema-cloud-config-v1-") + v + ".json";
    PIPROV_REQUIRE_SHARED(rel, schema);
    auto c = check_user_data(ud, "u", {.schema_path = schema.string()});
    auto f = t7_of(c, "seed-schema-error");
    std::vector<std::string> keys;
    for (const auto& x : f) keys.push_back(x.key);
    std::sort(keys.begin(), keys.end());
    EXPECT_EQ(keys, (std::vector<std::string>{"users.0.groups", "users.0.lock_passwd", "users.0.shell",
                                              "users.0.ssh_authorized_keys", "users.0.sudo"}))
        << v << "\n"
        << findings_text(c.findings);
    // A users entry of the wrong type itself still gets its type error.
    auto n = check_user_data("#cloud-config\nusers:\n  - 5\n", "u", {.schema_path = schema.string()});
    auto g = t7_of(n, "seed-schema-error");
    ASSERT_EQ(g.size(), 1u) << v << findings_text(n.findings);
    EXPECT_EQ(g[0].key, "users.0");
  }
}

}  // namespace
}  // namespace piprov::provision
