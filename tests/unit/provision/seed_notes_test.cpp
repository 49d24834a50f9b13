// What provision says beside the seed (provision/seed_notes.hpp): the logins a user-data gives,
// the image's seed files a new seed replaces and the login it would lose (trial 3, finding 2).
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "provision/identity.hpp"
#include "provision/seed_notes.hpp"
#include "support/testsupport.hpp"

namespace piprov::provision {
namespace {

TEST(SeedLogin, WhatGivesALoginAsCloudInitAppliesIt) {
  PIPROV_REQUIRE_SHARED("cloud-init/01-ubuntu2404-pi-gadget-user-data", stock);
  // Ubuntu 24.04's own seed: chpasswd gives `ubuntu` its password.
  EXPECT_EQ(seed_login(test::read_file(stock)), "chpasswd: a password for ubuntu");
  EXPECT_EQ(seed_login("#cloud-config\nhostname: n1\npreserve_hostname: false\n"), "");
  EXPECT_EQ(seed_login("#cloud-config\n{}\n"), "");
  EXPECT_EQ(seed_login("#cloud-config\nssh_authorized_keys: [ssh-ed25519 AAAA a@b]\n"),
            "ssh_authorized_keys: for the default user");
  EXPECT_EQ(seed_login("#cloud-config\npassword: x\nchpasswd: {list: 'pi:raspberry'}\n"),
            "chpasswd.list: passwords; password: for the default user");
  // A users entry's password counts only when it is not locked (lock_passwd is true by default).
  EXPECT_EQ(seed_login("#cloud-config\nusers:\n- name: a\n  hashed_passwd: $6$x$y\n"), "");
  EXPECT_EQ(seed_login("#cloud-config\nusers:\n- name: a\n  hashed_passwd: $6$x$y\n  lock_passwd: false\n"),
            "users: a (password)");
  EXPECT_EQ(seed_login("#cloud-config\nusers:\n- default\n- name: b\n  ssh_authorized_keys: [ssh-ed25519 AAAA]\n"),
            "users: b (SSH keys)");
  EXPECT_EQ(seed_login("not: [yaml"), "");
  // Trial 4, B3: top-level keys and password go to the default user, which a users list without
  // `default` does not create (cloud-init docs, Users and Groups; cc_ssh apply_credentials).
  EXPECT_EQ(seed_login("#cloud-config\nusers:\n- name: bob\n  lock_passwd: true\nssh_authorized_keys: [ssh-ed25519 "
                       "AAAA]\n"),
            "");
  EXPECT_EQ(seed_login("#cloud-config\nusers: [default, {name: bob}]\nssh_authorized_keys: [ssh-ed25519 AAAA]\n"),
            "ssh_authorized_keys: for the default user");
  EXPECT_EQ(seed_login("#cloud-config\nusers: 'bob, default'\npassword: x\n"), "password: for the default user");
  EXPECT_EQ(seed_login("#cloud-config\nusers: {bob: {}}\npassword: x\n"), "");
}

// Trial 4, B3: --user-data with a users list without `default` plus --ssh-key: the keys go to no
// one, so a warning even when the image had no seed; its fix edits the users list, since --user
// next to a user-data that sets users is refused.
TEST(SeedReplacement, KeysForADefaultUserThatIsNotCreatedWarn) {
  test::TempDir d;
  test::write_file(d.path / "ud.yaml", "#cloud-config\nusers:\n  - name: bob\n    lock_passwd: true\n");
  test::write_file(d.path / "id.pub",
                   "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl a@b\n");
  IdentityOptions o;
  o.hostnames = "n1";
  o.user_data_file = (d.path / "ud.yaml").string();
  o.ssh_key_files = {(d.path / "id.pub").string()};
  auto r = seed_replacement(d.path / "empty", plan_seeds(o, {"/dev/sdx"})[0]);
  EXPECT_TRUE(r.replaced.empty());
  EXPECT_NE(r.login_warning.find("users list has no 'default', so cloud-init creates no default user and its "
                                 "top-level ssh_authorized_keys"),
            std::string::npos)
      << r.login_warning;
  EXPECT_NE(r.login_warning.find("add '- default' to the user-data's users list"), std::string::npos)
      << r.login_warning;
  EXPECT_NE(r.login_warning.find("or give 'bob' ssh_authorized_keys"), std::string::npos) << r.login_warning;
  EXPECT_EQ(r.login_warning.find("--user NAME"), std::string::npos) << r.login_warning;
  // The image's login lost to that user-data (no --ssh-key): the fix edits the users list too.
  PIPROV_REQUIRE_SHARED("cloud-init/01-ubuntu2404-pi-gadget-user-data", stock);
  test::write_file(d.path / "boot" / "user-data", test::read_file(stock));
  o.ssh_key_files.clear();
  r = seed_replacement(d.path / "boot", plan_seeds(o, {"/dev/sdx"})[0]);
  EXPECT_NE(r.login_warning.find("the image's user-data gave a way to log in"), std::string::npos) << r.login_warning;
  EXPECT_NE(r.login_warning.find("add '- default' to the user-data's users list"), std::string::npos)
      << r.login_warning;
  EXPECT_EQ(r.login_warning.find("--user NAME"), std::string::npos) << r.login_warning;
  // With `- default` in the list the keys give a login: no warning.
  test::write_file(d.path / "ud.yaml", "#cloud-config\nusers:\n  - default\n  - name: bob\n");
  o.ssh_key_files = {(d.path / "id.pub").string()};
  EXPECT_EQ(seed_replacement(d.path / "boot", plan_seeds(o, {"/dev/sdx"})[0]).login_warning, "");
}

// Trial 7, finding 8: --user bob with neither --ssh-key nor --password-hash writes a users list
// without `default` whose only entry is locked and has no key: no login, so a warning (the rule for
// a --user-data users list), whose fix names the options; one key or an unlocked password: none.
TEST(SeedReplacement, UserWithoutKeyOrPasswordWarns) {
  test::TempDir d;
  IdentityOptions o;
  o.hostnames = "n1";
  o.user = "bob";
  auto plan = plan_seeds(o, {"/dev/sdx"})[0];
  ASSERT_NE(plan.user_data.find("lock_passwd: true"), std::string::npos) << plan.user_data;
  auto r = seed_replacement(d.path / "empty", plan);
  EXPECT_EQ(r.login_warning,
            "the user-data's users list has no 'default' and gives 'bob' no SSH key and no password (cloud-init "
            "locks a user's password unless lock_passwd: false; cloud-init docs, Users and Groups): the node will "
            "have no console or SSH login; add --ssh-key FILE or --password-hash HASH");
  EXPECT_EQ(seed_replacement_text(r).rfind("WARNING: the user-data's users list has no 'default'", 0), 0u);
  // The same list from --user-data: the fix edits that list.
  test::write_file(d.path / "ud.yaml", "#cloud-config\nusers:\n  - name: carol\n    lock_passwd: true\n");
  IdentityOptions f;
  f.hostnames = "n1";
  f.user_data_file = (d.path / "ud.yaml").string();
  r = seed_replacement(d.path / "empty", plan_seeds(f, {"/dev/sdx"})[0]);
  EXPECT_NE(r.login_warning.find("gives 'carol' no SSH key and no password"), std::string::npos) << r.login_warning;
  EXPECT_NE(r.login_warning.find("add '- default' to the user-data's users list"), std::string::npos)
      << r.login_warning;
  // A key, or a password hash (lock_passwd: false), gives bob a login: no warning.
  test::write_file(d.path / "id.pub",
                   "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl a@b\n");
  IdentityOptions k = o;
  k.ssh_key_files = {(d.path / "id.pub").string()};
  EXPECT_EQ(seed_replacement(d.path / "empty", plan_seeds(k, {"/dev/sdx"})[0]).login_warning, "");
  IdentityOptions p = o;
  p.password_hash = "$y$j9T$F5Jx5fExrKuPp53xLKQ..1$GmcwIgvdUC9qLWcKCi6gklUa1dM3ziD43YxYNURLKy0";
  EXPECT_EQ(seed_replacement(d.path / "empty", plan_seeds(p, {"/dev/sdx"})[0]).login_warning, "");
  // No --user: no users list, the image's default user: not this warning.
  IdentityOptions none;
  none.hostnames = "n1";
  EXPECT_EQ(seed_replacement(d.path / "empty", plan_seeds(none, {"/dev/sdx"})[0]).login_warning, "");
}

TEST(SeedReplacement, NamesTheReplacedFilesAndALostLogin) {
  PIPROV_REQUIRE_SHARED("cloud-init/01-ubuntu2404-pi-gadget-user-data", stock);
  test::TempDir d;
  const auto boot = d.path / "boot";
  test::write_file(boot / "user-data", test::read_file(stock));
  test::write_file(boot / "meta-data", "instance-id: ubuntu\n");
  IdentityOptions o;
  o.hostnames = "n1";
  auto plan = plan_seeds(o, {"/dev/sdx"})[0];
  auto r = seed_replacement(boot, plan);
  EXPECT_EQ(r.replaced, (std::vector<std::string>{"user-data", "meta-data"}));
  EXPECT_EQ(r.image_login, "chpasswd: a password for ubuntu");
  EXPECT_NE(r.login_warning.find("the image's user-data gave a way to log in (chpasswd: a password for ubuntu) and "
                                 "the new seed gives none: the node will have no console or SSH login"),
            std::string::npos)
      << r.login_warning;
  EXPECT_EQ(seed_replacement_text(r).rfind("replaces the image's user-data, meta-data; WARNING: ", 0), 0u)
      << seed_replacement_text(r);
  // A seed that gives a login of its own: replaced, no warning.
  test::write_file(d.path / "id.pub",
                   "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl a@b\n");
  o.user = "admin";
  o.ssh_key_files = {(d.path / "id.pub").string()};
  r = seed_replacement(boot, plan_seeds(o, {"/dev/sdx"})[0]);
  EXPECT_EQ(r.replaced.size(), 2u);
  EXPECT_EQ(r.login_warning, "");
  // --wifi-country alone writes no seed: nothing is replaced.
  IdentityOptions country;
  country.wifi_country = "DE";
  EXPECT_TRUE(seed_replacement(boot, plan_seeds(country, {"/dev/sdx"})[0]).replaced.empty());
  // An image without a seed: nothing replaced, nothing lost.
  EXPECT_TRUE(seed_replacement(d.path / "empty", plan).replaced.empty());
}

// Trial 4, B5: --wifi-country next to a network-config whose wlan0 names another regulatory-domain
// is refused like a key set twice (netplan 0.105+ sets its own at boot: canonical/netplan PR #281);
// one without regulatory-domain gets the note that only the cmdline carries the country.
TEST(WifiCountry, WithTheUsersNetworkConfig) {
  const std::string gb =
      "version: 2\nwifis:\n  wlan0:\n    dhcp4: true\n    regulatory-domain: \"GB\"\n    access-points:\n"
      "      home:\n        password: \"secretpass123\"\n";
  test::expect_error(ErrorKind::Usage,
                     "nk11.yaml sets wifis.wlan0.regulatory-domain 'GB' and --wifi-country sets DE: keep one of them",
                     [&] { wifi_country_with_network_config(gb, "nk11.yaml", "DE"); });
  EXPECT_EQ(wifi_country_with_network_config(gb, "nk11.yaml", "GB"), "");
  const std::string none =
      "network:\n  version: 2\n  wifis:\n    wlan0:\n      dhcp4: true\n      access-points:\n        home:\n"
      "          password: \"secretpass123\"\n";
  EXPECT_EQ(wifi_country_with_network_config(none, "nk13.yaml", "DE"),
            "network-config (nk13.yaml) has no regulatory-domain for wlan0: the country DE is set by "
            "cfg80211.ieee80211_regdom=DE in the cmdline only");
  EXPECT_EQ(wifi_country_with_network_config("version: 2\nethernets: {eth0: {dhcp4: true}}\n", "e.yaml", "DE"), "");
  // Through provision's plan: refused before anything is built; the note in the plan.
  test::TempDir d;
  test::write_file(d.path / "nk11.yaml", gb);
  test::write_file(d.path / "nk13.yaml", none);
  IdentityOptions o;
  o.hostnames = "n1";
  o.wifi_country = "DE";
  o.network_config_file = (d.path / "nk11.yaml").string();
  test::expect_error(ErrorKind::Usage, "and --wifi-country sets DE: keep one of them",
                     [&] { plan_seeds(o, {"/dev/sdx"}); });
  o.network_config_file = (d.path / "nk13.yaml").string();
  EXPECT_NE(plan_seeds(o, {"/dev/sdx"})[0].regdom_note.find("has no regulatory-domain for wlan0: the country DE"),
            std::string::npos);
}

}  // namespace
}  // namespace piprov::provision
