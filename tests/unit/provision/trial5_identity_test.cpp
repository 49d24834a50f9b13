// Trial 5's identity findings (issue 29): --dns on every interface piprov writes, a repeated
// name server refused, and the Wi-Fi passphrase's spaces kept.
#include <gtest/gtest.h>

#include <yaml-cpp/yaml.h>

#include "core/error.hpp"
#include "provision/identity.hpp"
#include "support/testsupport.hpp"

namespace piprov::provision {
namespace {

using test::expect_error;

struct Trial5Plan : ::testing::Test {
  test::TempDir d;
  IdentityOptions o;
  std::string file(const std::string& name, const std::string& content) {
    test::write_file(d.path / name, content);
    return (d.path / name).string();
  }
};

// Finding 6: --dns reaches wlan0 too (netplan's nameservers are per interface); a repeated one is refused.
TEST_F(Trial5Plan, DnsIsOnEveryInterfaceAndARepeatIsRefused) {
  o.hostnames = "n1";
  o.dns = {"1.1.1.1,9.9.9.9"};
  o.wifi_ssid = "my \"home\" net";
  o.wifi_psk_file = file("psk", "abcdefgh\n");
  auto plans = plan_seeds(o, {"/dev/sdb"});
  ASSERT_EQ(plans.size(), 1u);
  auto net = YAML::Load(plans[0].network_config);
  const std::vector<std::string> want = {"1.1.1.1", "9.9.9.9"};
  EXPECT_EQ(net["ethernets"]["eth0"]["nameservers"]["addresses"].as<std::vector<std::string>>(), want);
  EXPECT_EQ(net["wifis"]["wlan0"]["nameservers"]["addresses"].as<std::vector<std::string>>(), want);
  o.dns = {"1.1.1.1,1.1.1.1"};
  expect_error(ErrorKind::Usage, "--dns: 1.1.1.1 is given twice ('1.1.1.1,1.1.1.1'): give each name server once",
               [&] { plan_seeds(o, {"/dev/sdb"}); });
  o.dns = {"fd00::1", "FD00:0::1"};  // one address written two ways
  expect_error(ErrorKind::Usage, "is given twice", [&] { plan_seeds(o, {"/dev/sdb"}); });
}

// Finding 7: spaces are passphrase characters (IEEE 802.11i); only the line end goes.
TEST(Trial5WifiPsk, SpacesAreKeptOnlyTheLineEndIsStripped) {
  EXPECT_EQ(parse_wifi_psk("abcdefgh   \n", "p5.txt"), "abcdefgh   ");
  EXPECT_EQ(parse_wifi_psk("  abcdefgh\r\nsecond line\n", "p"), "  abcdefgh");
  EXPECT_EQ(parse_wifi_psk("correct horse battery", "p"), "correct horse battery");
  expect_error(ErrorKind::Usage, "is not a WPA passphrase", [] { parse_wifi_psk("abcdefg\n", "p"); });
  expect_error(ErrorKind::Usage, "is not a WPA passphrase", [] { parse_wifi_psk("abcdefgh\t\n", "p"); });
}

}  // namespace
}  // namespace piprov::provision
