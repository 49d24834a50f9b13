// provision on the sixth new-user trial of issue 29: the network-config piprov writes is judged by
// the image's netplan (the one that chose its keys), as `seed check --image` judges the user's.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <memory>

#include "provision/identity.hpp"
#include "support/testsupport.hpp"

namespace piprov::provision {
namespace {

struct Trial6Plan : ::testing::Test {
  test::TempDir d;
  IdentityOptions o;
  void SetUp() override {
    test::write_file(d.path / "psk", "abcdefgh\n");
    o.hostnames = "n1";
    o.dns = {"1.1.1.1"};
    o.wifi_ssid = "my \"home\" net";
    o.wifi_psk_file = (d.path / "psk").string();
    o.wifi_country = "gb";
  }
  static std::shared_ptr<const ImageCloudInit> image(const std::string& netplan) {
    auto ci = std::make_shared<ImageCloudInit>();
    ci->image = "nci24.img";
    ci->cloud_init_version = "24.1";
    ci->netplan_version = netplan;
    ci->root_read = true;
    return ci;
  }
  static const Finding* netplan_finding(const SeedCheck& c) {
    auto it = std::find_if(c.findings.begin(), c.findings.end(),
                           [](const Finding& f) { return f.rule == "seed-network-netplan-version"; });
    return it == c.findings.end() ? nullptr : &*it;
  }
};

// Finding 3: netplan 1.0 read from the image reads regulatory-domain: no warning with an impossible fix.
TEST_F(Trial6Plan, OwnNetworkConfigJudgedByTheImageNetplan) {
  SeedCheck check;
  auto plans = plan_seeds(o, {"/dev/loop0"}, &check, image("1.0"));
  ASSERT_EQ(plans.size(), 1u);
  EXPECT_EQ(YAML::Load(plans[0].network_config)["wifis"]["wlan0"]["regulatory-domain"].as<std::string>(), "GB");
  const Finding* f = netplan_finding(check);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::Info) << f->message;
  EXPECT_EQ(f->message,
            "network-config (piprov's, /dev/loop0): wifis.wlan0: 'regulatory-domain' is read by netplan 1.0, read "
            "from the image (netplan 0.105 and later)");
  EXPECT_EQ(f->fix, "");
  EXPECT_FALSE(check.refused());

  // netplan 0.99: piprov leaves the key out, so there is nothing to judge.
  SeedCheck old;
  plans = plan_seeds(o, {"/dev/loop0"}, &old, image("0.99"));
  EXPECT_FALSE(YAML::Load(plans[0].network_config)["wifis"]["wlan0"]["regulatory-domain"].IsDefined());
  EXPECT_EQ(netplan_finding(old), nullptr);
}

}  // namespace
}  // namespace piprov::provision
