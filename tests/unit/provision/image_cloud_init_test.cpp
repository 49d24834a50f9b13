// The versions read from an image's dpkg status (provision/seed/image_cloud_init.hpp)
// and the closeness rule of the "did you mean" rename (seed check).
#include <gtest/gtest.h>

#include "provision/seed/image_cloud_init.hpp"
#include "provision/seed/seed_check.hpp"
#include "support/testsupport.hpp"

using piprov::provision::compare_versions;
using piprov::provision::dpkg_installed_version;
using piprov::provision::upstream_version;

TEST(ImageCloudInit, UpstreamVersionDropsEpochAndDebianRevision) {
  EXPECT_EQ(upstream_version("24.1.3-0ubuntu3"), "24.1.3");
  EXPECT_EQ(upstream_version("1:25.2-0ubuntu1~24.04.1"), "25.2");
  EXPECT_EQ(upstream_version("0.103-0ubuntu5~20.04.6"), "0.103");
  EXPECT_EQ(upstream_version("22.4.2-1+deb12u1"), "22.4.2");
  EXPECT_EQ(upstream_version("25.2"), "25.2");
  EXPECT_EQ(upstream_version(""), "");
}

TEST(ImageCloudInit, VersionsCompareNumerically) {
  EXPECT_LT(compare_versions("0.99", "0.103"), 0);
  EXPECT_LT(compare_versions("0.103", "1.0"), 0);
  EXPECT_EQ(compare_versions("0.103", "0.103.0"), 0);
  EXPECT_GT(compare_versions("25.2", "24.1.3"), 0);
}

TEST(ImageCloudInit, DpkgStatusGivesTheInstalledVersionOnly) {
  const std::string status =
      "Package: cloud-init\nStatus: deinstall ok config-files\nVersion: 20.1-0ubuntu1\n\n"
      "Package: netplan.io\nStatus: install ok installed\nPriority: important\nVersion: 1.0-2ubuntu1\n"
      "Description: YAML network configuration\n multi-line\n\n"
      "Package: cloud-init-base\nStatus: install ok installed\nVersion: 9.9\n";
  EXPECT_EQ(dpkg_installed_version(status, "netplan.io"), "1.0-2ubuntu1");
  EXPECT_EQ(dpkg_installed_version(status, "cloud-init"), "") << "removed, its config files kept";
  EXPECT_EQ(dpkg_installed_version(status, "cloud-init-base"), "9.9") << "the last stanza without a blank line";
  EXPECT_EQ(dpkg_installed_version(status, "cloud"), "");
}

// A rename is suggested for a close name only (cloud-init 22.4.2's schema, installed here).
TEST(ImageCloudInit, ARenameIsSuggestedOnlyForACloseName) {
  const char* schema = "/usr/lib/python3/dist-packages/cloudinit/config/schemas/schema-cloud-config-v1.json";
  if (!std::filesystem::exists(schema)) PIPROV_SKIP("cloud-init's schema is not installed here");
  auto fix_for = [&](const std::string& text) {
    auto c = piprov::provision::check_user_data(text, "u", {.schema_path = schema});
    for (const auto& f : c.findings)
      if (f.severity == piprov::Severity::Error) return f.fix;
    return std::string("<no error>");
  };
  // rpi is cloud-init 25.2's module: judged by this workstation's 22.4.2 it is a warning
  // (seed-cloud-init-version), never "did you mean 'apt'" nor an error.
  EXPECT_EQ(fix_for("#cloud-config\nrpi:\n  interfaces: {}\n"), "<no error>");
  EXPECT_EQ(fix_for("#cloud-config\nrpx:\n  interfaces: {}\n"), "remove 'rpx' or correct its spelling");
  EXPECT_EQ(fix_for("#cloud-config\nhostnme: a\n"), "did you mean 'hostname'? rename 'hostnme' to 'hostname'");
  EXPECT_EQ(fix_for("#cloud-config\nenable_ssh: true\n"), "remove 'enable_ssh' or correct its spelling");
}
