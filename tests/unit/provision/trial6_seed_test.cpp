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

}  // namespace
}  // namespace piprov::provision
