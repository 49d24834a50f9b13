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

}  // namespace
}  // namespace piprov::provision
