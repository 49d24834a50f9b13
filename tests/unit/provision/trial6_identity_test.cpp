// provision on the sixth new-user trial of issue 29: the network-config piprov writes is judged by
// the image's netplan (the one that chose its keys), as `seed check --image` judges the user's; an
// SSH key given twice is refused as a --dns given twice is. Keys come from ssh-keygen at test time.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <memory>

#include "core/error.hpp"
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

// Finding 11: the same key twice (one file passed twice, or the same key material under another
// comment in a second file) is refused, as a --dns given twice is; two keys pass, each once.
TEST(Trial6Keys, TheSameKeyTwiceIsRefused) {
  PIPROV_REQUIRE_TOOL("ssh-keygen");
  test::TempDir d;
  for (const char* name : {"k", "other"}) {
    auto r = test::run("ssh-keygen -q -t ed25519 -N '' -C admin@test -f " + test::q((d.path / name).string()));
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  const std::string k = (d.path / "k.pub").string(), other = (d.path / "other.pub").string();
  const std::string pub = test::read_file(k);
  const std::string copy = (d.path / "copy.pub").string();  // same TYPE BASE64, another comment
  test::write_file(copy, pub.substr(0, pub.rfind(' ')) + " laptop@home\n");
  IdentityOptions o;
  o.user = "admin";
  o.ssh_key_files = {k, k};
  test::expect_error(
      ErrorKind::Usage,
      "--ssh-key: the ssh-ed25519 key in " + k + " is given twice (first in " + k + "): give each key once",
      [&] { plan_seeds(o, {"/dev/sdb"}); });
  o.ssh_key_files = {k, copy};
  test::expect_error(ErrorKind::Usage, "--ssh-key: the ssh-ed25519 key in " + copy + " is given twice (first in " + k,
                     [&] { plan_seeds(o, {"/dev/sdb"}); });
  test::write_file(copy, pub + pub);  // one file holding the key twice
  o.ssh_key_files = {copy};
  test::expect_error(ErrorKind::Usage, "is given twice (first in " + copy + ")", [&] { plan_seeds(o, {"/dev/sdb"}); });

  o.ssh_key_files = {k, other};
  auto plans = plan_seeds(o, {"/dev/sdb"});
  ASSERT_EQ(plans.size(), 1u);
  auto keys = YAML::Load(plans[0].user_data)["users"][0]["ssh_authorized_keys"];
  ASSERT_EQ(keys.size(), 2u) << plans[0].user_data;
  EXPECT_EQ(keys[0].as<std::string>() + "\n", pub);
  EXPECT_EQ(keys[1].as<std::string>() + "\n", test::read_file(other));
}

// Finding 6: loopback, multicast, 'this network', reserved and limited broadcast addresses (IPv6 ::,
// ::1, ff00::/8) are no host's on a link (RFC 1122 3.2.1.3, RFC 6890): --ip, --gateway and --dns
// refuse them in one line, as they refuse a subnet's network and broadcast address.
TEST(Trial6Addresses, SpecialPurposeAddressesAreNoHosts) {
  EXPECT_EQ(IpValue::parse("127.0.0.5/8")->not_a_host(), "a loopback address (127.0.0.0/8, RFC 1122 3.2.1.3)");
  EXPECT_EQ(IpValue::parse("224.0.0.5/24")->not_a_host(), "a multicast address (224.0.0.0/4, RFC 5771)");
  EXPECT_EQ(IpValue::parse("239.255.255.250")->not_a_host(), "a multicast address (224.0.0.0/4, RFC 5771)");
  EXPECT_EQ(IpValue::parse("0.0.0.5/8")->not_a_host(), "a 'this network' address (0.0.0.0/8, RFC 1122 3.2.1.3)");
  EXPECT_EQ(IpValue::parse("0.0.0.0")->not_a_host(), "a 'this network' address (0.0.0.0/8, RFC 1122 3.2.1.3)");
  EXPECT_EQ(IpValue::parse("240.0.0.5/24")->not_a_host(), "a reserved address (240.0.0.0/4, RFC 1112 section 4)");
  EXPECT_EQ(IpValue::parse("255.255.255.255")->not_a_host(),
            "the limited broadcast address (255.255.255.255, RFC 919)");
  EXPECT_EQ(IpValue::parse("::")->not_a_host(), "the unspecified address (::, RFC 4291 2.5.2)");
  EXPECT_EQ(IpValue::parse("::1")->not_a_host(), "the loopback address (::1, RFC 4291 2.5.3)");
  EXPECT_EQ(IpValue::parse("ff02::1")->not_a_host(), "a multicast address (ff00::/8, RFC 4291 2.7)");
  EXPECT_EQ(IpValue::parse("10.0.5.0/24")->not_a_host(), "the network address of its subnet");
  EXPECT_EQ(IpValue::parse("10.0.5.255/24")->not_a_host(), "the broadcast address of its subnet");
  // The blocks' neighbours are hosts.
  for (const char* host : {"1.0.0.1", "126.255.255.254", "128.0.0.1", "223.255.255.254", "100.64.0.1", "10.0.5.0",
                           "::2", "fe80::1", "fd00::11/64", "fe00::1", "2606:4700:4700::1111"})
    EXPECT_EQ(IpValue::parse(host)->not_a_host(), "") << host;

  test::expect_error(ErrorKind::Usage,
                     "--ip: 127.0.0.5/8 is a loopback address (127.0.0.0/8, RFC 1122 3.2.1.3), not a node's: give "
                     "the node's own address (e.g. 192.168.1.11/24)",
                     [] { check_ip("127.0.0.5/8", true, "--ip"); });
  test::expect_error(ErrorKind::Usage, "--ip: 224.0.0.5/24 is a multicast address (224.0.0.0/4, RFC 5771)",
                     [] { check_ip("224.0.0.5/24", true, "--ip"); });
  test::expect_error(ErrorKind::Usage, "--ip: 0.0.0.5/8 is a 'this network' address",
                     [] { check_ip("0.0.0.5/8", true, "--ip"); });
  test::expect_error(ErrorKind::Usage,
                     "--ip: ::1/128 is the loopback address (::1, RFC 4291 2.5.3), not a node's: "
                     "give the node's own address (e.g. fd00::11/64)",
                     [] { check_ip("::1/128", true, "--ip"); });
  test::expect_error(ErrorKind::Usage,
                     "--gateway: 224.0.0.1 is a multicast address (224.0.0.0/4, RFC 5771), not a router's: give the "
                     "router's own address (e.g. 192.168.1.1)",
                     [] { check_ip("224.0.0.1", false, "--gateway"); });
  test::expect_error(ErrorKind::Usage,
                     "--dns: 0.0.0.0 is a 'this network' address (0.0.0.0/8, RFC 1122 3.2.1.3), not a name "
                     "server's: give the name server's own address (e.g. 1.1.1.1)",
                     [] { check_ip("0.0.0.0", false, "--dns"); });
  test::expect_error(ErrorKind::Usage, "--dns: 255.255.255.255 is the limited broadcast address",
                     [] { check_ip("255.255.255.255", false, "--dns"); });
  test::expect_error(ErrorKind::Usage, "--dns: ff02::fb is a multicast address (ff00::/8, RFC 4291 2.7)",
                     [] { check_ip("ff02::fb", false, "--dns"); });
  test::expect_error(ErrorKind::Usage, "--dns: :: is the unspecified address", [] { check_ip("::", false, "--dns"); });
  // A name server on the node itself (systemd-resolved's stub, unbound, Pi-hole) is a loopback one.
  EXPECT_EQ(check_ip("127.0.0.53", false, "--dns").address(), "127.0.0.53");
  EXPECT_EQ(check_ip("::1", false, "--dns").address(), "::1");
  EXPECT_EQ(IpValue::parse("127.0.0.1")->not_a_host(true), "");
  EXPECT_EQ(IpValue::parse("224.0.0.1")->not_a_host(true), "a multicast address (224.0.0.0/4, RFC 5771)");

  // The trial's commands: refused before anything is planned, whichever option holds the address.
  IdentityOptions o;
  o.ips = {"127.0.0.5/8"};
  o.gateway = "127.0.0.1";
  test::expect_error(ErrorKind::Usage, "--ip: 127.0.0.5/8 is a loopback address", [&] { plan_seeds(o, {"/dev/sdb"}); });
  o.ips = {"10.0.0.11/24"};
  test::expect_error(ErrorKind::Usage, "--gateway: 127.0.0.1 is a loopback address",
                     [&] { plan_seeds(o, {"/dev/sdb"}); });
  o.gateway = "10.0.0.1";
  o.ips = {"10.0.0.11/24,224.0.0.5/24"};
  test::expect_error(ErrorKind::Usage, "--ip: 224.0.0.5/24 is a multicast address", [&] {
    plan_seeds(o, {"/dev/sdb", "/dev/sdc"});
  });
  o.ips = {"10.0.0.11/24"};
  o.dns = {"1.1.1.1,255.255.255.255"};
  test::expect_error(ErrorKind::Usage, "--dns: 255.255.255.255 is the limited broadcast address",
                     [&] { plan_seeds(o, {"/dev/sdb"}); });
  o.dns = {"1.1.1.1"};
  EXPECT_EQ(plan_seeds(o, {"/dev/sdb"}).size(), 1u);
}

}  // namespace
}  // namespace piprov::provision
