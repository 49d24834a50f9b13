// The Wi-Fi country and the image's own seed on real images (trial 3 of issue 29, findings 1, 2,
// 11, 14b): regulatory-domain only for a netplan that reads it (0.105 on, canonical/netplan PR
// #281), --wifi-country alone writes no seed, the image's seed files a new seed replaces and the
// login it would lose; scripts/make-test-image.sh images, provision on real loop devices.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

#include "core/strings.hpp"
#include "support/testsupport.hpp"

namespace fs = std::filesystem;
using piprov::test::q;
using piprov::test::run;
using piprov::test::TempDir;

/// A noble image with cloud-init 24.1 and netplan 1.0 (its dpkg status), and a copy whose dpkg
/// status names netplan.io 0.99 (Ubuntu 20.04's), made once for the suite.
class WifiSeed : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir("piprov-wifi-seed");
    const fs::path img = dir_->path / "noble.img";
    if (auto why = piprov::test::make_test_image(img, 64, "noble", "24.1"); !why.empty()) {
      skip_reason_ = why;
      return;
    }
    noble_ = img.string();
    old_ = (dir_->path / "old.img").string();
    fs::copy_file(noble_, old_);
    const std::string start = std::string(piprov::trim(run("partx -g -o START -n 2 " + q(old_)).out));
    piprov::test::Mount root(old_, dir_->path / "old-root", "ext4",
                             "loop,offset=" + std::to_string(std::stoull(start) * 512));
    auto r = run("sed -i 's/^Version: 1.0-2ubuntu1$/Version: 0.99-0ubuntu3~20.04.2/' " +
                 q((root.dir / "var/lib/dpkg/status").string()));
    if (r.exit_code != 0) skip_reason_ = "sed: " + r.err;
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  void SetUp() override {
    PIPROV_REQUIRE_LOOP();
    if (!skip_reason_.empty()) PIPROV_SKIP(skip_reason_);
  }
  static std::string piprov() { return "timeout 300 " + piprov::test::piprov_bin(); }

  static TempDir* dir_;
  static std::string skip_reason_, noble_, old_;
};
TempDir* WifiSeed::dir_ = nullptr;
std::string WifiSeed::skip_reason_, WifiSeed::noble_, WifiSeed::old_;

namespace {

/// Puts Ubuntu 24.04's own seed (../shared/data/cloud-init 01, 02, 03) on the boot partition of `img`.
void put_ubuntu_seed(const std::string& img) {
  const char* files[][2] = {{"01-ubuntu2404-pi-gadget-user-data", "user-data"},
                            {"02-ubuntu2404-pi-gadget-network-config", "network-config"},
                            {"03-ubuntu2404-pi-gadget-meta-data", "meta-data"}};
  for (const auto& [shared, name] : files) {
    auto src = piprov::test::shared_data(std::string("cloud-init/") + shared);
    ASSERT_TRUE(src);
    auto r = run("MTOOLS_SKIP_CHECK=1 mcopy -o -i " + q(img + "@@1M") + " " + q(src->string()) + " ::" + name);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
}

}  // namespace

// Finding 1: the image's netplan decides whether wlan0 carries regulatory-domain; the country is
// in the cmdline either way; a user file with the key is refused for the old netplan.
TEST_F(WifiSeed, RegulatoryDomainFollowsTheImagesNetplan) {
  TempDir d("piprov-wifi-seed-regdom");
  piprov::test::LoopDevice disk(d.path / "disk.img", 400ull << 20);
  piprov::test::write_file(d.path / "psk", "secretpass123\n");
  const std::string opts =
      " --hostname n1 --wifi-ssid home --wifi-psk-file " + q((d.path / "psk").string()) + " --wifi-country DE";
  for (const auto& [img, netplan, in_netplan] :
       std::vector<std::tuple<std::string, std::string, bool>>{{noble_, "1.0", true}, {old_, "0.99", false}}) {
    auto r = run(piprov() + " provision --dry-run --json " + q(img) + " " + disk.path + opts);
    ASSERT_EQ(r.exit_code, 0) << netplan << r.out << r.err;
    const auto t = nlohmann::json::parse(r.out)["targets"][0];
    const auto wlan = YAML::Load(t["seed_files"]["network-config"].get<std::string>())["wifis"]["wlan0"];
    EXPECT_TRUE(wlan["access-points"]["home"]) << netplan;
    EXPECT_EQ(static_cast<bool>(wlan["regulatory-domain"]), in_netplan) << netplan;
    EXPECT_EQ(t["regdom_set"], nlohmann::json::array({"cmdline.txt"})) << netplan;
    if (in_netplan) {
      EXPECT_EQ(wlan["regulatory-domain"].as<std::string>(), "DE");
      EXPECT_TRUE(t["regdom_note"].is_null()) << t.dump();
    } else {
      EXPECT_NE(t["regdom_note"].get<std::string>().find("netplan 0.99, read from the image, refuses it"),
                std::string::npos)
          << t.dump();
    }
  }
  auto text = run(piprov() + " provision --dry-run " + q(old_) + " " + disk.path + opts);
  EXPECT_NE(text.out.find("  wifi country: network-config has no regulatory-domain for wlan0 (netplan 0.99, read "
                          "from the image, refuses it;"),
            std::string::npos)
      << text.out;
  // A user's network-config with the key, judged by each image's netplan.
  piprov::test::write_file(d.path / "wifi.yaml",
                           "version: 2\nwifis:\n  wlan0:\n    dhcp4: true\n    regulatory-domain: \"DE\"\n"
                           "    access-points:\n      \"home\":\n        password: \"secretpass123\"\n");
  const std::string check =
      piprov::test::piprov_bin() + " seed check --network-config " + q((d.path / "wifi.yaml").string()) + " --image ";
  auto refused = run(check + q(old_));
  EXPECT_EQ(refused.exit_code, 2) << refused.out << refused.err;
  EXPECT_NE(refused.err.find("seed-network-netplan-version: " + (d.path / "wifi.yaml").string() +
                             ": wifis.wlan0: 'regulatory-domain' is refused by netplan 0.99, read from the image"),
            std::string::npos)
      << refused.err;
  auto read = run(check + q(noble_));
  EXPECT_EQ(read.exit_code, 0) << read.out << read.err;
  EXPECT_NE(read.out.find("0 error(s), 0 warning(s), 1 info"), std::string::npos) << read.out << read.err;
}

// Finding 2: the image's own seed is named when replaced, a lost login is warned of; a seed with
// its own login is not warned of; --wifi-country alone keeps the image's seed.
TEST_F(WifiSeed, TheImagesOwnSeedIsNamedAndALostLoginWarned) {
  TempDir d("piprov-wifi-seed-stock");
  const std::string img = (d.path / "stock.img").string();
  fs::copy_file(noble_, img);
  ASSERT_NO_FATAL_FAILURE(put_ubuntu_seed(img));
  piprov::test::LoopDevice disk(d.path / "disk.img", 400ull << 20);
  const std::string dry = piprov() + " provision --dry-run " + q(img) + " " + disk.path;
  auto r = run(dry + " --hostname n1");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;  // a warning: the exit code is the boot check's
  EXPECT_NE(r.out.find("  seed: replaces the image's user-data, network-config, meta-data (on the boot partition)\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  seed: WARNING: the image's user-data gave a way to log in (chpasswd: a password for "
                       "ubuntu) and the new seed gives none: the node will have no console or SSH login"),
            std::string::npos)
      << r.out;
  piprov::test::write_file(d.path / "id.pub",
                           "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl a@b\n");
  auto keyed = run(dry + " --json --hostname n1 --user admin --ssh-key " + q((d.path / "id.pub").string()));
  ASSERT_EQ(keyed.exit_code, 0) << keyed.out << keyed.err;
  const auto t = nlohmann::json::parse(keyed.out)["targets"][0];
  EXPECT_EQ(t["replaced_seed_files"], nlohmann::json::array({"user-data", "network-config", "meta-data"}));
  EXPECT_TRUE(t["login_warning"].is_null()) << t.dump();
  // --user bob with neither a key nor a password hash: bob is locked, no default user: warned, and
  // the fix names the options (trial 7 finding 8).
  auto bob = run(dry + " --json --hostname n1 --user bob");
  ASSERT_EQ(bob.exit_code, 0) << bob.out << bob.err;
  const std::string bw = nlohmann::json::parse(bob.out)["targets"][0]["login_warning"].get<std::string>();
  EXPECT_NE(bw.find("the node will have no console or SSH login"), std::string::npos) << bw;
  EXPECT_NE(bw.find("add --ssh-key FILE or --password-hash HASH"), std::string::npos) << bw;
  EXPECT_EQ(bw.find("'- default'"), std::string::npos) << bw;
  // The same on the image without a seed of its own (nothing lost, but no login either).
  auto plain = run(piprov() + " provision --dry-run --json " + q(noble_) + " " + disk.path + " --user bob");
  ASSERT_EQ(plain.exit_code, 0) << plain.out << plain.err;
  EXPECT_EQ(nlohmann::json::parse(plain.out)["targets"][0]["login_warning"],
            "the user-data's users list has no 'default' and gives 'bob' no SSH key and no password (cloud-init "
            "locks a user's password unless lock_passwd: false; cloud-init docs, Users and Groups): the node will "
            "have no console or SSH login; add --ssh-key FILE or --password-hash HASH")
      << plain.out;
  // --wifi-country alone: only the cmdline; no seed file planned.
  auto country = run(dry + " --json --wifi-country DE");
  ASSERT_EQ(country.exit_code, 0) << country.out << country.err;
  const auto c = nlohmann::json::parse(country.out)["targets"][0];
  EXPECT_EQ(c["seed_files"], nlohmann::json::object());
  EXPECT_EQ(c["regdom_set"], nlohmann::json::array({"cmdline.txt"}));
  EXPECT_TRUE(c["replaced_seed_files"].empty());

  // The real run: the seed step says it, the disk holds the new seed.
  auto real = run(piprov() + " provision --yes --progress none " + q(img) + " " + disk.path + " --hostname n1");
  EXPECT_EQ(real.exit_code, 0) << real.out << real.err;
  EXPECT_NE(real.out.find("; replaces the image's user-data, network-config, meta-data; WARNING: the image's "
                          "user-data gave a way to log in (chpasswd: a password for ubuntu)"),
            std::string::npos)
      << real.out;
  auto ud = run("MTOOLS_SKIP_CHECK=1 mtype -i " + q(disk.path + "p1") + " ::user-data");
  EXPECT_NE(ud.out.find("hostname: \"n1\""), std::string::npos) << ud.out;
  EXPECT_EQ(ud.out.find("chpasswd"), std::string::npos) << ud.out;
}

// Finding 2: --wifi-country alone onto an image without cloud-init: only cmdline.txt changes,
// no seed is written, and the image is not refused.
TEST_F(WifiSeed, WifiCountryAloneNeedsNoCloudInit) {
  TempDir d("piprov-wifi-seed-raspios");
  const fs::path img = d.path / "raspios.img";
  if (auto why = piprov::test::make_test_image(img, 64, "raspios"); !why.empty()) PIPROV_SKIP(why);
  piprov::test::LoopDevice disk(d.path / "disk.img", 400ull << 20);
  auto r =
      run(piprov() + " provision --yes --progress none " + q(img.string()) + " " + disk.path + " --wifi-country DE");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("cfg80211.ieee80211_regdom=DE in cmdline.txt; no cloud-init seed (--wifi-country alone "
                       "changes only the cmdline)"),
            std::string::npos)
      << r.out;
  auto cmdline = run("MTOOLS_SKIP_CHECK=1 mtype -i " + q(disk.path + "p1") + " ::cmdline.txt");
  EXPECT_NE(cmdline.out.find(" cfg80211.ieee80211_regdom=DE"), std::string::npos) << cmdline.out;
  EXPECT_NE(run("MTOOLS_SKIP_CHECK=1 mtype -i " + q(disk.path + "p1") + " ::user-data").exit_code, 0);
  // With another identity option the seed is wanted again, and refused for this image.
  auto seed = run(piprov() + " provision --dry-run " + q(img.string()) + " " + disk.path + " --hostname n1");
  EXPECT_EQ(seed.exit_code, 2) << seed.out << seed.err;
}

// Findings 11 and 14b: an empty --wifi-country and a one-value option given twice are one clear
// line each, exit 2.
TEST_F(WifiSeed, EmptyCountryAndARepeatedOptionAreRefused) {
  TempDir d("piprov-wifi-seed-options");
  piprov::test::LoopDevice disk(d.path / "disk.img", 400ull << 20);
  const std::string dry = piprov() + " provision --dry-run " + q(noble_) + " " + disk.path;
  auto empty = run(dry + " --hostname n1 --wifi-country ''");
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_EQ(empty.err,
            "piprov: error: --wifi-country: the country is empty: give the two-letter ISO 3166-1 code of the country "
            "the Pi is in (GB, DE, US), or leave the option out\n");
  auto twice = run(dry + " --ip 10.0.0.5/24 --gateway 10.0.0.1 --gateway fd00::1");
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_EQ(twice.err, "piprov: error: --gateway is given 2 times, but takes one value: give it once (see --help)\n");
  auto uk = run(dry + " --wifi-country UK");
  EXPECT_EQ(uk.exit_code, 2);
  EXPECT_NE(uk.err.find("did you mean GB?"), std::string::npos) << uk.err;
}
