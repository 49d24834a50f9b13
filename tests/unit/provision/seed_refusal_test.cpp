// The seed check's refusal (provision/seed/seed_check.hpp): files cloud-init cannot
// read (not UTF-8, empty), file options that name no file, what --force-seed
// overrides, the order of the findings and the one line that ends a refusal.
#include <gtest/gtest.h>

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "provision/identity.hpp"
#include "provision/seed/seed_check.hpp"
#include "support/testsupport.hpp"

namespace piprov::provision {
namespace {

SeedCheckOptions own_rules() { return {.schema_path = "none"}; }

/// "rule@line" of every finding, in order, without seed-check-partial.
std::vector<std::string> rules_at(const SeedCheck& c) {
  std::vector<std::string> v;
  for (const auto& f : c.findings)
    if (f.rule != "seed-check-partial") v.push_back(f.rule + "@" + std::to_string(f.line));
  return v;
}

// Latin-1 "café" (0xE9 at byte 27, line 2): PyYAML's ReaderError says "position 27".
const std::string kLatin1UserData = "#cloud-config\nhostname: caf\xe9\n";

TEST(SeedRefusal, NonUtf8IsRefusedInEveryFileWithLineAndByte) {
  struct Case {
    std::string text;
    SeedCheck (*check)(std::string_view, const std::string&);
  } cases[] = {
      {kLatin1UserData, [](std::string_view t, const std::string& f) { return check_user_data(t, f, own_rules()); }},
      {"version: 2\nethernets: {eth\xe9: {dhcp4: true}}\n", check_network_config},
      {"instance-id: x\nlocal-hostname: caf\xe9\n", check_meta_data},
  };
  const std::size_t bytes[] = {27, 26, 34};
  for (std::size_t i = 0; i < 3; ++i) {
    SeedCheck c = cases[i].check(cases[i].text, "/seed/f");
    ASSERT_EQ(rules_at(c), std::vector<std::string>{"seed-not-utf8@2"}) << findings_text(c.findings);
    const Finding& f = c.findings.back();
    EXPECT_EQ(f.severity, Severity::Error);
    EXPECT_EQ(f.message, "/seed/f: is not UTF-8 at line 2, byte " + std::to_string(bytes[i]) +
                             ": cloud-init reads seeds as UTF-8; save the file as UTF-8");
    EXPECT_EQ(f.fix.rfind("byte " + std::to_string(bytes[i]) +
                              " is 0xE9: convert the file, e.g. iconv -f ISO-8859-1 "
                              "-t UTF-8 /seed/f > /seed/f.utf8",
                          0),
              0u)
        << f.fix;
  }
  // Before the header: a Latin-1 byte on line 1 is not "no #cloud-config".
  EXPECT_EQ(rules_at(check_user_data("#cl\xf6ud-config\n", "u", own_rules())),
            std::vector<std::string>{"seed-not-utf8@1"});
  // UTF-8 text (é, a BOM-less file) passes.
  EXPECT_TRUE(rules_at(check_user_data("#cloud-config\nhostname: caf\xc3\xa9\n", "u", own_rules())).empty());
}

// The judge: `cloud-init schema` refuses the Latin-1 file too.
TEST(SeedRefusal, CloudInitRefusesTheLatin1UserDataToo) {
  PIPROV_REQUIRE_TOOL("cloud-init");
  test::TempDir d;
  test::write_file(d.path / "ud", kLatin1UserData);
  auto r = test::run("cloud-init schema --config-file " + test::q((d.path / "ud").string()));
  EXPECT_NE(r.exit_code, 0) << r.out;
  EXPECT_NE((r.out + r.err).find("position 27"), std::string::npos) << r.out << r.err;
}

TEST(SeedRefusal, EmptyUserDataIsSeedUserDataEmptyNotSeedNotCloudConfig) {
  const std::pair<std::string, std::string> cases[] = {
      {"", "u: is empty (0 bytes): cloud-init ignores an empty user-data, nothing from it is applied"},
      {"  \n\n\t\n",
       "u: holds only comments and blank lines (every key commented out): cloud-init ignores an empty user-data, "
       "nothing from it is applied"},
      {"# packages: [htop]\n",
       "u: holds only comments and blank lines (every key commented out): cloud-init ignores an empty user-data, "
       "nothing from it is applied"},
      {"#cloud-config\n\n# hostname: x\n",
       "u: holds only comments and blank lines (every key commented out): cloud-init ignores an empty user-data, "
       "nothing from it is applied"},
  };
  for (const auto& [text, message] : cases) {
    SeedCheck c = check_user_data(text, "u", own_rules());
    ASSERT_EQ(rules_at(c), std::vector<std::string>{std::string("seed-user-data-empty@") + (text.empty() ? "0" : "1")})
        << "[" << text << "]\n"
        << findings_text(c.findings);
    EXPECT_EQ(c.findings.back().severity, Severity::Error);
    EXPECT_EQ(c.findings.back().message, message);
    EXPECT_EQ(c.findings.back().fix, "write (or uncomment) the keys you want, or leave --user-data out");
    // With options that add to it (--hostname ...): a warning, and the seed holds the options' keys.
    SeedCheck w = check_user_data(text, "u", {.schema_path = "none", .options_add_user_data = true});
    EXPECT_EQ(count_findings(w.findings).errors, 0) << findings_text(w.findings);
    EXPECT_EQ(w.findings.back().rule, "seed-user-data-empty");
  }
  EXPECT_EQ(rules_at(check_user_data("#cloud-config\n---\n", "u", own_rules())),
            std::vector<std::string>{"seed-user-data-empty@1"});
}

TEST(SeedRefusal, BlankOrCommentUserDataWithOptionsBuildsTheSeed) {
  test::TempDir d;
  test::write_file(d.path / "ud", "  \n# nothing here\n");
  IdentityOptions o;
  o.hostnames = "n1";
  o.user_data_file = (d.path / "ud").string();
  auto plans = plan_seeds(o, {"x"});
  ASSERT_EQ(plans.size(), 1u);
  EXPECT_EQ(YAML::Load(plans[0].user_data)["hostname"].as<std::string>(), "n1");
}

TEST(SeedRefusal, ForceSeedOverridesWhatItDidAndNeverAnUnreadableFile) {
  for (const char* rule : {"seed-not-utf8", "seed-not-cloud-config", "seed-yaml-invalid", "seed-not-a-map"})
    EXPECT_FALSE(force_seed_overrides(rule)) << rule;
  for (const char* rule : {"seed-schema-error", "seed-unknown-key", "seed-template-marker", "seed-user-data-empty",
                           "seed-yaml-date", "seed-network-address"})
    EXPECT_TRUE(force_seed_overrides(rule)) << rule;
  NodeIdentity n;
  n.user_data_file = "ud";
  n.user_data_base = kLatin1UserData;
  SeedCheck c = check_seed(n, {.schema_path = "none", .force = true});
  EXPECT_TRUE(c.refused());
  EXPECT_TRUE(c.forced);
  EXPECT_EQ(c.findings.back().severity, Severity::Error);
  EXPECT_EQ(refusal_text(c),
            "the cloud-init seed is refused before anything is written: 1 error(s), 1 warning(s), 0 info (checked with "
            "piprov's own rules); --force-seed does not override seed-not-utf8: fix the file");
}

// Each file's findings by line (the checks run rule by rule), the files in
// the order user-data, network-config, meta-data; --force-seed changes no order.
TEST(SeedRefusal, FindingsAreInFileThenLineOrder) {
  NodeIdentity n;
  n.user_data_file = "ud";
  n.user_data_base = "#cloud-config\nhostname: \"${HOST}\"\nusers:\n  - name: pi\n    plain_text_password: x\n";
  n.network_config_file = "nc";
  n.network_config_base = "version: 2\nethernets:\n  eth0:\n    addresses: [\"10.0.0.${N}/24\"]\n  bad: [\n";
  n.meta_data_file = "md";
  n.meta_data_base = "instance_id: x\n";
  // network-config's checks find seed-yaml-invalid (named where its unclosed '[' starts, line 5) before the raw
  // lines' marker (line 4).
  const std::vector<std::string> want = {"seed-check-partial@0",        "seed-template-marker@2", "seed-schema-error@5",
                                         "seed-clear-text-password@5",  "seed-template-marker@4", "seed-yaml-invalid@5",
                                         "seed-meta-data-key-ignored@1"};
  for (bool force : {false, true}) {
    SeedCheck c = check_seed(n, {.schema_path = "none", .force = force});
    std::vector<std::string> got;
    for (const auto& f : c.findings) got.push_back(f.rule + "@" + std::to_string(f.line));
    EXPECT_EQ(got, want) << "force " << force << "\n" << findings_text(c.findings);
    EXPECT_EQ(c.findings[1].message.rfind(force ? "(--force-seed) ud: " : "ud: ", 0), 0u) << c.findings[1].message;
  }
}

TEST(SeedRefusal, TheLastLineSuggestsForceSeedOnlyWhereItHelps) {
  const std::string head = "the cloud-init seed is refused before anything is written: ";
  auto text = [](const std::string& ud, bool force = false) {
    NodeIdentity n;
    n.user_data_file = "ud";
    n.user_data_base = ud;
    return refusal_text(check_seed(n, {.schema_path = "none", .force = force}));
  };
  // A schema error: the validator may be behind cloud-init; --force-seed writes it.
  EXPECT_EQ(text("#cloud-config\nusers:\n  - name: pi\n    plain_text_password: x\n"),
            head +
                "1 error(s), 2 warning(s), 0 info (checked with piprov's own rules); fix them, or pass --force-seed "
                "to write the files anyway (its errors become warnings)");
  // An unfilled template value, a file that sets nothing: --force-seed would write them, but helps nobody.
  EXPECT_EQ(text("#cloud-config\nhostname: \"${HOST}\"\n"),
            head + "1 error(s), 1 warning(s), 0 info (checked with piprov's own rules); fix them");
  EXPECT_EQ(text(""), head + "1 error(s), 1 warning(s), 0 info (checked with piprov's own rules); fix them");
  // Errors it does not override are named.
  EXPECT_EQ(text("#cloud-config\nusers: [\n"),
            head +
                "1 error(s), 1 warning(s), 0 info (checked with piprov's own rules); fix them (--force-seed does "
                "not override seed-yaml-invalid)");
  EXPECT_EQ(text("hostname: x\n", true),
            head +
                "1 error(s), 1 warning(s), 0 info (checked with piprov's own rules); --force-seed does not "
                "override seed-not-cloud-config: fix the file");
}

TEST(SeedRefusal, ForceSeedTurnsSchemaErrorsIntoWarningsInThePlan) {
  test::TempDir d;
  test::write_file(d.path / "ud", "#cloud-config\nusers:\n  - name: pi\n    plain_text_password: x\n");
  IdentityOptions o;
  o.hostnames = "n1";
  o.user_data_file = (d.path / "ud").string();
  o.force_seed = true;
  SeedCheck c;
  auto plans = plan_seeds(o, {"x"}, &c);
  ASSERT_EQ(plans.size(), 1u);
  EXPECT_EQ(count_findings(c.findings).errors, 0) << findings_text(c.findings);
  const auto w = std::find_if(c.findings.begin(), c.findings.end(),
                              [](const Finding& f) { return f.rule == "seed-schema-error" && f.line == 4; });
  ASSERT_NE(w, c.findings.end()) << findings_text(c.findings);
  EXPECT_EQ(w->severity, Severity::Warning);
  EXPECT_EQ(w->message.rfind("(--force-seed) ", 0), 0u) << w->message;
  // Not for a file piprov cannot read.
  test::write_file(d.path / "ud", "package_update: true\n");
  test::expect_error(ErrorKind::Usage, "--force-seed does not override seed-not-cloud-config: fix the file",
                     [&] { plan_seeds(o, {"x"}); });
  o.user_data_file.clear();
  o.hostnames.clear();
  test::expect_error(ErrorKind::Usage, "--force-seed needs --user-data, --network-config or --meta-data",
                     [&] { plan_seeds(o, {"x"}); });
}

// plan_seeds() refuses with one Error{Usage}: a one-line message, the findings attached.
TEST(SeedRefusal, RefusalIsOneUsageErrorCarryingTheFindings) {
  test::TempDir d;
  test::write_file(d.path / "ud", "#cloud-config\nusers:\n  - name: pi\n    plain_text_password: x\n");
  IdentityOptions o;
  o.hostnames = "n1";
  o.user_data_file = (d.path / "ud").string();
  try {
    plan_seeds(o, {"x"});
    FAIL() << "not refused";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Usage);
    const std::string m = e.what();
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    EXPECT_EQ(m.rfind("the cloud-init seed is refused before anything is written: 1 error(s), ", 0), 0u) << m;
    const Error copy = e;  // an exception is copied when thrown and caught: the findings stay
    std::vector<std::string> rules;
    for (const auto& f : copy.findings()) rules.push_back(f.rule + "@" + std::to_string(f.line));
    EXPECT_NE(std::find(rules.begin(), rules.end(), "seed-schema-error@4"), rules.end()) << m;
    for (const auto& f : copy.findings())
      if (f.rule == "seed-schema-error") {
        EXPECT_EQ(f.message.rfind(o.user_data_file + ": 'plain_text_password'", 0), 0u) << f.message;
        EXPECT_NE(f.fix.find("did you mean 'plain_text_passwd'?"), std::string::npos) << f.fix;
      }
  }
  EXPECT_TRUE(Error(ErrorKind::Usage, "x").findings().empty());
}

// A file option names something that is not a file: one Error{Usage} naming the option and the path.
TEST(SeedRefusal, FileOptionsNameTheOptionAndThePath) {
  test::TempDir d;
  const std::string fifo = (d.path / "fifo").string();
  ASSERT_EQ(test::run("mkfifo " + test::q(fifo)).exit_code, 0);
  const std::string not_regular = " is not a regular file: pass a file (or - for standard input where supported)";
  IdentityOptions o;
  o.hostnames = "n1";
  o.user_data_file = d.path.string();
  test::expect_error(ErrorKind::Usage, "--user-data " + d.path.string() + not_regular, [&] { plan_seeds(o, {"x"}); });
  o.user_data_file.clear();
  o.meta_data_file = fifo;  // never blocks: no writer
  test::expect_error(ErrorKind::Usage, "--meta-data " + fifo + not_regular, [&] { plan_seeds(o, {"x"}); });
  o.meta_data_file = "-";
  test::expect_error(ErrorKind::Usage,
                     "--meta-data -: --meta-data does not read standard input; give the path of the meta-data file",
                     [&] { plan_seeds(o, {"x"}); });
  o.meta_data_file.clear();
  o.user = "admin";
  o.ssh_key_files = {(d.path / "missing.pub").string()};
  test::expect_error(ErrorKind::Usage,
                     "--ssh-key " + o.ssh_key_files[0] + " does not exist: give the path of the SSH public key file",
                     [&] { plan_seeds(o, {"x"}); });
}

}  // namespace
}  // namespace piprov::provision
