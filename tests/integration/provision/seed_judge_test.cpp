// The seed judged by the image's own cloud-init (issue 27 item 4) and
// `piprov seed check` (issue 29 item 5): scripts/make-test-image.sh images
// carrying cloud-init 22.4.2, 24.1, 25.2 and 26.2's own schemas
// (../shared/data/cloud-init-schemas) where the cloud-init package installs
// them, read through the image reader; provision on real loop devices.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <map>

#include "provision/cloud_init.hpp"
#include "provision/ip_value.hpp"
#include "provision/seed/image_cloud_init.hpp"
#include "provision/seed/seed_check.hpp"
#include "support/testsupport.hpp"

namespace fs = std::filesystem;
using piprov::test::q;
using piprov::test::run;
using piprov::test::TempDir;

namespace {

const char* const kVersions[] = {"22.4.2", "24.1", "25.2", "26.2"};

/// One noble image per cloud-init version (64 MiB root fs), made once for the suite.
class SeedJudge : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir("piprov-seed-judge");
    for (const char* v : kVersions) {
      const fs::path img = dir_->path / (std::string("ci-") + v + ".img");
      if (auto why = piprov::test::make_test_image(img, 64, "noble", v); !why.empty()) {
        skip_reason_ = why;
        return;
      }
      images_[v] = img.string();
    }
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  void SetUp() override {
    if (!piprov::test::shared_data("cloud-init-schemas") || !piprov::test::shared_data("cloud-init"))
      PIPROV_SKIP("../shared/data/cloud-init{,-schemas} is not present");
    if (!skip_reason_.empty()) PIPROV_SKIP(skip_reason_);
  }
  static std::string shared(const std::string& name) {
    return piprov::test::shared_data("cloud-init/" + name)->string();
  }
  static std::string seed_check(const std::string& options) {
    return piprov::test::piprov_bin() + " seed check " + options;
  }

  static TempDir* dir_;
  static std::string skip_reason_;
  static std::map<std::string, std::string> images_;
};
TempDir* SeedJudge::dir_ = nullptr;
std::string SeedJudge::skip_reason_;
std::map<std::string, std::string> SeedJudge::images_;

/// The option that takes shared file `name` (by the kind its name says).
std::string option_for(const std::string& name) {
  if (name.find("user-data") != std::string::npos) return "--user-data";
  if (name.find("network-config") != std::string::npos) return "--network-config";
  return "--meta-data";
}

}  // namespace

TEST_F(SeedJudge, TheImageReportsItsOwnCloudInitAndNetplan) {
  for (const char* v : kVersions) {
    auto ci = piprov::provision::read_image_cloud_init(images_[v]);
    EXPECT_EQ(ci->cloud_init_version, v);
    EXPECT_EQ(ci->netplan_version, "1.0") << v;  // noble's netplan.io 1.0-2ubuntu1
    EXPECT_TRUE(ci->has_schema()) << v << ": " << ci->note;
    EXPECT_EQ(ci->schema_text, piprov::test::read_file(*piprov::test::shared_data(
                                   std::string("cloud-init-schemas/schema-cloud-config-v1-") + v + ".json")));
  }
}

// 09 (the rpi: module) is valid from cloud-init 25.2: the image's version decides.
TEST_F(SeedJudge, SeedCheckWithImageLetsTheImagesCloudInitDecide09) {
  for (const char* v : kVersions) {
    auto r = run(seed_check("--image " + q(images_[v]) + " --user-data " +
                            q(shared("09-user-data-rpi-module-cloud-init-25.2"))));
    const bool knows_rpi = std::string(v) == "25.2" || std::string(v) == "26.2";
    EXPECT_EQ(r.exit_code, knows_rpi ? 0 : 2) << v << "\n" << r.out << r.err;
    if (knows_rpi) {
      EXPECT_NE(r.out.find("checked with cloud-init " + std::string(v) + " schema, read from the image"),
                std::string::npos)
          << r.out;
    } else {
      // Under an open (22.4.2) or closed (24.1) top level: the version that reads it, not "spelling".
      EXPECT_NE(r.err.find("error    seed-cloud-init-version"), std::string::npos) << r.err;
      EXPECT_NE(r.err.find("'rpi' is read by cloud-init 25.2 and later"), std::string::npos) << r.err;
      EXPECT_NE(r.err.find("this image's cloud-init is " + std::string(v) + " (cloud-init " + std::string(v) +
                           "'s schema, read from the image)"),
                std::string::npos)
          << r.err;
      EXPECT_EQ(r.err.find("did you mean"), std::string::npos) << "rpi is not close to any key: " << r.err;
      EXPECT_EQ(r.err.find("spelling"), std::string::npos) << r.err;
    }
  }
}

// 10 sets enable_ssh, a key of no cloud-init version: refused on every image.
TEST_F(SeedJudge, TenIsRefusedOnEveryImageForEnableSsh) {
  for (const char* v : kVersions) {
    auto r = run(seed_check("--json --image " + q(images_[v]) + " --user-data " +
                            q(shared("10-pigen-892-user-data-enable-ssh-and-rpi"))));
    EXPECT_EQ(r.exit_code, 2) << v << "\n" << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["schema"], "piprov.seed.check/1");
    EXPECT_TRUE(j["refused"].get<bool>());
    std::vector<std::string> keys;
    for (const auto& f : j["seed_check"]["findings"])
      if (f["severity"] == "error") keys.push_back(f["key"].is_string() ? f["key"].get<std::string>() : "");
    const bool knows_rpi = std::string(v) == "25.2" || std::string(v) == "26.2";
    const std::vector<std::string> want =
        knows_rpi ? std::vector<std::string>{"enable_ssh"} : std::vector<std::string>{"enable_ssh", "rpi"};
    EXPECT_EQ(keys, want) << v;
    EXPECT_EQ(j["seed_check"]["validator"],
              "cloud-init " + std::string(v) + " schema, read from the image (" + images_[v] + ")");
  }
}

// piprov's own seed (--user, --ssh-key, --ip, --gateway, --dns, --timezone) passes every image's cloud-init.
TEST_F(SeedJudge, PiprovsOwnGatewaySeedPassesEveryImage) {
  piprov::provision::NodeIdentity n;
  n.hostname = "node1";
  n.user = "admin";
  n.ssh_keys = {"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIE3Qq0fJmPZ3hMZb5bN2V2cUQjx3nY2mVfM7wqkE1Q8b admin@ws"};
  n.timezone = "Europe/Berlin";
  n.address = piprov::provision::IpValue::parse("192.168.1.11/24");
  n.gateway = piprov::provision::IpValue::parse("192.168.1.1");
  n.dns = {*piprov::provision::IpValue::parse("192.168.1.1")};
  const std::string user_data = piprov::provision::build_user_data(n);
  const std::string network = piprov::provision::build_network_config(n);
  ASSERT_NE(network.find("192.168.1.1"), std::string::npos) << network;
  const fs::path ud = dir_->path / "own-user-data", nc = dir_->path / "own-network-config";
  piprov::test::write_file(ud, user_data);
  piprov::test::write_file(nc, network);
  for (const char* v : kVersions) {
    auto r = run(seed_check("--json --image " + q(images_[v]) + " --user-data " + q(ud.string()) +
                            " --network-config " + q(nc.string())));
    EXPECT_EQ(r.exit_code, 0) << v << "\n" << user_data << network << r.out << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_FALSE(j["refused"].get<bool>());
    EXPECT_EQ(j["seed_check"]["findings"].size(), 0u) << v << ": " << j.dump(2);
  }
}

// An image without cloud-init: the host's schema judges (the library's check), and a warning says
// so naming its version; `seed check --image` refuses it as provision does.
TEST_F(SeedJudge, AnImageWithoutCloudInitIsJudgedByTheHostWithAWarning) {
  TempDir d("piprov-seed-judge-none");
  // Ubuntu 20.04's layout of make-test-image.sh has no cloud-init in its root fs.
  if (auto why = piprov::test::make_test_image(d.path / "focal.img", 64); !why.empty()) PIPROV_SKIP(why);
  auto ci = piprov::provision::read_image_cloud_init((d.path / "focal.img").string());
  EXPECT_FALSE(ci->has_schema());
  EXPECT_EQ(ci->cloud_init_version, "");
  EXPECT_NE(ci->note.find("the image has no cloud-init"), std::string::npos) << ci->note;
  auto c =
      piprov::provision::check_user_data("#cloud-config\nhostname: a\n", "u", {.schema_path = "none", .image = ci});
  ASSERT_EQ(c.findings.size(), 2u);
  EXPECT_EQ(c.findings[0].rule, "seed-judge-host");
  EXPECT_EQ(c.findings[1].rule, "seed-check-partial");
  EXPECT_NE(c.findings[0].message.find("gives no cloud-init schema (the image has no cloud-init"), std::string::npos)
      << c.findings[0].message;
  EXPECT_NE(c.findings[0].message.find("judged by piprov's own rules"), std::string::npos) << c.findings[0].message;
  // The image was read (its root fs has no cloud-init): the fix does not ask for a readable image.
  EXPECT_TRUE(ci->root_read);
  EXPECT_EQ(c.findings[0].fix,
            "check the seed with the node's cloud-init (`cloud-init schema --config-file FILE` on "
            "the node)");
  // `seed check --image` gives provision's verdict: refused, exit 2, what is missing named.
  const fs::path ud = d.path / "ud";
  piprov::test::write_file(ud, "#cloud-config\nhostname: a\n");
  auto r = run(seed_check("--image " + q((d.path / "focal.img").string()) + " --user-data " + q(ud.string())));
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("piprov: error: --image " + (d.path / "focal.img").string() +
                       ": the image's root fs has no cloud-init ("),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("missing), so it would ignore a first-boot seed: use an image with cloud-init"),
            std::string::npos)
      << r.err;
  const char* host = "/usr/lib/python3/dist-packages/cloudinit/config/schemas/schema-cloud-config-v1.json";
  if (!fs::exists(host)) return;
  auto h = piprov::provision::check_user_data("#cloud-config\nhostname: a\n", "u", {.image = ci});
  ASSERT_EQ(h.findings.size(), 1u);
  EXPECT_NE(h.findings[0].message.find("judged by this machine's cloud-init 22.4.2 schema (" + std::string(host) + ")"),
            std::string::npos)
      << h.findings[0].message;
  EXPECT_EQ(h.validator, "cloud-init 22.4.2 schema (" + std::string(host) + ")");
}

// 'to: default' by the image's netplan: refused by 20.04's 0.99, read by 0.103 and later.
TEST_F(SeedJudge, ToDefaultIsJudgedByTheImagesNetplan) {
  piprov::provision::NodeIdentity n;
  n.network_config_file = "nc";
  n.network_config_base =
      "version: 2\nethernets:\n  eth0:\n    addresses: [10.0.0.2/24]\n    routes:\n    - {to: default, via: "
      "10.0.0.1}\n";
  for (const auto& [netplan, sev] : std::vector<std::pair<std::string, piprov::Severity>>{
           {"0.99", piprov::Severity::Error}, {"0.103", piprov::Severity::Info}, {"1.0", piprov::Severity::Info}}) {
    auto image = std::make_shared<piprov::provision::ImageCloudInit>();
    image->image = "x.img";
    image->netplan_version = netplan;
    auto c = piprov::provision::check_seed(n, {.schema_path = "none", .image = image});
    ASSERT_EQ(c.findings.size(), 1u) << netplan;
    EXPECT_EQ(c.findings[0].rule, "seed-network-route-default");
    EXPECT_EQ(c.findings[0].severity, sev) << netplan;
    EXPECT_NE(c.findings[0].message.find("netplan " + netplan + ", read from the image"), std::string::npos)
        << c.findings[0].message;
  }
}

// provision writes 09 onto the 25.2 and 26.2 images and refuses it onto the 24.1 one, naming that version.
TEST_F(SeedJudge, ProvisionWrites09OntoThe252And262ImagesAndRefusesItOntoThe241One) {
  PIPROV_REQUIRE_LOOP();
  TempDir d("piprov-seed-judge-disk");
  piprov::test::LoopDevice disk(d.path / "disk.img", 512ull << 20);
  ASSERT_EQ(
      run("yes piprov-untouched | head -c 1048576 | dd of=" + q(disk.path) + " bs=1M conv=fsync status=none").exit_code,
      0);
  const std::string before = piprov::test::read_bytes(disk.path, 0, 1 << 20);
  const std::string cmd = "timeout 300 " + piprov::test::piprov_bin() + " provision --yes --progress none ";
  const std::string u = " --user-data " + q(shared("09-user-data-rpi-module-cloud-init-25.2"));
  auto refused = run(cmd + q(images_["24.1"]) + " " + disk.path + u);
  EXPECT_EQ(refused.exit_code, 2) << refused.out << refused.err;
  EXPECT_NE(refused.err.find("checked with cloud-init 24.1 schema, read from the image"), std::string::npos)
      << refused.err;
  EXPECT_EQ(piprov::test::read_bytes(disk.path, 0, 1 << 20), before) << "refused before any byte";
  for (const char* v : {"25.2", "26.2"}) {
    auto written = run(cmd + q(images_[v]) + " " + disk.path + u);
    ASSERT_EQ(written.exit_code, 0) << v << "\n" << written.out << written.err;
    auto user_data = run("MTOOLS_SKIP_CHECK=1 mtype -i " + q(disk.path + "@@1M") + " ::user-data");
    EXPECT_NE(user_data.out.find("rpi:"), std::string::npos) << v << "\n" << user_data.out << user_data.err;
  }
}

// seed check gives provision's verdict on every file of ../shared/data/cloud-init.
TEST_F(SeedJudge, SeedCheckGivesProvisionsVerdictOnEverySharedFile) {
  PIPROV_REQUIRE_LOOP();
  TempDir d("piprov-seed-verdict");
  piprov::test::LoopDevice disk(d.path / "disk.img", 512ull << 20);
  const std::string& img = images_["25.2"];
  const std::string provision = "timeout 300 " + piprov::test::piprov_bin() +
                                " provision --yes --progress none --json " + q(img) + " " + disk.path + " ";
  std::map<std::string, std::string> accepted;  // option -> file (one provision run for them, below)
  std::vector<std::pair<std::string, std::string>> more;
  for (const auto& e : fs::directory_iterator(*piprov::test::shared_data("cloud-init"))) {
    const std::string name = e.path().filename().string(), opt = option_for(name);
    const std::string files = opt + " " + q(e.path().string());
    auto check = run(seed_check("--image " + q(img) + " " + files));
    ASSERT_TRUE(check.exit_code == 0 || check.exit_code == 2) << name << ": " << check.err;
    if (check.exit_code == 2) {  // refused before any byte: the same findings and error line
      auto p = run(provision + files);
      EXPECT_EQ(p.exit_code, 2) << name << "\n" << p.err;
      EXPECT_EQ(p.err, check.err) << name;
    } else if (!accepted.count(opt)) {
      accepted[opt] = e.path().string();
    } else {
      more.emplace_back(opt, e.path().string());
    }
  }
  ASSERT_FALSE(accepted.empty());
  // The accepted ones are written (one run per set of one file of each kind), with the same findings.
  std::vector<std::map<std::string, std::string>> runs = {accepted};
  for (const auto& [opt, file] : more) runs.push_back({{opt, file}});
  for (const auto& set : runs) {
    std::string files;
    for (const auto& [opt, file] : set) files += " " + opt + " " + q(file);
    auto check = run(seed_check("--json --image " + q(img) + files));
    ASSERT_EQ(check.exit_code, 0) << files << check.err;
    auto p = run(provision + files);
    ASSERT_EQ(p.exit_code, 0) << files << "\n" << p.out << p.err;
    EXPECT_EQ(nlohmann::json::parse(p.out)["seed_check"], nlohmann::json::parse(check.out)["seed_check"]) << files;
  }
}
