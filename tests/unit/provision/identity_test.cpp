// First-boot identity: option validation and the NoCloud seed's YAML, read
// back with yaml-cpp. Keys and hashes come from ssh-keygen and openssl at test time.
#include <gtest/gtest.h>

#include <yaml-cpp/yaml.h>
#include <regex>

#include <set>

#include "core/error.hpp"
#include "core/strings.hpp"
#include "provision/first_boot.hpp"
#include "provision/identity.hpp"
#include "support/testsupport.hpp"

namespace piprov::provision {
namespace {

using test::expect_error;
using test::q;
using test::run;

/// A fresh ed25519 key pair in `dir`: returns the private key's path (public: + ".pub").
std::string make_key(const test::TempDir& d, const std::string& name = "id_ed25519",
                     const std::string& type = "ed25519") {
  auto key = (d.path / name).string();
  auto r = run("ssh-keygen -q -t " + type + " -N '' -C admin@test -f " + q(key));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return key;
}

TEST(ExpandHostnames, PatternsListsAndSingleNames) {
  EXPECT_EQ(expand_hostnames("node{1..3}", 3), (std::vector<std::string>{"node1", "node2", "node3"}));
  EXPECT_EQ(expand_hostnames("cp{08..10}-a", 3), (std::vector<std::string>{"cp08-a", "cp09-a", "cp10-a"}));
  EXPECT_EQ(expand_hostnames("alpha, beta", 2), (std::vector<std::string>{"alpha", "beta"}));
  EXPECT_EQ(expand_hostnames("pi", 1), (std::vector<std::string>{"pi"}));
}

TEST(ExpandHostnames, CountMismatchBadNamesAndDuplicatesAreRefused) {
  expect_error(ErrorKind::Usage, "gives 3 name(s) (node1, node2, node3) for 2 target disk(s)",
               [] { expand_hostnames("node{1..3}", 2); });
  expect_error(ErrorKind::Usage, "gives 1 name(s) (pi) for 2 target disk(s)", [] { expand_hostnames("pi", 2); });
  expect_error(ErrorKind::Usage, "'-bad' is not a host name", [] { expand_hostnames("-bad", 1); });
  expect_error(ErrorKind::Usage, "'a.b' is not a host name", [] { expand_hostnames("a.b", 1); });
  expect_error(ErrorKind::Usage, "'' is not a host name", [] { expand_hostnames("a,,b", 3); });
  expect_error(ErrorKind::Usage, "'A' is given twice", [] { expand_hostnames("a,A", 2); });
  expect_error(ErrorKind::Usage, "counts down", [] { expand_hostnames("n{3..1}", 3); });
}

TEST(PublicKeys, RealKeysOfEveryTypeAreAccepted) {
  PIPROV_REQUIRE_TOOL("ssh-keygen");
  test::TempDir d;
  for (const char* type : {"ed25519", "rsa", "ecdsa"}) {
    auto key = make_key(d, std::string("k_") + type, type);
    std::string pub = test::read_file(key + ".pub");
    auto keys = parse_public_keys("# my keys\n\n" + pub, key + ".pub");
    ASSERT_EQ(keys.size(), 1u) << type;
    EXPECT_EQ(keys[0] + "\n", pub);
  }
}

TEST(PublicKeys, PrivateKeyDamagedBodyAndOtherTextAreRefused) {
  PIPROV_REQUIRE_TOOL("ssh-keygen");
  test::TempDir d;
  auto key = make_key(d);
  expect_error(ErrorKind::Usage, "--ssh-key " + key + " is a private key (-----BEGIN OPENSSH PRIVATE KEY-----)",
               [&] { parse_public_keys(test::read_file(key), key); });
  expect_error(ErrorKind::Usage, "is a private key (-----BEGIN RSA PRIVATE KEY-----)",
               [&] { parse_public_keys("-----BEGIN RSA PRIVATE KEY-----\nMIIE\n", "old.pem"); });
  std::string pub = test::read_file(key + ".pub");
  std::string damaged = pub;
  damaged.replace(pub.find(' ') + 1, 4, "AAAB");  // the type field's length
  expect_error(ErrorKind::Usage, "k.pub line 1: the base64 body of the ssh-ed25519 key is damaged",
               [&] { parse_public_keys(damaged, "k.pub"); });
  // An RSA body announced as ed25519.
  auto rsa = test::read_file(make_key(d, "r", "rsa") + ".pub");
  expect_error(ErrorKind::Usage, "is damaged",
               [&] { parse_public_keys("ssh-ed25519 " + rsa.substr(rsa.find(' ') + 1), "mixed.pub"); });
  expect_error(ErrorKind::Usage, "x.pub line 2 is not an SSH public key",
               [&] { parse_public_keys("\nhello world\n", "x.pub"); });
  expect_error(ErrorKind::Usage, "is not an SSH public key",
               [&] { parse_public_keys("ssh-dss AAAAB3NzaC1kc3M=", "dsa.pub"); });
  expect_error(ErrorKind::Usage, "e.pub holds no public key", [&] { parse_public_keys("# nothing\n", "e.pub"); });
}

TEST(PasswordHash, CryptHashesOnly) {
  PIPROV_REQUIRE_TOOL("openssl");
  for (const char* alg : {"-6", "-5"}) {
    auto r = run(std::string("openssl passwd ") + alg + " -salt abcdefgh secret");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NO_THROW(check_password_hash(trim(r.out))) << r.out;
  }
  // yescrypt and bcrypt of "secret" (libxcrypt crypt(3)).
  EXPECT_NO_THROW(check_password_hash("$y$j9T$F5Jx5fExrKuPp53xLKQ..1$GmcwIgvdUC9qLWcKCi6gklUa1dM3ziD43YxYNURLKy0"));
  EXPECT_NO_THROW(check_password_hash("$2b$12$KIXQJ2Q9Jx5fExrKuPp53uOXWnOC5qSso7B3viGd.T.uurjwoGybG"));
  for (const char* bad : {"secret", "$6$salt$short", "$1$abcdefgh$hashhashhashhashhashha", ""})
    expect_error(ErrorKind::Usage, "never a clear password", [&] { check_password_hash(bad); });
}

TEST(CheckIp, CidrAndBareAddresses) {
  EXPECT_EQ(check_ip("192.168.1.11/24", true, "--ip").family, 4);
  EXPECT_EQ(check_ip("fd00::11/64", true, "--ip").family, 6);
  EXPECT_EQ(check_ip("192.168.1.1", false, "--gateway").family, 4);
  expect_error(ErrorKind::Usage, "--ip: '192.168.1.11' is not an address with its prefix length",
               [] { check_ip("192.168.1.11", true, "--ip"); });
  expect_error(ErrorKind::Usage, "not an address", [] { check_ip("192.168.1.11/33", true, "--ip"); });
  expect_error(ErrorKind::Usage, "not an address", [] { check_ip("300.1.1.1/24", true, "--ip"); });
  expect_error(ErrorKind::Usage, "--dns: '1.1.1.1/32' is not an IP address",
               [] { check_ip("1.1.1.1/32", false, "--dns"); });
  // A subnet's network and broadcast addresses are no node's (/31 and /32 have neither).
  expect_error(ErrorKind::Usage, "--ip: 192.168.1.0/24 is the network address of its subnet",
               [] { check_ip("192.168.1.0/24", true, "--ip"); });
  expect_error(ErrorKind::Usage, "--ip: 10.0.3.255/22 is the broadcast address of its subnet",
               [] { check_ip("10.0.3.255/22", true, "--ip"); });
  EXPECT_EQ(check_ip("10.0.2.255/22", true, "--ip").family, 4);
  EXPECT_EQ(check_ip("192.168.1.0/31", true, "--ip").family, 4);
  EXPECT_EQ(check_ip("192.168.1.0/32", true, "--ip").family, 4);
  // A prefix of 0 is no subnet: netplan refuses it (invalid prefix length); the message says what to give.
  expect_error(ErrorKind::Usage,
               "--ip: 10.0.0.11/0 has the prefix length 0, which is no subnet (netplan: invalid prefix length): give "
               "the prefix of the node's network, e.g. 10.0.0.11/24",
               [] { check_ip("10.0.0.11/0", true, "--ip"); });
  expect_error(ErrorKind::Usage, "fd00::11/0 has the prefix length 0", [] { check_ip("fd00::11/0", true, "--ip"); });
  auto v = check_ip("fd00::11/64", true, "--ip");
  EXPECT_EQ(v.address(), "fd00::11");
  EXPECT_EQ(v.prefix, 64);
  EXPECT_EQ(v.default_route(), "::/0");
}

// The one IP value: parse, netmask (cloud-init's ip_network), containment.
TEST(IpValue, ParseNetmaskAndContains) {
  using piprov::provision::IpValue;
  auto a = IpValue::parse("10.0.3.7/22");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->family, 4);
  EXPECT_EQ(a->prefix, 22);
  EXPECT_TRUE(a->contains(*IpValue::parse("10.0.0.1")));
  EXPECT_FALSE(a->contains(*IpValue::parse("10.0.4.1")));
  EXPECT_FALSE(a->contains(*IpValue::parse("fd00::1")));
  EXPECT_FALSE(IpValue::parse("10.0.0.0/255.255.255.0"));  // a netmask only where cloud-init reads one
  auto m = IpValue::parse("10.0.0.0/255.255.255.0", true);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->prefix, 24);
  EXPECT_FALSE(IpValue::parse("10.0.0.0/255.0.255.0", true));  // not contiguous
  EXPECT_FALSE(IpValue::parse("10.0.0.1/33"));
  EXPECT_FALSE(IpValue::parse("fd00::1/129"));
  EXPECT_FALSE(IpValue::parse("default"));
  EXPECT_TRUE(IpValue::parse("0.0.0.0/0")->is_default_route());
  EXPECT_TRUE(IpValue::parse("::/0")->is_default_route());
  EXPECT_EQ(IpValue::parse("192.168.1.0/24")->subnet_role(), "network");
  EXPECT_EQ(IpValue::parse("192.168.1.255/24")->subnet_role(), "broadcast");
  EXPECT_EQ(IpValue::parse("192.168.1.0/31")->subnet_role(), "");
}

TEST(CheckGateway, InsideTheSubnetOfTheAddress) {
  auto check_gateway = [](const std::string& gw, const std::string& cidr) {
    piprov::provision::check_gateway(check_ip(gw, false, "--gateway"), check_ip(cidr, true, "--ip"));
  };
  EXPECT_NO_THROW(check_gateway("192.168.1.1", "192.168.1.11/24"));
  EXPECT_NO_THROW(check_gateway("10.0.0.1", "10.0.3.7/22"));
  EXPECT_NO_THROW(check_gateway("fd00::1", "fd00::11/64"));
  expect_error(ErrorKind::Usage, "--gateway 10.0.0.1 is not in the subnet of --ip 192.168.1.11/24",
               [&] { check_gateway("10.0.0.1", "192.168.1.11/24"); });
  expect_error(ErrorKind::Usage, "--gateway 10.0.4.1 is not in the subnet of --ip 10.0.3.7/22",
               [&] { check_gateway("10.0.4.1", "10.0.3.7/22"); });
  expect_error(ErrorKind::Usage, "is not in the subnet", [&] { check_gateway("fd01::1", "fd00::11/64"); });
  // An IPv6 link-local router is on-link whatever the subnet (RFC 4861 4.2, 6.1.2); fec0:: (not
  // fe80::/10) is not.
  EXPECT_NO_THROW(check_gateway("fe80::1", "fd00::11/64"));
  EXPECT_NO_THROW(check_gateway("febf::1", "2001:db8::11/64"));
  expect_error(ErrorKind::Usage, "is not in the subnet", [&] { check_gateway("fec0::1", "fd00::11/64"); });
  expect_error(ErrorKind::Usage, "not of the same IP version", [&] { check_gateway("fd00::1", "10.0.3.7/22"); });
  expect_error(ErrorKind::Usage,
               "--gateway 10.0.0.5 is the node's own address (--ip 10.0.0.5/24): give the router of that network",
               [&] { check_gateway("10.0.0.5", "10.0.0.5/24"); });
  expect_error(ErrorKind::Usage, "is the node's own address", [&] { check_gateway("fd00::11", "fd00::11/64"); });
  // The subnet's network and broadcast addresses are no router's (were accepted).
  expect_error(ErrorKind::Usage,
               "--gateway 10.0.0.0 is the network address of the subnet of --ip 10.0.0.11/24, not a router's: give "
               "the router's own address (often the first or last host, e.g. 10.0.0.1)",
               [&] { check_gateway("10.0.0.0", "10.0.0.11/24"); });
  expect_error(ErrorKind::Usage, "--gateway 10.0.3.255 is the broadcast address of the subnet of --ip 10.0.3.7/22",
               [&] { check_gateway("10.0.3.255", "10.0.3.7/22"); });
  EXPECT_NO_THROW(check_gateway("10.0.1.0", "10.0.3.7/22"));  // a host of a /22
  EXPECT_NO_THROW(check_gateway("10.0.0.254", "10.0.0.11/24"));
  EXPECT_NO_THROW(check_gateway("fd00::", "fd00::11/64"));  // IPv6's Subnet-Router anycast address
}

TEST(CheckTimezone, NamesOfTheTzDatabase) {
  test::TempDir d;
  test::write_file(d.path / "Europe" / "Berlin", std::string("TZif2") + std::string(40, '\0'));
  test::write_file(d.path / "UTC", std::string("TZif2") + std::string(40, '\0'));
  test::write_file(d.path / "leapseconds", "# not a zone\n");
  EXPECT_NO_THROW(check_timezone("Europe/Berlin", d.path));
  EXPECT_NO_THROW(check_timezone("UTC", d.path));
  expect_error(ErrorKind::Usage, "--timezone: 'Mars/Olympus' is not in the tz database",
               [&] { check_timezone("Mars/Olympus", d.path); });
  expect_error(ErrorKind::Usage, "is not in the tz database", [&] { check_timezone("leapseconds", d.path); });
  expect_error(ErrorKind::Usage, "is not in the tz database", [&] { check_timezone("Europe", d.path); });
  expect_error(ErrorKind::Usage, "'../etc/passwd' is not a time zone name",
               [&] { check_timezone("../etc/passwd", d.path); });
  EXPECT_NO_THROW(check_timezone("Mars/Olympus", d.path / "absent"));  // no tzdata: the shape only
  if (!std::filesystem::exists("/usr/share/zoneinfo/Europe/Berlin")) PIPROV_SKIP("no tzdata (/usr/share/zoneinfo)");
  EXPECT_NO_THROW(check_timezone("Europe/Berlin", "/usr/share/zoneinfo"));
  expect_error(ErrorKind::Usage, "not in the tz database",
               [] { check_timezone("Europe/Berlinn", "/usr/share/zoneinfo"); });
  // Trial 9 nit 15: a did-you-mean, as --wifi-country UK gets GB: case first, then the nearest.
  expect_error(ErrorKind::Usage,
               "--timezone: 'europe/berlin' is not in the tz database (/usr/share/zoneinfo): did you mean "
               "Europe/Berlin? (zone names are case-sensitive)",
               [] { check_timezone("europe/berlin", "/usr/share/zoneinfo"); });
  expect_error(ErrorKind::Usage,
               "--timezone: 'asia/tokio' is not in the tz database (/usr/share/zoneinfo): did you mean Asia/Tokyo?",
               [] { check_timezone("asia/tokio", "/usr/share/zoneinfo"); });
}

TEST(CheckTimezone, DidYouMeanTheNearestZone) {
  test::TempDir d;
  test::write_file(d.path / "Europe" / "Berlin", std::string("TZif2") + std::string(40, '\0'));
  test::write_file(d.path / "Europe" / "Berne", "# not a zone\n");  // 1 edit from Europe/Bern, but no TZif
  expect_error(ErrorKind::Usage, "did you mean Europe/Berlin? (zone names are case-sensitive)",
               [&] { check_timezone("EUROPE/BERLIN", d.path); });
  expect_error(ErrorKind::Usage, "): did you mean Europe/Berlin?", [&] { check_timezone("Europe/Bern", d.path); });
  try {
    check_timezone("Europe/Bern", d.path);
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).find("case-sensitive"), std::string::npos) << e.what();
  }
  expect_error(ErrorKind::Usage, "give a name as `timedatectl list-timezones` prints it, e.g. Europe/Berlin or UTC",
               [&] { check_timezone("Mars/Olympus", d.path); });  // nothing within 3 edits
}

// The tests below plan seeds and read the YAML back.
struct Plan : ::testing::Test {
  test::TempDir d;
  IdentityOptions o;
  void file(const std::string& name, const std::string& content) { test::write_file(d.path / name, content); }
  std::string path(const std::string& name) { return (d.path / name).string(); }
};

TEST_F(Plan, HostnamesUserKeysAndDhcpPerTarget) {
  PIPROV_REQUIRE_TOOL("ssh-keygen");
  auto key = make_key(d);
  o.hostnames = "node{1..2}";
  o.user = "admin";
  o.ssh_key_files = {key + ".pub"};
  o.timezone = "Europe/Berlin";
  auto plans = plan_seeds(o, {"/dev/loop1", "/dev/loop2"});
  ASSERT_EQ(plans.size(), 2u);
  std::set<std::string> ids;
  for (std::size_t i = 0; i < 2; ++i) {
    const auto& p = plans[i];
    std::string name = "node" + std::to_string(i + 1);
    EXPECT_EQ(p.hostname, name);
    EXPECT_EQ(p.user_data.rfind("#cloud-config\n", 0), 0u) << p.user_data;
    auto ud = YAML::Load(p.user_data);
    EXPECT_EQ(ud["hostname"].as<std::string>(), name);
    EXPECT_FALSE(ud["preserve_hostname"].as<bool>());
    EXPECT_EQ(ud["timezone"].as<std::string>(), "Europe/Berlin");
    EXPECT_FALSE(ud["ssh_pwauth"].as<bool>());
    auto u = ud["users"][0];
    EXPECT_EQ(u["name"].as<std::string>(), "admin");
    EXPECT_TRUE(u["lock_passwd"].as<bool>());
    EXPECT_FALSE(u["hashed_passwd"]);
    EXPECT_EQ(u["sudo"].as<std::string>(), "ALL=(ALL) NOPASSWD:ALL");
    EXPECT_EQ(u["ssh_authorized_keys"][0].as<std::string>() + "\n", test::read_file(key + ".pub"));
    auto md = YAML::Load(p.meta_data);
    EXPECT_EQ(md["instance-id"].as<std::string>(), p.instance_id);
    EXPECT_EQ(md["local-hostname"].as<std::string>(), name);
    EXPECT_EQ(p.instance_id.rfind("piprov-" + name + "-", 0), 0u) << p.instance_id;
    ids.insert(p.instance_id);
    auto nc = YAML::Load(p.network_config);
    EXPECT_EQ(nc["version"].as<int>(), 2);
    EXPECT_TRUE(nc["ethernets"]["eth0"]["dhcp4"].as<bool>());
    EXPECT_FALSE(nc["ethernets"]["eth0"]["addresses"]);
    EXPECT_FALSE(nc["wifis"]);
  }
  EXPECT_EQ(ids.size(), 2u);
  // A second plan of the same disks: new instance-ids (cloud-init runs again).
  EXPECT_NE(plan_seeds(o, {"/dev/loop1", "/dev/loop2"})[0].instance_id, plans[0].instance_id);
}

TEST_F(Plan, StaticAddressesGatewayDnsAndWifi) {
  o.hostnames = "a,b";
  o.ips = {"192.168.1.11/24,192.168.1.12/24"};
  o.gateway = "192.168.1.1";
  o.dns = {"1.1.1.1", "9.9.9.9"};
  o.wifi_ssid = "cluster net";
  file("psk", "correct horse battery\n");
  o.wifi_psk_file = path("psk");
  auto plans = plan_seeds(o, {"/dev/sdb", "/dev/sdc"});
  ASSERT_EQ(plans.size(), 2u);
  for (int i = 0; i < 2; ++i) {
    auto eth = YAML::Load(plans[i].network_config)["ethernets"]["eth0"];
    EXPECT_FALSE(eth["dhcp4"].as<bool>());
    EXPECT_EQ(eth["addresses"].size(), 1u);
    EXPECT_EQ(eth["addresses"][0].as<std::string>(), "192.168.1.1" + std::to_string(i + 1) + "/24");
    EXPECT_EQ(eth["routes"][0]["to"].as<std::string>(), "0.0.0.0/0");  // not "default" (cloud-init issue 3988)
    EXPECT_EQ(eth["routes"][0]["via"].as<std::string>(), "192.168.1.1");
    EXPECT_EQ(eth["nameservers"]["addresses"].as<std::vector<std::string>>(),
              (std::vector<std::string>{"1.1.1.1", "9.9.9.9"}));
    auto wlan = YAML::Load(plans[i].network_config)["wifis"]["wlan0"];
    EXPECT_EQ(wlan["access-points"]["cluster net"]["password"].as<std::string>(), "correct horse battery");
  }
  // No user: no users key; no keys: ssh_pwauth left alone.
  auto ud = YAML::Load(plans[0].user_data);
  EXPECT_FALSE(ud["users"]);
  EXPECT_FALSE(ud["ssh_pwauth"]);
}

TEST_F(Plan, NoHostnameGivenNoHostnameWritten) {
  o.timezone = "UTC";
  auto plans = plan_seeds(o, {"/dev/loop1", "/dev/loop2"});
  ASSERT_EQ(plans.size(), 2u);
  for (const auto& p : plans) {
    EXPECT_TRUE(p.hostname.empty());
    EXPECT_TRUE(std::regex_match(p.instance_id, std::regex("piprov-[0-9a-f]{12}"))) << p.instance_id;
    auto md = YAML::Load(p.meta_data);
    EXPECT_FALSE(md["local-hostname"]) << p.meta_data;
    EXPECT_EQ(YAML::Load(p.user_data)["hostname"].IsDefined(), false) << p.user_data;
  }
  EXPECT_NE(plans[0].instance_id, plans[1].instance_id);
}

TEST_F(Plan, NetworkOptionsAreCheckedBeforeAnything) {
  o.hostnames = "a,b";
  o.ips = {"192.168.1.11/24"};
  expect_error(ErrorKind::Usage, "--ip gives 1 address(es) for 2 target disk(s)", [&] { plan_seeds(o, {"x", "y"}); });
  o.ips = {"192.168.1.11/24", "192.168.1.11/24"};
  expect_error(ErrorKind::Usage, "192.168.1.11/24 is given twice", [&] { plan_seeds(o, {"x", "y"}); });
  o.ips = {"192.168.1.11/24", "192.168.1.12/24"};
  o.gateway = "fd00::1";
  expect_error(ErrorKind::Usage, "not of the same IP version", [&] { plan_seeds(o, {"x", "y"}); });
  o.gateway = "192.168.2.1";
  expect_error(ErrorKind::Usage, "--gateway 192.168.2.1 is not in the subnet of --ip 192.168.1.11/24", [&] {
    plan_seeds(o, {"x", "y"});
  });
  o.gateway = "fd00::1";
  o.ips.clear();
  expect_error(ErrorKind::Usage, "--gateway needs --ip", [&] { plan_seeds(o, {"x", "y"}); });
  o.gateway.clear();
  o.dns = {"10.0.0.1,,"};
  expect_error(ErrorKind::Usage, "--dns: '10.0.0.1,,' has an empty item", [&] { plan_seeds(o, {"x", "y"}); });
  o.dns = {"10.0.0.1", ""};
  expect_error(ErrorKind::Usage, "--dns: '' has an empty item", [&] { plan_seeds(o, {"x", "y"}); });
  o.dns.clear();
  o.ips = {"192.168.1.11/24,", "192.168.1.12/24"};
  expect_error(ErrorKind::Usage, "--ip: '192.168.1.11/24,' has an empty item", [&] { plan_seeds(o, {"x", "y"}); });
  o.ips.clear();
  // --wifi-ssid "" with a passphrase file: the SSID is empty, not "go together".
  o.wifi_ssid_given = true;
  o.wifi_psk_file = "psk";
  expect_error(ErrorKind::Usage, "--wifi-ssid: the SSID is empty: give the Wi-Fi network's name (1-32 bytes", [&] {
    plan_seeds(o, {"x", "y"});
  });
  o.wifi_psk_file.clear();
  o.wifi_ssid = "net";
  expect_error(ErrorKind::Usage, "--wifi-ssid and --wifi-psk-file go together", [&] { plan_seeds(o, {"x", "y"}); });
  file("psk", "short\n");
  o.wifi_psk_file = path("psk");
  expect_error(ErrorKind::Usage, "is not a WPA passphrase", [&] { plan_seeds(o, {"x", "y"}); });
  o = {};
  o.password_hash = "$6$x$y";
  expect_error(ErrorKind::Usage, "--password-hash needs --user", [&] { plan_seeds(o, {"x"}); });
  o.user = "root";
  expect_error(ErrorKind::Usage, "--user: 'root' is not a user name", [&] { plan_seeds(o, {"x"}); });
}

TEST_F(Plan, PasswordHashUnlocksTheUser) {
  o.user = "admin";
  o.password_hash = "$y$j9T$F5Jx5fExrKuPp53xLKQ..1$GmcwIgvdUC9qLWcKCi6gklUa1dM3ziD43YxYNURLKy0";
  auto u = YAML::Load(plan_seeds(o, {"x"})[0].user_data)["users"][0];
  EXPECT_FALSE(u["lock_passwd"].as<bool>());
  EXPECT_EQ(u["hashed_passwd"].as<std::string>(), o.password_hash);
  EXPECT_FALSE(YAML::Load(plan_seeds(o, {"x"})[0].meta_data)["local-hostname"]);
}

TEST_F(Plan, UserFilesAreTheBaseAndRefusedWhenInvalid) {
  file("ud", "#cloud-config\npackages: [htop]\nruncmd:\n  - [touch, /run/x]\n");
  file("md", "dsmode: local\ninstance-id: mine\n");
  file("nc", "network:\n  version: 2\n  ethernets:\n    eth0: {dhcp4: true}\n");
  o.hostnames = "n1";
  o.user_data_file = path("ud");
  o.meta_data_file = path("md");
  o.network_config_file = path("nc");
  auto p = plan_seeds(o, {"x"})[0];
  auto ud = YAML::Load(p.user_data);
  EXPECT_EQ(ud["packages"][0].as<std::string>(), "htop");
  EXPECT_EQ(ud["hostname"].as<std::string>(), "n1");
  auto md = YAML::Load(p.meta_data);
  EXPECT_EQ(md["dsmode"].as<std::string>(), "local");
  EXPECT_EQ(md["instance-id"].as<std::string>(), p.instance_id);  // unique per disk, not the file's
  EXPECT_EQ(p.network_config, test::read_file(path("nc")));

  auto refused = [&](const std::string& name, const std::string& content, const std::string& message) {
    file(name, content);
    try {
      plan_seeds(o, {"x"});
      ADD_FAILURE() << "not refused: " << content;
    } catch (const Error& e) {  // the seed check's findings, or an option clashing with the file
      EXPECT_EQ(e.kind(), ErrorKind::Usage);
      std::string all = e.what();
      for (const auto& f : e.findings()) all += "\n" + f.message;
      EXPECT_NE(all.find(message), std::string::npos) << all;
    }
    file(name, name == "ud" ? "#cloud-config\n" : name == "nc" ? "version: 2\n" : "");
  };
  refused("ud", "#!/bin/sh\necho hi\n", path("ud") + ": is a shell script ('#!/bin/sh'), not cloud-config");
  refused("ud", "hostname: a\n", path("ud") + ": does not start with '#cloud-config'");
  refused("ud", "#cloud-config\nusers: [\n",
          path("ud") + ": is not valid YAML: the flow sequence '[' that starts at line 2, column 8 is never closed");
  refused("ud", "#cloud-config\n- a\n- b\n", path("ud") + ": is not a YAML map");
  refused("ud", "#cloud-config\nhostname: other\n", "sets 'hostname' and so does --hostname");
  refused("nc", "ethernets: {}\n", path("nc") + ": has no 'version: 1' or 'version: 2'");
  refused("nc", "version: 2\n  bad: [indent\n", "is not valid YAML");
  refused("md", "[1, 2]\n", path("md") + ": is not a YAML map");
  o.ips = {"10.0.0.2/8"};
  expect_error(ErrorKind::Usage, "--network-config replaces the generated network config",
               [&] { plan_seeds(o, {"x"}); });
  o.ips.clear();
  o.user_data_file = path("absent");
  expect_error(ErrorKind::Usage,
               "--user-data " + path("absent") + " does not exist: give the path of the user-data file",
               [&] { plan_seeds(o, {"x"}); });
}

// YAML 1.1 (cloud-init's PyYAML) reads a plain `no` as false and 12345678 as a number: strings are quoted.
TEST_F(Plan, StringsThatLookLikeOtherTypesAreQuoted) {
  o.hostnames = "no";
  o.wifi_ssid = "on";
  file("psk", "12345678\n");
  o.wifi_psk_file = path("psk");
  auto p = plan_seeds(o, {"x"})[0];
  EXPECT_NE(p.user_data.find("hostname: \"no\"\n"), std::string::npos) << p.user_data;
  EXPECT_NE(p.meta_data.find("local-hostname: \"no\"\n"), std::string::npos) << p.meta_data;
  EXPECT_NE(p.network_config.find("\"on\":"), std::string::npos) << p.network_config;
  EXPECT_NE(p.network_config.find("password: \"12345678\""), std::string::npos) << p.network_config;
  EXPECT_NE(p.network_config.find("dhcp4: true"), std::string::npos) << p.network_config;  // bools stay bools
}

TEST(PlanSeeds, NothingWithoutOptions) { EXPECT_TRUE(plan_seeds({}, {"x", "y"}).empty()); }

TEST(CloudInitMissing, NeedsTheBinaryAndEtcCloud) {
  test::TempDir d;
  EXPECT_NE(cloud_init_missing(d.path).find("/usr/bin/cloud-init and /etc/cloud missing"), std::string::npos);
  test::write_file(d.path / "usr/bin/cloud-init", "#!/usr/bin/python3\n");
  EXPECT_NE(cloud_init_missing(d.path).find("(/etc/cloud missing)"), std::string::npos);
  std::filesystem::create_directories(d.path / "etc/cloud");
  EXPECT_EQ(cloud_init_missing(d.path), "");
}

TEST(WriteSeed, ThreeFilesWithTheirContent) {
  test::TempDir d;
  SeedPlan p{"/dev/x", "n1", "iid", "#cloud-config\nhostname: n1\n", "instance-id: iid\n", "version: 2\n"};
  EXPECT_EQ(write_seed(p, d.path), (std::vector<std::string>{"user-data", "network-config", "meta-data"}));
  EXPECT_EQ(test::read_file(d.path / "user-data"), p.user_data);
  EXPECT_EQ(test::read_file(d.path / "meta-data"), p.meta_data);
  EXPECT_EQ(test::read_file(d.path / "network-config"), p.network_config);
}

// The real validator accepts what the builder makes, with every option set.
TEST_F(Plan, CloudInitSchemaAcceptsTheUserData) {
  PIPROV_REQUIRE_TOOL("cloud-init");
  PIPROV_REQUIRE_TOOL("ssh-keygen");
  auto key = make_key(d);
  o.hostnames = "node1";
  o.user = "admin";
  o.ssh_key_files = {key + ".pub"};
  o.password_hash = "$y$j9T$F5Jx5fExrKuPp53xLKQ..1$GmcwIgvdUC9qLWcKCi6gklUa1dM3ziD43YxYNURLKy0";
  o.timezone = "Europe/Berlin";
  file("user-data", plan_seeds(o, {"x"})[0].user_data);
  auto r = run("cloud-init schema --config-file " + q(path("user-data")));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err << test::read_file(path("user-data"));
  file("bad", "#cloud-config\nusers: 5\n");  // the validator can fail
  EXPECT_NE(run("cloud-init schema --config-file " + q(path("bad"))).exit_code, 0);
}

// --wifi-country: an ISO 3166-1 alpha-2 code of the tz database's list (the real list on this
// machine), upper-cased; netplan's regulatory-domain in the seed; cfg80211.ieee80211_regdom in
// the cmdline files (first_boot.hpp).
TEST(WifiCountry, CheckedAgainstTheIso3166List) {
  const std::filesystem::path tab = "/usr/share/zoneinfo/iso3166.tab";
  if (!std::filesystem::exists(tab)) PIPROV_SKIP("tzdata's iso3166.tab is not installed here");
  EXPECT_EQ(check_wifi_country("gb", tab), "GB");
  EXPECT_EQ(check_wifi_country("DE", tab), "DE");
  expect_error(ErrorKind::Usage, "--wifi-country: 'XX' is not an ISO 3166-1 country code (not in " + tab.string(),
               [&] { check_wifi_country("XX", tab); });
  expect_error(ErrorKind::Usage, "--wifi-country: 'GBR' is not an ISO 3166-1 alpha-2 country code",
               [&] { check_wifi_country("GBR", tab); });
  expect_error(ErrorKind::Usage, "not an ISO 3166-1 alpha-2", [&] { check_wifi_country("00", tab); });
  // A list written here: what it lists decides.
  piprov::test::TempDir d;
  piprov::test::write_file(d.path / "iso3166.tab", "# comment\nAD\tAndorra\nZZ\tTest\n");
  EXPECT_EQ(check_wifi_country("zz", d.path / "iso3166.tab"), "ZZ");
  expect_error(ErrorKind::Usage, "is not an ISO 3166-1 country code",
               [&] { check_wifi_country("GB", d.path / "iso3166.tab"); });
  // Without the list only the shape is checked.
  EXPECT_EQ(check_wifi_country("qq", d.path / "none.tab"), "QQ");
}

TEST(WifiCountry, RegulatoryDomainInTheSeedAndTheCmdline) {
  piprov::test::TempDir d;
  piprov::test::write_file(d.path / "psk", "correct horse battery\n");
  IdentityOptions o;
  o.wifi_ssid = "lab";
  o.wifi_psk_file = (d.path / "psk").string();
  o.wifi_country = "de";
  // regulatory-domain only for an image whose netplan reads it (0.105 on, canonical/netplan PR #281).
  auto image = std::make_shared<ImageCloudInit>();
  image->image = "x.img";
  image->netplan_version = "1.0";
  auto p = plan_seeds(o, {"/dev/sdx"}, nullptr, image);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].wifi_country, "DE");
  EXPECT_EQ(YAML::Load(p[0].network_config)["wifis"]["wlan0"]["regulatory-domain"].as<std::string>(), "DE")
      << p[0].network_config;
  EXPECT_EQ(p[0].regdom_note, "");
  // The country alone (no Wi-Fi network) writes no seed: only the cmdline carries it.
  IdentityOptions only;
  only.wifi_country = "fr";
  EXPECT_TRUE(only.any());
  EXPECT_FALSE(only.seed_wanted());
  auto alone = plan_seeds(only, {"/dev/sdx"});
  ASSERT_EQ(alone.size(), 1u);
  EXPECT_EQ(alone[0].wifi_country, "FR");
  EXPECT_FALSE(alone[0].writes_files());
  EXPECT_EQ(alone[0].user_data + alone[0].network_config + alone[0].meta_data + alone[0].instance_id, "");

  // The cmdline files: the parameter appended once, kept on the first line, replaced when set.
  const auto boot = d.path / "boot";
  piprov::test::write_file(boot / "config.txt", "[all]\nkernel=vmlinuz\ncmdline=nobtcmd.txt\n");
  piprov::test::write_file(boot / "cmdline.txt", "console=tty1 root=LABEL=writable rootwait\n");
  piprov::test::write_file(boot / "nobtcmd.txt",
                           "console=tty1 root=LABEL=writable cfg80211.ieee80211_regdom=US rootwait\r\n");
  EXPECT_EQ(set_wifi_regdom(boot, "DE"), (std::vector<std::string>{"cmdline.txt", "nobtcmd.txt"}));
  EXPECT_EQ(piprov::test::read_file(boot / "cmdline.txt"),
            "console=tty1 root=LABEL=writable rootwait cfg80211.ieee80211_regdom=DE\n");
  EXPECT_EQ(piprov::test::read_file(boot / "nobtcmd.txt"),
            "console=tty1 root=LABEL=writable cfg80211.ieee80211_regdom=DE rootwait\r\n");
  EXPECT_TRUE(set_wifi_regdom(boot, "DE").empty());  // nothing changes twice
}

// Trial 3, finding 1: netplan before 0.105 refuses regulatory-domain (an unknown key), and with
// it the whole network-config: for such an image, or one that names no netplan, the generated
// wlan0 has no regulatory-domain and the plan says why; the cmdline carries the country.
TEST(WifiCountry, NoRegulatoryDomainForANetplanOlderThan0105) {
  piprov::test::TempDir d;
  piprov::test::write_file(d.path / "psk", "correct horse battery\n");
  IdentityOptions o;
  o.hostnames = "n1";
  o.wifi_ssid = "home";
  o.wifi_psk_file = (d.path / "psk").string();
  o.wifi_country = "DE";
  auto old = std::make_shared<ImageCloudInit>();
  old->image = "old.img";
  old->netplan_version = "0.99";
  for (const auto& image : {old, std::shared_ptr<ImageCloudInit>()}) {
    auto p = plan_seeds(o, {"/dev/sdx"}, nullptr, image);
    ASSERT_EQ(p.size(), 1u);
    const auto wlan = YAML::Load(p[0].network_config)["wifis"]["wlan0"];
    EXPECT_TRUE(wlan["access-points"]["home"]) << p[0].network_config;
    EXPECT_FALSE(wlan["regulatory-domain"]) << p[0].network_config;
    EXPECT_EQ(p[0].wifi_country, "DE");  // still set in the cmdline files
    EXPECT_NE(p[0].regdom_note.find(image ? "netplan 0.99, read from the image, refuses it"
                                          : "the image names no netplan version"),
              std::string::npos)
        << p[0].regdom_note;
    EXPECT_NE(p[0].regdom_note.find("cfg80211.ieee80211_regdom in the cmdline only"), std::string::npos);
  }
  old->netplan_version = "0.105";
  EXPECT_EQ(
      YAML::Load(plan_seeds(o, {"/dev/sdx"}, nullptr, old)[0].network_config)["wifis"]["wlan0"]["regulatory-domain"]
          .as<std::string>(),
      "DE");
}

// Trial 3, finding 11: an empty --wifi-country is refused (as an empty --wifi-ssid is), not
// dropped; UK and EL, which people write for GB and GR, get the code meant.
TEST(WifiCountry, EmptyIsRefusedAndUkSuggestsGb) {
  IdentityOptions o;
  o.hostnames = "n1";
  o.wifi_country_given = true;
  expect_error(ErrorKind::Usage, "--wifi-country: the country is empty: give the two-letter ISO 3166-1 code",
               [&] { plan_seeds(o, {"/dev/sdx"}); });
  IdentityOptions alone;
  alone.wifi_country_given = true;  // `--wifi-country ""` and nothing else
  EXPECT_TRUE(alone.any());
  expect_error(ErrorKind::Usage, "--wifi-country: the country is empty", [&] { plan_seeds(alone, {"/dev/sdx"}); });
  const std::filesystem::path tab = "/usr/share/zoneinfo/iso3166.tab";
  if (!std::filesystem::exists(tab)) PIPROV_SKIP("tzdata's iso3166.tab is not installed here");
  expect_error(ErrorKind::Usage,
               "--wifi-country: 'UK' is not an ISO 3166-1 country code (not in " + tab.string() + "): did you mean GB?",
               [&] { check_wifi_country("UK", tab); });
  expect_error(ErrorKind::Usage, "did you mean GR?", [&] { check_wifi_country("EL", tab); });
  expect_error(ErrorKind::Usage, "give the two-letter code of the country the Pi is in",
               [&] { check_wifi_country("XX", tab); });
}

// Trial 4, B9: seed check's --image names its option in its errors, as --user-data's do.
TEST(CheckSeedFiles, ImageErrorsNameTheOption) {
  test::TempDir d;
  test::write_file(d.path / "ud.yaml", "#cloud-config\nhostname: n1\n");
  IdentityOptions o;
  o.user_data_file = (d.path / "ud.yaml").string();
  expect_error(ErrorKind::Usage,
               "--image " + d.path.string() + " is not a regular file: give the path of the image file",
               [&] { check_seed_files(o, d.path.string()); });
  expect_error(ErrorKind::Usage, "--image " + (d.path / "none.img").string() + " does not exist",
               [&] { check_seed_files(o, (d.path / "none.img").string()); });
}

}  // namespace
}  // namespace piprov::provision
