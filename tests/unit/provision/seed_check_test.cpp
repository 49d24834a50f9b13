// The seed check (provision/seed/seed_check.hpp) on the public seed files in
// ../shared/data/cloud-init (verdicts: ../shared/data/README.md), against
// cloud-init's own validator, and rule by rule.
#include <gtest/gtest.h>

#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <memory>
#include <tuple>

#include "core/error.hpp"
#include "provision/identity.hpp"
#include "provision/seed/seed_check.hpp"
#include "provision/seed/seed_check_detail.hpp"
#include "provision/seed/yaml_json.hpp"
#include "support/testsupport.hpp"

namespace piprov::provision {
namespace {

using test::q;
using test::run;

const char* const kSchema = "/usr/lib/python3/dist-packages/cloudinit/config/schemas/schema-cloud-config-v1.json";

SeedCheckOptions full() { return {.schema_path = kSchema}; }
SeedCheckOptions partial() { return {.schema_path = "none"}; }

std::string dump(const SeedCheck& c) { return findings_text(c.findings); }

/// The one finding of `rule` at `line` (test fails when there is not exactly one).
const Finding* find(const SeedCheck& c, const std::string& rule, int line) {
  const Finding* hit = nullptr;
  int n = 0;
  for (const auto& f : c.findings)
    if (f.rule == rule && f.line == line) hit = &f, ++n;
  EXPECT_EQ(n, 1) << rule << " at line " << line << " in:\n" << dump(c);
  return n == 1 ? hit : nullptr;
}

int errors(const SeedCheck& c) { return count_findings(c.findings).errors; }

std::string shared_text(const std::filesystem::path& p) { return test::read_file(p); }

#define REQUIRE_SCHEMA()                                                                             \
  do {                                                                                               \
    if (!std::filesystem::exists(kSchema)) PIPROV_SKIP("cloud-init's schema is not installed here"); \
  } while (0)

TEST(SeedCheckShared, UbuntuUserDataIsValidButWarnsOfItsClearTextPassword) {
  REQUIRE_SCHEMA();
  PIPROV_REQUIRE_SHARED("cloud-init/01-ubuntu2404-pi-gadget-user-data", f);
  for (const auto& o : {full(), partial()}) {
    auto c = check_user_data(shared_text(f), "01", o);
    EXPECT_EQ(errors(c), 0) << dump(c);
    const Finding* w = find(c, "seed-clear-text-password", 26);
    ASSERT_TRUE(w);
    EXPECT_EQ(w->severity, Severity::Warning);
    EXPECT_EQ(w->key, "chpasswd.users.0.password");
    EXPECT_NE(w->message.find("FAT"), std::string::npos) << w->message;
    EXPECT_NE(w->fix.find("--password-hash"), std::string::npos) << w->fix;
  }
}

// An unknown top-level key is seed-unknown-key whatever the schema: 22.4.2's top level is open,
// 24.1's, 25.2's and 26.2's closed (additionalProperties false); a nested unknown key stays the
// schema's error.
TEST(SeedCheckShared, UnknownTopLevelKeyIsOneRuleUnderEverySchema) {
  for (const char* v : {"22.4.2", "24.1", "25.2", "26.2"}) {
    const std::string rel = std::string("cloud-init-schemas/schema-cloud-config-v1-") + v + ".json";
    PIPROV_REQUIRE_SHARED(rel, schema);
    auto c = check_user_data("#cloud-config\nenable_ssh: true\n", "u", {.schema_path = schema.string()});
    const Finding* u = find(c, "seed-unknown-key", 2);
    ASSERT_TRUE(u) << v;
    EXPECT_EQ(u->key, "enable_ssh") << v;
    EXPECT_EQ(u->severity, Severity::Error) << v;
    for (const auto& f : c.findings) EXPECT_NE(f.rule, "seed-schema-error") << v << dump(c);
    auto nested =
        check_user_data("#cloud-config\nusers:\n- name: a\n  bogus_key: 1\n", "u", {.schema_path = schema.string()});
    for (const auto& f : nested.findings) EXPECT_NE(f.rule, "seed-unknown-key") << v << dump(nested);
  }
}

TEST(SeedCheckShared, UbuntuNetworkConfigHasNoFinding) {
  PIPROV_REQUIRE_SHARED("cloud-init/02-ubuntu2404-pi-gadget-network-config", f);
  auto c = check_network_config(shared_text(f), "02");
  EXPECT_TRUE(c.findings.empty()) << dump(c);
}

TEST(SeedCheckShared, MetaDataWithInstanceIdUnderscoreIsIgnoredByCloudInit) {
  PIPROV_REQUIRE_SHARED("cloud-init/03-ubuntu2404-pi-gadget-meta-data", f);
  auto c = check_meta_data(shared_text(f), "03");
  ASSERT_EQ(c.findings.size(), 1u) << dump(c);
  const Finding* w = find(c, "seed-meta-data-key-ignored", 18);
  ASSERT_TRUE(w);
  EXPECT_EQ(w->severity, Severity::Warning);
  EXPECT_EQ(w->key, "instance_id");
  EXPECT_NE(w->message.find("'instance-id'"), std::string::npos) << w->message;
  EXPECT_EQ(w->fix, "delete line 18");
}

TEST(SeedCheckShared, AllCommentedUserDataSetsNothing) {
  PIPROV_REQUIRE_SHARED("cloud-init/04-pigen-trixie-user-data-all-commented", f);
  auto alone = check_user_data(shared_text(f), "04", full());
  const Finding* e = find(alone, "seed-user-data-empty", 1);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->severity, Severity::Error);
  EXPECT_EQ(e->message,
            "04: holds only comments and blank lines (every key commented out): cloud-init ignores an empty "
            "user-data, nothing from it is applied");
  auto with_options = check_user_data(shared_text(f), "04", {.schema_path = kSchema, .options_add_user_data = true});
  EXPECT_EQ(errors(with_options), 0) << dump(with_options);
  ASSERT_TRUE(find(with_options, "seed-user-data-empty", 1));
}

TEST(SeedCheckShared, TemplateNetworkConfigIsNotYamlAndHoldsMarkers) {
  PIPROV_REQUIRE_SHARED("cloud-init/05-template-network-config-invalid-yaml", f);
  auto c = check_network_config(shared_text(f), "05");
  const Finding* y = find(c, "seed-yaml-invalid", 19);
  ASSERT_TRUE(y);
  EXPECT_EQ(y->key, "addresses");
  EXPECT_EQ(y->severity, Severity::Error);
  std::vector<int> lines;
  for (const auto& m : c.findings)
    if (m.rule == "seed-template-marker") lines.push_back(m.line);
  EXPECT_EQ(lines, (std::vector<int>{19, 20, 22, 24, 25})) << dump(c);
  EXPECT_EQ(find(c, "seed-template-marker", 24)->key, "${WIFI_SSID}");
  EXPECT_NE(find(c, "seed-template-marker", 19)->message.find("'${STATIC_IP}'"), std::string::npos);
}

TEST(SeedCheckShared, UserDataWithoutHeaderIsNotCloudConfig) {
  PIPROV_REQUIRE_SHARED("cloud-init/06-user-data-no-header", f);
  auto c = check_user_data(shared_text(f), "06", full());
  const Finding* e = find(c, "seed-not-cloud-config", 1);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->severity, Severity::Error);
  EXPECT_EQ(e->fix, "put '#cloud-config' on its first line");
}

TEST(SeedCheckShared, PlainTextPasswordTypoIsASchemaErrorWithAndWithoutTheSchema) {
  PIPROV_REQUIRE_SHARED("cloud-init/07-user-data-plain-text-password-typo", f);
  std::vector<SeedCheckOptions> modes = {partial()};
  if (std::filesystem::exists(kSchema)) modes.push_back(full());
  for (const auto& o : modes) {
    auto c = check_user_data(shared_text(f), "07", o);
    EXPECT_EQ(c.partial, o.schema_path == "none");
    const Finding* e = find(c, "seed-schema-error", 4);
    ASSERT_TRUE(e) << o.schema_path;
    EXPECT_EQ(e->severity, Severity::Error);
    EXPECT_EQ(e->key, "users.0.plain_text_password");
    EXPECT_NE(e->fix.find("did you mean 'plain_text_passwd'?"), std::string::npos) << e->fix;
    EXPECT_NE(e->fix.find("--password-hash"), std::string::npos) << e->fix;
    EXPECT_EQ(errors(c), 1) << dump(c);
  }
}

TEST(SeedCheckShared, WifiPlaceholdersAreRefusedAndDefaultRouteWarned) {
  PIPROV_REQUIRE_SHARED("cloud-init/08-network-config-wifi-placeholders", f);
  auto c = check_network_config(shared_text(f), "08");
  const Finding* ssid = find(c, "seed-template-marker", 16);
  const Finding* pw = find(c, "seed-template-marker", 17);
  ASSERT_TRUE(ssid && pw);
  EXPECT_EQ(ssid->key, "wifis.wlan0.access-points.<SSID_NAME>");
  EXPECT_EQ(pw->key, "wifis.wlan0.access-points.<SSID_NAME>.password");
  EXPECT_NE(pw->message.find("'<SSID_PASSWD>'"), std::string::npos);
  const Finding* route = find(c, "seed-network-route-default", 21);
  ASSERT_TRUE(route);
  EXPECT_EQ(route->severity, Severity::Warning);
  EXPECT_EQ(route->key, "wifis.wlan0.routes.0.to");
  EXPECT_NE(route->fix.find("0.0.0.0/0"), std::string::npos);
  EXPECT_EQ(errors(c), 2) << dump(c);
}

// piprov refuses a user-data file exactly when `cloud-init schema` does.
TEST(SeedCheckShared, AgreesWithCloudInitSchemaOnEveryUserDataFile) {
  PIPROV_REQUIRE_TOOL("cloud-init");
  REQUIRE_SCHEMA();
  int compared = 0;
  for (const char* name : {"01-ubuntu2404-pi-gadget-user-data", "04-pigen-trixie-user-data-all-commented",
                           "06-user-data-no-header", "07-user-data-plain-text-password-typo"}) {
    PIPROV_REQUIRE_SHARED(std::string("cloud-init/") + name, f);
    auto r = run("cloud-init schema --config-file " + q(f.string()));
    auto c = check_user_data(shared_text(f), name, full());
    EXPECT_EQ(c.refused(), r.exit_code != 0) << name << ": cloud-init says " << r.out << r.err << "piprov:\n"
                                             << dump(c);
    ++compared;
  }
  EXPECT_EQ(compared, 4);
}

TEST(SeedCheck, YamlOneOneScalarsAsCloudInitReadsThem) {
  EXPECT_EQ(yaml11_scalar("0644", "?"), 420);
  EXPECT_EQ(yaml11_scalar("0644", "!"), "0644");
  EXPECT_EQ(yaml11_scalar("yes", "?"), true);
  EXPECT_EQ(yaml11_scalar("Off", "?"), false);
  EXPECT_EQ(yaml11_scalar("y", "?"), "y");  // PyYAML has no y/n booleans
  EXPECT_EQ(yaml11_scalar("true", "!"), "true");
  EXPECT_EQ(yaml11_scalar("~", "?"), nullptr);
  EXPECT_EQ(yaml11_scalar("0x1F", "?"), 31);
  EXPECT_EQ(yaml11_scalar("1:30", "?"), 90);  // sexagesimal
  EXPECT_EQ(yaml11_scalar("1_000", "?"), 1000);
  EXPECT_EQ(yaml11_scalar("1.5", "?"), 1.5);
  bool date = false;
  EXPECT_EQ(yaml11_scalar("2030-01-01", "?", &date), "2030-01-01");
  EXPECT_TRUE(date);
  EXPECT_EQ(yaml11_scalar("192.168.1.1", "?", &date), "192.168.1.1");
  EXPECT_FALSE(date);
}

TEST(SeedCheck, SchemaErrorsOfTypesLikeCloudInit) {
  REQUIRE_SCHEMA();
  auto perm =
      check_user_data("#cloud-config\nwrite_files:\n- path: /x\n  content: hi\n  permissions: 0644\n", "u", full());
  const Finding* e = find(perm, "seed-schema-error", 5);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->key, "write_files.0.permissions");
  auto quoted = check_user_data("#cloud-config\nwrite_files:\n- path: /x\n  permissions: '0644'\n", "u", full());
  EXPECT_EQ(errors(quoted), 0) << dump(quoted);
  auto expire = check_user_data("#cloud-config\nchpasswd:\n  expire: \"true\"\n", "u", full());
  EXPECT_EQ(find(expire, "seed-schema-error", 3)->key, "chpasswd.expire");
  EXPECT_EQ(errors(check_user_data("#cloud-config\nssh_pwauth: yes\n", "u", full())), 0);
  auto runcmd = check_user_data("#cloud-config\nruncmd: foo\n", "u", full());
  EXPECT_EQ(find(runcmd, "seed-schema-error", 2)->key, "runcmd");
  auto date = check_user_data("#cloud-config\nusers:\n- name: a\n  expiredate: 2030-01-01\n", "u", full());
  EXPECT_EQ(find(date, "seed-yaml-date", 4)->key, "users.0.expiredate");
  auto unknown = check_user_data("#cloud-config\nenable_ssh: true\n", "u", full());
  const Finding* u = find(unknown, "seed-unknown-key", 2);
  ASSERT_TRUE(u);
  EXPECT_EQ(u->severity, Severity::Error);
  EXPECT_EQ(u->key, "enable_ssh");
  auto bad_yaml = check_user_data("#cloud-config\nusers: [\n", "u", full());
  EXPECT_EQ(find(bad_yaml, "seed-yaml-invalid", 2)->severity, Severity::Error);  // where the '[' is
  auto list = check_user_data("#cloud-config\n- a\n", "u", full());
  ASSERT_TRUE(find(list, "seed-not-a-map", 2));
}

// seed_load_map(), the step user-data and meta-data share: the map as JSON with its YAML notes, or
// nothing and why (seed-not-a-map in the file's own words, at the document's line; empty: no finding).
TEST(SeedLoadMap, GivesTheMapOrSaysWhyNot) {
  const SeedNotAMap words{"is not a map", "make it one", "src"};
  Findings out;
  bool empty = true;
  auto doc = seed_load_map("a: 1\nb: x\na: 2\n", "f", words, out, empty);
  ASSERT_TRUE(doc);
  EXPECT_FALSE(empty);
  EXPECT_EQ(doc->value, nlohmann::json::parse(R"({"a": 2, "b": "x"})"));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].rule, "seed-yaml-duplicate-key");
  out.clear();
  EXPECT_FALSE(seed_load_map("# only\n---\n", "f", words, out, empty));
  EXPECT_TRUE(empty);
  EXPECT_TRUE(out.empty());
  EXPECT_FALSE(seed_load_map("# c\n- a\n", "f", words, out, empty));
  EXPECT_FALSE(empty);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].rule, "seed-not-a-map");
  EXPECT_EQ(out[0].line, 2);
  EXPECT_EQ(out[0].message, "f: is not a map");
  EXPECT_EQ(out[0].fix, "make it one");
  EXPECT_EQ(out[0].source, "src");
  out.clear();
  EXPECT_FALSE(seed_load_map("a: [\n", "f", words, out, empty));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].rule, "seed-yaml-invalid");
  // As the two checks use it: an empty user-data is said so, an empty meta-data is fine.
  auto user = check_user_data("#cloud-config\n---\n", "u", partial());
  EXPECT_NE(find(user, "seed-user-data-empty", 1), nullptr);
  EXPECT_TRUE(check_meta_data("---\n", "m").findings.empty()) << dump(check_meta_data("---\n", "m"));
  auto meta = check_meta_data("- a\n", "m");
  const Finding* f = find(meta, "seed-not-a-map", 1);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->message, "m: is not a YAML map of keys (cloud-init's NoCloud reads one)");
}

TEST(SeedCheck, DeprecatedKeysAreWarnings) {
  REQUIRE_SCHEMA();
  auto c = check_user_data(
      "#cloud-config\napt_update: true\nusers:\n- name: a\n  lock-passwd: false\n  sudo: false\nchpasswd:\n  "
      "list: |\n    a:$6$x$y\n",
      "u", full());
  EXPECT_EQ(errors(c), 0) << dump(c);
  EXPECT_NE(find(c, "seed-deprecated-key", 2)->message.find("Use ``package_update``"), std::string::npos);
  EXPECT_EQ(find(c, "seed-deprecated-key", 5)->key, "users.0.lock-passwd");
  EXPECT_EQ(find(c, "seed-deprecated-key", 8)->key, "chpasswd.list");
  EXPECT_EQ(count_findings(c.findings).warnings, 3) << dump(c);
  // Two equal keys: PyYAML keeps the last.
  auto dup = check_user_data("#cloud-config\nhostname: a\nhostname: b\n", "u", full());
  EXPECT_EQ(find(dup, "seed-yaml-duplicate-key", 3)->key, "hostname");
}

TEST(SeedCheck, PartialModeSaysWhichRulesRan) {
  auto c = check_user_data("#cloud-config\nenable_ssh: true\n", "u", partial());
  EXPECT_TRUE(c.partial);
  EXPECT_EQ(c.validator, "piprov's own rules");
  const Finding* p = find(c, "seed-check-partial", 0);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->severity, Severity::Warning);
  EXPECT_NE(p->message.find("PIPROV_CLOUD_INIT_SCHEMA=none"), std::string::npos) << p->message;
  EXPECT_NE(p->message.find("the keys of users[] and chpasswd entries"), std::string::npos);
  EXPECT_EQ(errors(c), 0) << dump(c);  // top-level keys need the schema
  EXPECT_EQ(std::count(c.rules.begin(), c.rules.end(), "seed-unknown-key"), 0);
  auto missing = check_user_data("#cloud-config\n", "u", {.schema_path = "/nonexistent/schema.json"});
  EXPECT_TRUE(missing.partial);
  EXPECT_NE(find(missing, "seed-check-partial", 0)->message.find("not installed here (looked for /nonexistent"),
            std::string::npos);
}

TEST(SeedCheck, PartialModeByEnvironment) {
  ::setenv("PIPROV_CLOUD_INIT_SCHEMA", "none", 1);
  auto c = check_user_data("#cloud-config\n", "u", {});
  ::unsetenv("PIPROV_CLOUD_INIT_SCHEMA");
  EXPECT_TRUE(c.partial);
}

TEST(SeedCheck, TemplateMarkersFireAndDoNotFire) {
  for (const char* yes : {"${ADMIN_USER}", "x ${STATIC_IP}/24", "${VAR:-x}", "{{ hostname }}", "{{v1.local_hostname}}",
                          "<SSID_NAME>", "<your password>", "<hostname>", "key <SSH_PUBLIC_KEY> here", "%{ if x }"})
    EXPECT_NE(template_marker(yes), "") << yes;
  for (const char* no :
       {"$6$rounds=4096$salt$hash", "$y$j9T$abc$def", "$5$hkui88$nvZgIle31cNpryjRfO9uArF7DYiBcWEnjqq7L1AQNN3",
        "$(date)", "$HOME", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKx john <john@host>", "a < b", "plain",
        "<VirtualHost *:80>"})
    EXPECT_EQ(template_marker(no), "") << no;
  // Shell and file text is skipped: ${HOME} in runcmd, <HTML> in write_files content; comments are never scanned.
  auto c = check_user_data(
      "#cloud-config\n# <SOME_VALUE> here\nruncmd:\n- echo ${HOME}\nwrite_files:\n- path: /x\n  content: "
      "\"<HTML> {{ x }}\"\nhostname: ${HOST}\n",
      "u", partial());
  const Finding* m = find(c, "seed-template-marker", 8);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->key, "hostname");
  EXPECT_EQ(errors(c), 1) << dump(c);
}

TEST(SeedCheck, ClearTextPasswordsOfEveryForm) {
  auto c = check_user_data(
      "#cloud-config\npassword: hunter22\nchpasswd:\n  list: |\n    pi:raspberry\n    ops:$6$x$y\nusers:\n- name: "
      "a\n  plain_text_passwd: secret\n- name: b\n  hashed_passwd: $6$abc$def\n",
      "u", partial());
  EXPECT_TRUE(find(c, "seed-clear-text-password", 2));
  EXPECT_TRUE(find(c, "seed-clear-text-password", 4));
  EXPECT_EQ(find(c, "seed-clear-text-password", 9)->key, "users.0.plain_text_passwd");
  EXPECT_EQ(count_findings(c.findings).warnings, 4) << dump(c);  // + seed-check-partial
}

TEST(SeedCheck, NetworkConfigRules) {
  auto one = [](const std::string& yaml, const std::string& rule, int line, Severity sev = Severity::Error) {
    auto c = check_network_config(yaml, "nc");
    const Finding* f = find(c, rule, line);
    EXPECT_NE(f, nullptr) << rule << " at line " << line << " expected for:\n" << yaml << dump(c);
    if (f) {
      EXPECT_EQ(f->severity, sev) << yaml << dump(c);
    }
    return f ? f->message : std::string();
  };
  std::string eth = "version: 2\nethernets:\n  eth0:\n";
  EXPECT_NE(one(eth + "    addresses: [192.168.1.11]\n", "seed-network-address", 4).find("missing /prefixlength"),
            std::string::npos);
  EXPECT_NE(one(eth + "    addresses: [192.168.1.3/33]\n", "seed-network-address", 4).find("invalid prefix length"),
            std::string::npos);
  EXPECT_NE(one(eth + "    addresses: [192.168.1.3/0]\n", "seed-network-address", 4).find("invalid prefix length"),
            std::string::npos);
  EXPECT_NE(one(eth + "    addresses: [192.168.1.300/24]\n", "seed-network-address", 4).find("malformed address"),
            std::string::npos);
  EXPECT_NE(one(eth + "    routes:\n    - via: 192.168.1.1\n", "seed-network-route", 5).find("without 'to'"),
            std::string::npos);
  EXPECT_NE(one(eth + "    routes:\n    - {to: 10.0.0.0/8, via: \"fd00::1\"}\n", "seed-network-route", 5)
                .find("IP family mismatch"),
            std::string::npos);
  one(eth + "    routes:\n    - {to: 10.0.0.1, via: 10.0.0.254}\n", "seed-network-route", 5, Severity::Warning);
  one(eth + "    routes:\n    - {to: default, via: 10.0.0.254}\n", "seed-network-route-default", 5, Severity::Warning);
  EXPECT_NE(one(eth + "    nameservers:\n      addresses: [dns.example]\n", "seed-network-nameserver", 5)
                .find("malformed address 'dns.example'"),
            std::string::npos);
  one(eth + "    dhcp4: maybe\n", "seed-network-device", 4);
  one(eth + "    gateway4: 10.0.0.1\n", "seed-network-gateway", 4, Severity::Warning);
  one("version: 2\nfoo: {}\n", "seed-network-section", 2);
  one("version: 2\ntunnels: {}\n", "seed-network-section", 2, Severity::Warning);
  one("version: 3\n", "seed-network-version", 1);
  one("version: 2\nwifis:\n  wlan0:\n    access-points:\n      home: {password: short}\n", "seed-network-wifi", 5);
  std::string v1 = "version: 1\nconfig:\n";
  EXPECT_NE(one(v1 + "- {type: route, destination: default, gateway: 10.0.0.1}\n", "seed-network-route", 3)
                .find("'default' is not an address"),
            std::string::npos);
  one(v1 + "- type: physical\n  name: eth0\n  subnets:\n  - type: static\n", "seed-network-address", 6);
  one(v1 + "- {type: foo}\n", "seed-network-section", 3);
  one(v1 + "- {type: physical}\n", "seed-network-section", 3);
  one(v1 + "- {type: nameserver, interface: eth9, address: [1.1.1.1]}\n", "seed-network-nameserver", 3);
  // Valid ones: no finding (the wrapper `network:` too).
  for (const std::string& ok :
       {eth + "    addresses: [192.168.1.11/24]\n    routes:\n    - {to: 0.0.0.0/0, via: 192.168.1.1}\n"
              "    nameservers: {addresses: [1.1.1.1, \"2606:4700::1111\"], search: [lan]}\n",
        std::string("network:\n  version: 2\n  ethernets:\n    eth0: {dhcp4: true}\n"),
        v1 + "- type: physical\n  name: eth0\n  subnets:\n  - {type: static, address: 10.0.0.2/255.0.0.0, gateway: "
             "10.0.0.1}\n- {type: route, destination: 0.0.0.0/0, gateway: 10.0.0.1}\n"}) {
    auto c = check_network_config(ok, "nc");
    EXPECT_TRUE(c.findings.empty()) << ok << dump(c);
  }
}

struct SeedPlan_ : ::testing::Test {
  test::TempDir d;
  IdentityOptions o;
  std::string file(const std::string& name, const std::string& content) {
    test::write_file(d.path / name, content);
    return (d.path / name).string();
  }
};

// The generated network-config passes piprov's own check and cloud-init's parser.
TEST_F(SeedPlan_, GeneratedNetworkConfigIsAcceptedByCloudInitsParser) {
  PIPROV_REQUIRE_TOOL("cloud-init");
  for (const auto& [ip, gw, to] :
       {std::tuple<const char*, const char*, const char*>{"192.168.1.11/24", "192.168.1.1", "0.0.0.0/0"},
        {"fd00::11/64", "fd00::1", "::/0"}}) {
    o.ips = {ip};
    o.gateway = gw;
    o.dns = {"1.1.1.1"};
    auto p = plan_seeds(o, {"x"})[0];
    EXPECT_EQ(YAML::Load(p.network_config)["ethernets"]["eth0"]["routes"][0]["to"].as<std::string>(), to);
    auto c = check_network_config(p.network_config, "generated");
    EXPECT_TRUE(c.findings.empty()) << dump(c);
    auto f = file("network-config", p.network_config);
    auto r =
        run("/usr/bin/python3 -c 'import sys,yaml; from cloudinit.net.network_state import parse_net_config_data as p; "
            "s = p(yaml.safe_load(open(sys.argv[1])), skip_broken=False); print(list(s.iter_routes()) or "
            "[r for i in s.iter_interfaces() for sn in i[\"subnets\"] for r in sn.get(\"routes\", [])])' " +
            q(f));
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err << p.network_config;
    EXPECT_NE(r.out.find(gw), std::string::npos) << r.out;
  }
  // The parser can fail: `to: default` is what it rejects.
  auto bad = file("bad",
                  "version: 2\nethernets:\n  eth0:\n    addresses: [10.0.0.2/8]\n    routes:\n    - {to: default, "
                  "via: 10.0.0.1}\n");
  auto r =
      run("/usr/bin/python3 -c 'import sys,yaml; from cloudinit.net.network_state import parse_net_config_data as p; "
          "p(yaml.safe_load(open(sys.argv[1])), skip_broken=False)' " +
          q(bad));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("Address default is not a valid ip address"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace piprov::provision

namespace piprov::provision {
namespace {

// netplan's cross-references: a bridge member that is not defined (netplan's own fixture) refuses
// the whole config; the rule also holds for bonds and VLAN links written here.
TEST(SeedCheckShared, BridgeMemberUndefinedIsNetplansError) {
  PIPROV_REQUIRE_SHARED("cloud-init/11-network-config-bridge-member-undefined", f);
  auto c = check_network_config(shared_text(f), "11");
  const Finding* r = find(c, "seed-network-reference", 5);
  ASSERT_TRUE(r) << dump(c);
  EXPECT_EQ(r->severity, Severity::Error);
  EXPECT_EQ(r->key, "network.bridges.br0.interfaces.0");
  EXPECT_NE(r->message.find("br0: interface 'ens3' is not defined (netplan)"), std::string::npos) << r->message;
  EXPECT_TRUE(c.refused());
  // Defined under ethernets: no finding of that rule.
  std::string ok = shared_text(f);
  ok.replace(ok.find("  version: 2"), 12, "  ethernets:\n    ens3: {}\n  version: 2");
  auto fixed = check_network_config(ok, "11-fixed");
  for (const auto& x : fixed.findings) EXPECT_NE(x.rule, "seed-network-reference") << dump(fixed);
}

TEST(SeedNetwork, BondAndVlanReferences) {
  auto c = check_network_config(
      "version: 2\nethernets:\n  eth0: {}\nbonds:\n  bond0:\n    interfaces: [eth0, eth1]\nvlans:\n  vlan10:\n"
      "    id: 10\n    link: bond1\n",
      "nc");
  EXPECT_NE(find(c, "seed-network-reference", 6)->message.find("bond0: interface 'eth1' is not defined"),
            std::string::npos);
  EXPECT_NE(find(c, "seed-network-reference", 10)->message.find("vlan10: interface 'bond1' is not defined"),
            std::string::npos);
  EXPECT_EQ(errors(c), 2) << dump(c);
  // A VLAN on a bond of defined members: clean.
  auto ok = check_network_config(
      "version: 2\nethernets:\n  eth0: {}\n  eth1: {}\nbonds:\n  bond0:\n    interfaces: [eth0, eth1]\nvlans:\n"
      "  vlan10:\n    id: 10\n    link: bond0\n",
      "nc");
  EXPECT_TRUE(ok.findings.empty()) << dump(ok);
}

// Two default routes on one interface: netplan's "Conflicting default route declarations"; the
// fix keeps one (and the gateway4 deprecation no longer suggests adding a second route).
TEST(SeedNetwork, TwoDefaultRoutesOnOneInterface) {
  auto c = check_network_config(
      "version: 2\nethernets:\n  eth0:\n    addresses: [10.0.0.2/24]\n    gateway4: 10.0.0.1\n    routes:\n"
      "      - to: 0.0.0.0/0\n        via: 10.0.0.1\n",
      "nc");
  const Finding* f = find(c, "seed-network-default-route-conflict", 7);
  ASSERT_TRUE(f) << dump(c);
  EXPECT_EQ(f->severity, Severity::Warning);
  EXPECT_NE(f->message.find("Conflicting default route declarations for IPv4 (table: main, metric: default), first "
                            "declared in eth0 but also in eth0 (netplan)"),
            std::string::npos)
      << f->message;
  EXPECT_EQ(f->fix, "keep one: remove gateway4 (deprecated) and keep the route under routes");
  EXPECT_EQ(find(c, "seed-network-gateway", 5)->fix, "remove gateway4: routes already holds the default route");
  // `default` plus 0.0.0.0/0.
  c = check_network_config(
      "version: 2\nethernets:\n  eth0:\n    addresses: [10.0.0.2/24]\n    routes:\n      - to: default\n"
      "        via: 10.0.0.1\n      - to: 0.0.0.0/0\n        via: 10.0.0.254\n",
      "nc");
  f = find(c, "seed-network-default-route-conflict", 8);
  ASSERT_TRUE(f) << dump(c);
  EXPECT_NE(f->message.find("'to: default via 10.0.0.1' and 'to: 0.0.0.0/0 via 10.0.0.254'"), std::string::npos);
  EXPECT_NE(f->fix.find("keep one"), std::string::npos);
  // Different metrics, or one IPv4 and one IPv6 default: no conflict.
  for (const char* fine :
       {"version: 2\nethernets:\n  eth0:\n    addresses: [10.0.0.2/24]\n    routes:\n      - {to: 0.0.0.0/0, via: "
        "10.0.0.1, metric: 100}\n      - {to: 0.0.0.0/0, via: 10.0.0.254, metric: 200}\n",
        "version: 2\nethernets:\n  eth0:\n    addresses: [10.0.0.2/24, \"fd00::2/64\"]\n    routes:\n      - {to: "
        "0.0.0.0/0, via: 10.0.0.1}\n      - {to: \"::/0\", via: \"fd00::1\"}\n"}) {
    auto ok = check_network_config(fine, "nc");
    for (const auto& x : ok.findings) EXPECT_NE(x.rule, "seed-network-default-route-conflict") << dump(ok);
  }
}

// Two default routes on two interfaces: netplan compares them across all interfaces
// (tests/generator/test_errors.py test_multiple_ip4_gateways: "first declared in engreen but
// also in enblue"); the gateway4 fix of the second then removes it instead of adding a route.
TEST(SeedNetwork, TwoDefaultRoutesOnTwoInterfaces) {
  auto c = check_network_config(
      "version: 2\nethernets:\n  eth0:\n    addresses: [10.0.0.2/24]\n    gateway4: 10.0.0.1\n  eth1:\n"
      "    addresses: [10.0.1.2/24]\n    gateway4: 10.0.1.1\n",
      "nc");
  const Finding* f = find(c, "seed-network-default-route-conflict", 8);
  ASSERT_TRUE(f) << dump(c);
  EXPECT_EQ(f->key, "ethernets.eth1.gateway4");
  EXPECT_NE(f->message.find("Conflicting default route declarations for IPv4 (table: main, metric: default), first "
                            "declared in eth0 but also in eth1 (netplan): 'gateway4: 10.0.0.1' (eth0) and "
                            "'gateway4: 10.0.1.1' (eth1) are two default routes"),
            std::string::npos)
      << f->message;
  EXPECT_EQ(f->message.find("one interface"), std::string::npos) << f->message;
  EXPECT_EQ(f->fix,
            "keep one IPv4 default route in the whole config (e.g. eth0's): remove the others, or give them "
            "different metrics");
  EXPECT_EQ(find(c, "seed-network-gateway", 5)->fix, "use routes: [{to: 0.0.0.0/0, via: 10.0.0.1}]");
  EXPECT_EQ(find(c, "seed-network-gateway", 8)->fix,
            "remove gateway4: eth0 already declares the IPv4 default route (one per family)");
  // Two `to: ::/0` / `default` routes (IPv6) on two interfaces.
  c = check_network_config(
      "version: 2\nethernets:\n  eth0:\n    routes:\n      - {to: \"::/0\", via: \"fe80::1\"}\n  wlan0:\n"
      "    routes:\n      - {to: default, via: \"fe80::2\"}\n",
      "nc");
  f = find(c, "seed-network-default-route-conflict", 8);
  ASSERT_TRUE(f) << dump(c);
  EXPECT_NE(f->message.find("for IPv6 (table: main, metric: default), first declared in eth0 but also in wlan0"),
            std::string::npos)
      << f->message;
  // v1: a gateway on two physical interfaces' subnets.
  c = check_network_config(
      "version: 1\nconfig:\n  - type: physical\n    name: eth0\n    subnets:\n      - {type: static, address: "
      "10.0.0.2/24, gateway: 10.0.0.1}\n  - type: physical\n    name: eth1\n    subnets:\n      - {type: static, "
      "address: 10.0.1.2/24, gateway: 10.0.1.1}\n",
      "nc");
  f = find(c, "seed-network-default-route-conflict", 10);
  ASSERT_TRUE(f) << dump(c);
  EXPECT_EQ(f->key, "config.1.subnets.0.gateway");
  EXPECT_NE(f->message.find("first declared in eth0 but also in eth1"), std::string::npos) << f->message;
  // Different tables or metrics, or one route per family: no conflict.
  for (const char* fine :
       {"version: 2\nethernets:\n  eth0:\n    routes:\n      - {to: 0.0.0.0/0, via: 10.0.0.1, metric: 100}\n  eth1:\n"
        "    routes:\n      - {to: 0.0.0.0/0, via: 10.0.1.1, metric: 200}\n",
        "version: 2\nethernets:\n  eth0:\n    gateway4: 10.0.0.1\n  eth1:\n    routes:\n      - {to: 0.0.0.0/0, via: "
        "10.0.1.1, table: 101}\n",
        "version: 2\nethernets:\n  eth0:\n    gateway4: 10.0.0.1\n  eth1:\n    gateway6: \"fd00::1\"\n",
        "version: 1\nconfig:\n  - type: physical\n    name: eth0\n    subnets:\n      - {type: static, address: "
        "10.0.0.2/24, gateway: 10.0.0.1}\n  - type: physical\n    name: eth1\n    subnets:\n      - {type: dhcp}\n"}) {
    auto ok = check_network_config(fine, "nc");
    for (const auto& x : ok.findings) EXPECT_NE(x.rule, "seed-network-default-route-conflict") << dump(ok);
  }
}

// A tab in the indentation: named with its line and column, as PyYAML names it ("found
// character '\\t' that cannot start any token"), and the fix is spaces, not quoting.
TEST(SeedNetwork, YamlTabInIndentationIsNamed) {
  auto c = check_network_config("version: 2\nethernets:\n  eth0:\n\tdhcp4: true\n", "nc");
  const Finding* y = find(c, "seed-yaml-invalid", 4);
  ASSERT_TRUE(y) << dump(c);
  EXPECT_NE(y->message.find("(line 4, column 1: found character '\\t' that cannot start any token"), std::string::npos)
      << y->message;
  EXPECT_EQ(y->fix, "indent line 4 with spaces, not a tab");
  auto u = check_user_data("#cloud-config\nusers:\n  - name: a\n  \tshell: /bin/bash\n", "u", partial());
  y = find(u, "seed-yaml-invalid", 4);
  ASSERT_TRUE(y) << dump(u);
  EXPECT_NE(y->message.find("(line 4, column 3: found character"), std::string::npos) << y->message;
}

// YAML errors name the line and the column of the offending character.
TEST(SeedNetwork, YamlErrorNamesLineAndColumn) {
  auto c = check_network_config("version: 2\nethernets:\n  eth0:\n    addresses: [10.0.0.2/24\n  bad: x\n", "nc");
  const Finding* y = nullptr;
  for (const auto& f : c.findings)
    if (f.rule == "seed-yaml-invalid") y = &f;
  ASSERT_TRUE(y) << dump(c);
  // PyYAML 6.0's own words for this file: the plain entry runs on to "bad", then ':'.
  EXPECT_NE(y->message.find("the flow sequence '[' that starts at line 4, column 16 is never closed (PyYAML: while "
                            "parsing a flow sequence, expected ',' or ']', but got ':' at line 5, column 6)"),
            std::string::npos)
      << y->message;
  EXPECT_EQ(y->line, 4);
  auto tab = check_network_config("version: 2\nethernets:\n  eth0: {dhcp4: true}\n  eth1:\n    x: y\n  - z\n", "nc");
  ASSERT_FALSE(tab.findings.empty());
  EXPECT_NE(tab.findings[0].fix.find(", column "), std::string::npos) << dump(tab);
}

// Trial 3, finding 14c: an unclosed flow map is named where it starts, as PyYAML names it ("while
// parsing a flow mapping ... line 5, column 18"), not only at the end of the file.
TEST(SeedNetwork, UnclosedFlowMapIsNamedWhereItStarts) {
  auto c = check_network_config(
      "version: 2\nethernets:\n  eth0:\n    dhcp4: true\n    nameservers: {addresses: [1.1.1.1]\n", "flow.yaml");
  ASSERT_EQ(c.findings.size(), 1u) << dump(c);
  const Finding& f = c.findings[0];
  EXPECT_EQ(f.rule, "seed-yaml-invalid");
  EXPECT_EQ(f.line, 5);
  EXPECT_EQ(f.key, "nameservers");
  EXPECT_EQ(f.message.find("line 6"), std::string::npos) << f.message;  // yaml-cpp's, past the last line
  EXPECT_NE(f.message.find("the flow mapping '{' that starts at line 5, column 18 is never closed"), std::string::npos)
      << f.message;
  EXPECT_EQ(f.fix, "close it with '}' after its last entry (or quote a value holding {, }, [ or ])");
  // A '{' inside quotes or a comment is no flow map: the unclosed '[' of line 3 is named.
  auto q = check_network_config("version: 2\n# {\nx: [\"{\", a\n", "q.yaml");
  ASSERT_FALSE(q.findings.empty());
  EXPECT_NE(q.findings[0].message.find("the flow sequence '[' that starts at line 3, column 4"), std::string::npos)
      << dump(q);
}

// The generated network-config goes through the same checks: options that would give netplan an
// address it refuses never get that far.
TEST(SeedNetwork, GeneratedConfigIsCheckedAndPrefixZeroRefused) {
  IdentityOptions o;
  o.ips = {"10.0.0.11/0"};
  try {
    plan_seeds(o, {"/dev/sdx"});
    ADD_FAILURE() << "--ip 10.0.0.11/0 was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("prefix length 0"), std::string::npos) << e.what();
  }
  o.ips = {"10.0.0.11/24"};
  o.gateway = "10.0.0.1";
  o.dns = {"10.0.0.1,fd00::53"};
  SeedCheck check;
  auto p = plan_seeds(o, {"/dev/sdx"}, &check);
  auto own = check_network_config(p[0].network_config, "generated");
  EXPECT_TRUE(own.findings.empty()) << dump(own);
  EXPECT_NE(p[0].network_config.find("via: \"10.0.0.1\""), std::string::npos) << p[0].network_config;
  EXPECT_NE(p[0].network_config.find("fd00::53"), std::string::npos) << p[0].network_config;
}

// Two schema errors in two modules' keys: both named, as `cloud-init schema` names them (valijson
// stopped at the first failing module of the schema's top-level allOf: only one was reported).
TEST(SeedCheck, EverySchemaErrorOfADocumentIsReported) {
  REQUIRE_SCHEMA();
  auto c = check_user_data("#cloud-config\nruncmd: foo\nssh_pwauth: 3\npackage_update: maybe\n", "u", full());
  EXPECT_EQ(find(c, "seed-schema-error", 2)->key, "runcmd") << dump(c);
  EXPECT_EQ(find(c, "seed-schema-error", 3)->key, "ssh_pwauth") << dump(c);
  EXPECT_EQ(find(c, "seed-schema-error", 4)->key, "package_update") << dump(c);
  EXPECT_EQ(errors(c), 3) << dump(c);
}

// Unknown keys: one wording in every rule that names one, and what cloud-init really does with
// them (logged at boot as a schema warning, not refused; `cloud-init schema` reports them).
TEST(SeedCheck, UnknownKeysHaveOneCorrectWording) {
  REQUIRE_SCHEMA();
  const std::string effect =
      "`cloud-init schema` reports it as an error; at boot cloud-init logs it as a schema warning, does not refuse "
      "the file, and never applies '";
  auto top = check_user_data("#cloud-config\nenable_ssh: true\n", "u", full());
  EXPECT_NE(find(top, "seed-unknown-key", 2)->message.find(effect + "enable_ssh'"), std::string::npos) << dump(top);
  auto nested = check_user_data("#cloud-config\nusers:\n- name: a\n  plain_text_password: x\n", "u", full());
  EXPECT_NE(find(nested, "seed-schema-error", 4)->message.find(effect + "plain_text_password'"), std::string::npos)
      << dump(nested);
  auto own = check_user_data("#cloud-config\nusers:\n- name: a\n  plain_text_password: x\n", "u", partial());
  EXPECT_NE(find(own, "seed-schema-error", 4)->message.find(effect + "plain_text_password'"), std::string::npos)
      << dump(own);
  for (const auto* c : {&top, &nested, &own})
    for (const auto& f : c->findings) {
      EXPECT_EQ(f.message.find("refuse the file ("), std::string::npos) << f.message;
      EXPECT_EQ(f.message.find("only logs"), std::string::npos) << f.message;
    }
}

// A UTF-8 byte order mark before '#cloud-config' is named: cloud-init does not see the header then.
TEST(SeedCheck, ByteOrderMarkBeforeTheHeaderIsNamed) {
  auto c = check_user_data("\xEF\xBB\xBF#cloud-config\nhostname: a\n", "u", partial());
  const Finding* f = find(c, "seed-not-cloud-config", 1);
  ASSERT_TRUE(f) << dump(c);
  EXPECT_EQ(f->message,
            "u: starts with a UTF-8 byte order mark (bytes EF BB BF) before '#cloud-config': cloud-init does not see "
            "the '#cloud-config' header then and does not read the file as cloud-config");
  EXPECT_NE(f->fix.find("without a byte order mark"), std::string::npos);
  EXPECT_TRUE(c.refused());
}

// Version 1 references like version 2's: a vlan_link that names no entry is an error (netplan
// refuses the rendered config); a bond's or bridge's member that names none a warning (cloud-init
// adds a placeholder interface without a MAC address).
TEST(SeedNetwork, Version1References) {
  auto c = check_network_config(
      "version: 1\nconfig:\n- type: physical\n  name: eth0\n- type: bond\n  name: bond0\n"
      "  bond_interfaces: [eth0, eth1]\n  params: {bond-mode: active-backup}\n- type: bridge\n  name: br0\n"
      "  bridge_interfaces: [ens3]\n- type: vlan\n  name: vlan10\n  vlan_id: 10\n  vlan_link: bond1\n",
      "nc");
  const Finding* bond = find(c, "seed-network-reference", 7);
  ASSERT_TRUE(bond) << dump(c);
  EXPECT_EQ(bond->severity, Severity::Warning);
  EXPECT_EQ(bond->key, "config.1.bond_interfaces.1");
  EXPECT_NE(bond->message.find("bond0: bond_interfaces names 'eth1', which no entry of this config defines"),
            std::string::npos)
      << bond->message;
  const Finding* br = find(c, "seed-network-reference", 11);
  ASSERT_TRUE(br) << dump(c);
  EXPECT_EQ(br->key, "config.2.bridge_interfaces.0");
  const Finding* vlan = find(c, "seed-network-reference", 15);
  ASSERT_TRUE(vlan) << dump(c);
  EXPECT_EQ(vlan->severity, Severity::Error);
  EXPECT_NE(vlan->message.find("vlan10: vlan_link 'bond1' names no entry of this config"), std::string::npos);
  EXPECT_TRUE(c.refused());
  // Every reference defined: no such finding.
  auto ok = check_network_config(
      "version: 1\nconfig:\n- type: physical\n  name: eth0\n- type: physical\n  name: eth1\n- type: bond\n"
      "  name: bond0\n  bond_interfaces: [eth0, eth1]\n  params: {bond-mode: active-backup}\n- type: vlan\n"
      "  name: vlan10\n  vlan_id: 10\n  vlan_link: bond0\n",
      "nc");
  for (const auto& f : ok.findings) EXPECT_NE(f.rule, "seed-network-reference") << dump(ok);
}

// Trial 3, finding 3: netplan refuses a key it does not know ("Error in network definition: unknown
// key"), and with it the whole config: every device key of ethernets, wifis, bonds, bridges and
// vlans and of their sub-maps is checked against netplan's YAML reference, with the key meant.
TEST(SeedNetwork, UnknownKeysAreNamedWithTheKeyMeant) {
  auto c = check_network_config(
      "version: 2\nwifis:\n  wlan0:\n    dhcp4: true\n    regulatory-domian: \"DE\"\n    access-points:\n"
      "      \"home\":\n        password: \"secretpass123\"\nethernets:\n  eth0:\n    dhcp4: yes\n"
      "    optinal: true\n",
      "wifi2.yaml");
  const Finding* regdom = find(c, "seed-network-unknown-key", 5);
  ASSERT_TRUE(regdom) << dump(c);
  EXPECT_EQ(regdom->severity, Severity::Error);
  EXPECT_EQ(regdom->key, "wifis.wlan0.regulatory-domian");
  EXPECT_NE(regdom->message.find("wifi2.yaml: wifis.wlan0: unknown key 'regulatory-domian'"), std::string::npos)
      << regdom->message;
  EXPECT_EQ(regdom->fix, "did you mean 'regulatory-domain'? rename 'regulatory-domian' to 'regulatory-domain'");
  const Finding* optional = find(c, "seed-network-unknown-key", 12);
  ASSERT_TRUE(optional);
  EXPECT_EQ(optional->fix, "did you mean 'optional'? rename 'optinal' to 'optional'");
  EXPECT_TRUE(c.refused());

  // Keys under match, routes, nameservers, access points, bond and bridge parameters; a VLAN takes no match.
  auto nested = check_network_config(
      "version: 2\n"
      "ethernets:\n"
      "  eth0:\n"
      "    match: {macadress: 'dc:a6:32:00:00:01'}\n"  // 4
      "    set-name: eth0\n"
      "    routes:\n"
      "    - {to: 10.0.0.0/8, vie: 192.168.1.1}\n"  // 7
      "    nameservers: {adresses: [1.1.1.1]}\n"    // 8
      "wifis:\n"
      "  wlan0:\n"
      "    access-points:\n"
      "      home: {pasword: secretpass123}\n"  // 12
      "bonds:\n"
      "  bond0:\n"
      "    interfaces: [eth0]\n"
      "    parameters: {mod: active-backup}\n"  // 16
      "bridges:\n"
      "  br0:\n"
      "    interfaces: [bond0]\n"
      "    parameters: {stp: false, forward-dealy: 4}\n"  // 20
      "vlans:\n"
      "  vlan10:\n"
      "    id: 10\n"
      "    link: eth0\n"
      "    match: {name: x}\n",  // 25
      "nc");
  for (const auto& [line, key, meant] : std::vector<std::tuple<int, std::string, std::string>>{
           {4, "ethernets.eth0.match.macadress", "macaddress"},
           {7, "ethernets.eth0.routes.0.vie", "via"},
           {8, "ethernets.eth0.nameservers.adresses", "addresses"},
           {12, "wifis.wlan0.access-points.home.pasword", "password"},
           {16, "bonds.bond0.parameters.mod", "mode"},
           {20, "bridges.br0.parameters.forward-dealy", "forward-delay"},
           {25, "vlans.vlan10.match", ""}}) {
    const Finding* f = find(nested, "seed-network-unknown-key", line);
    if (!f) continue;
    EXPECT_EQ(f->key, key);
    if (!meant.empty()) {
      EXPECT_NE(f->fix.find("did you mean '" + meant + "'?"), std::string::npos) << f->fix;
    } else {
      EXPECT_EQ(f->fix.find("did you mean"), std::string::npos) << f->fix;
    }
  }
  int unknown = 0;
  for (const auto& f : nested.findings) unknown += f.rule == "seed-network-unknown-key";
  EXPECT_EQ(unknown, 7) << dump(nested);

  // netplan's own keys of every modelled type pass.
  auto ok = check_network_config(
      "version: 2\nrenderer: networkd\n"
      "ethernets:\n  eth0:\n    match: {macaddress: 'dc:a6:32:00:00:01', driver: bcmgenet}\n    set-name: eth0\n"
      "    dhcp4: false\n    dhcp6: false\n    addresses: [192.168.1.11/24]\n    mtu: 1500\n"
      "    macaddress: 'dc:a6:32:00:00:02'\n    optional: true\n    link-local: [ipv6]\n    accept-ra: false\n"
      "    dhcp4-overrides: {use-dns: false, route-metric: 200}\n    wakeonlan: true\n    critical: true\n"
      "    routes:\n    - {to: 0.0.0.0/0, via: 192.168.1.1, metric: 100, on-link: true, table: 254}\n"
      "    routing-policy:\n    - {from: 192.168.1.0/24, table: 254, priority: 100}\n"
      "    nameservers: {addresses: [1.1.1.1], search: [lan]}\n"
      "wifis:\n  wlan0:\n    dhcp4: true\n    access-points:\n      home:\n        password: secretpass123\n"
      "        hidden: true\n        band: 5GHz\n      corp:\n        auth: {key-management: eap, method: peap, "
      "identity: me, password: secretpass123}\n"
      "bonds:\n  bond0:\n    interfaces: [eth0]\n    parameters: {mode: active-backup, mii-monitor-interval: 100, "
      "primary: eth0}\n"
      "bridges:\n  br0:\n    interfaces: [bond0]\n    dhcp4: true\n    parameters: {stp: false, forward-delay: 4}\n"
      "vlans:\n  vlan10:\n    id: 10\n    link: eth0\n    addresses: [10.10.0.2/24]\n",
      "ok");
  for (const auto& f : ok.findings) EXPECT_NE(f.rule, "seed-network-unknown-key") << dump(ok);
}

// Trial 3, finding 1: regulatory-domain is netplan 0.105's (canonical/netplan PR #281): without an
// image a warning; judged by the image's netplan, an error before 0.105, an info from it on.
TEST(SeedNetwork, RegulatoryDomainIsJudgedByTheImagesNetplan) {
  NodeIdentity n;
  n.network_config_file = "wifi.yaml";
  n.network_config_base =
      "version: 2\nwifis:\n  wlan0:\n    dhcp4: true\n    regulatory-domain: \"DE\"\n    access-points:\n"
      "      \"home\":\n        password: \"secretpass123\"\n";
  auto alone = check_seed(n, {.schema_path = "none"});
  const Finding* w = find(alone, "seed-network-netplan-version", 5);
  ASSERT_TRUE(w) << dump(alone);
  EXPECT_EQ(w->severity, Severity::Warning);
  EXPECT_FALSE(alone.refused());
  for (const auto& [netplan, sev] : std::vector<std::pair<std::string, Severity>>{
           {"0.99", Severity::Error}, {"0.104", Severity::Error}, {"0.105", Severity::Info}, {"1.0", Severity::Info}}) {
    auto image = std::make_shared<ImageCloudInit>();
    image->image = "x.img";
    image->netplan_version = netplan;
    auto c = check_seed(n, {.schema_path = "none", .image = image});
    const Finding* f = find(c, "seed-network-netplan-version", 5);
    ASSERT_TRUE(f) << netplan;
    EXPECT_EQ(f->severity, sev) << netplan;
    EXPECT_NE(f->message.find("netplan " + netplan + ", read from the image"), std::string::npos) << f->message;
    if (sev == Severity::Error) {
      EXPECT_NE(f->message.find("refused by netplan " + netplan), std::string::npos) << f->message;
      EXPECT_NE(f->fix.find("cfg80211.ieee80211_regdom"), std::string::npos) << f->fix;
    }
  }
}

// Trial 4, B1+B2: every key netplan's YAML reference notes "since" a version newer than 0.99 is
// judged by the image's netplan (an error naming the version before it, an info from it on), a
// warning without an image; hairpin, port-mac-learning (1.0) and ra-overrides (1.1) are keys.
TEST(SeedNetwork, NewerNetplanKeysAreJudgedByTheImagesNetplan) {
  NodeIdentity n;
  n.network_config_file = "nk.yaml";
  n.network_config_base =
      "version: 2\nethernets:\n  eth0:\n    dhcp4: true\n    activation-mode: manual\n    ignore-carrier: true\n"
      "    hairpin: true\n    port-mac-learning: false\n    neigh-suppress: true\n    ra-overrides: {use-dns: false}\n"
      "    emit-lldp: true\n    routes:\n    - {to: 10.0.0.0/8, via: 192.168.1.1, mtu: 1400}\n"
      "bonds:\n  bond0:\n    interfaces: [eth0]\n    parameters: {mode: active-backup, all-members-active: true}\n"
      "wifis:\n  wlan0:\n    dhcp4: true\n    access-points:\n      \"my.home\":\n        password: secretpass123\n"
      "        hidden: true\n";
  // line -> since
  const std::vector<std::pair<int, std::string>> keys = {{5, "0.103"},  {6, "0.104"},  {7, "1.0"},
                                                         {8, "1.0"},    {9, "0.105"},  {10, "1.1"},
                                                         {13, "0.101"}, {17, "0.106"}, {24, "0.100"}};
  auto alone = check_seed(n, {.schema_path = "none"});
  for (const auto& f : alone.findings) EXPECT_NE(f.rule, "seed-network-unknown-key") << dump(alone);
  for (const auto& [line, since] : keys) {
    const Finding* w = find(alone, "seed-network-netplan-version", line);
    ASSERT_TRUE(w) << line;
    EXPECT_EQ(w->severity, Severity::Warning) << w->message;
    EXPECT_NE(w->message.find("is read by netplan " + since + " and later"), std::string::npos) << w->message;
  }
  for (const auto& f : alone.findings) EXPECT_NE(f.line, 11) << "emit-lldp is read by 0.99: " << dump(alone);
  EXPECT_FALSE(alone.refused());
  for (const std::string netplan : {"0.99", "0.104", "1.0", "1.1"}) {
    auto image = std::make_shared<ImageCloudInit>();
    image->image = "x.img";
    image->netplan_version = netplan;
    auto c = check_seed(n, {.schema_path = "none", .image = image});
    for (const auto& [line, since] : keys) {
      const Finding* f = find(c, "seed-network-netplan-version", line);
      ASSERT_TRUE(f) << netplan << " " << line;
      if (compare_versions(netplan, since) >= 0) {
        EXPECT_EQ(f->severity, Severity::Info) << f->message;
      } else {
        EXPECT_EQ(f->severity, Severity::Error) << f->message;
        EXPECT_NE(f->message.find("refused by netplan " + netplan +
                                  ", read from the image (unknown key before netplan " + since + ")"),
                  std::string::npos)
            << f->message;
      }
    }
  }
  auto image = std::make_shared<ImageCloudInit>();
  image->image = "x.img";
  image->netplan_version = "0.104";
  const auto old = check_seed(n, {.schema_path = "none", .image = image});
  // Trial 4, B8: the summary names the netplan that judged network-config.
  EXPECT_EQ(alone.validator, "piprov's own rules");
  EXPECT_EQ(old.validator, "piprov's own rules and netplan 0.104, read from the image");
  const Finding* bond = find(old, "seed-network-netplan-version", 17);
  ASSERT_TRUE(bond);
  EXPECT_NE(bond->fix.find("all-slaves-active"), std::string::npos) << bond->fix;
}

// Trial 3, finding 13: a type error says the type the schema wants, as `cloud-init schema` does
// ("hostname: 123 is not of type 'string'"), not valijson's "Value type not permitted".
TEST(SeedCheck, TypeErrorsNameTheExpectedType) {
  REQUIRE_SCHEMA();
  auto c = check_user_data(
      "#cloud-config\nhostname: 123\nntp:\n  enabled: true\n  servers: 10.0.0.1\nruncmd: echo hi\n"
      "timezone: [Europe/Berlin]\nusers:\n- name: pi\n  lock_passwd: maybe\n",
      "ud1.yaml", full());
  for (const auto& [line, text] :
       std::vector<std::pair<int, std::string>>{{2, "'hostname' does not match cloud-init"},
                                                {2, ": 123 is not of type 'string'"},
                                                {5, "'ntp.servers' does not match"},
                                                {5, ": '10.0.0.1' is not of type 'array'"},
                                                {6, ": 'echo hi' is not of type 'array'"},
                                                {7, "[\"Europe/Berlin\"] is not of type 'string'"},
                                                {10, ": 'maybe' is not of type 'boolean'"}}) {
    const Finding* f = find(c, "seed-schema-error", line);
    if (!f) continue;
    EXPECT_NE(f->message.find(text), std::string::npos) << f->message;
    EXPECT_EQ(f->message.find("Value type not permitted"), std::string::npos) << f->message;
  }
}

}  // namespace
}  // namespace piprov::provision
