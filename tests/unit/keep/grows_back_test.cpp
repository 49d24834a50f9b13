// Whether a root fs shrunk by `backup --shrink` grows back by itself (trial 7 finding 9):
// cloud-init's growpart and resizefs as its configuration files enable them (the real cloud.cfg
// of this machine's cloud-init package, drop-ins written here), read from ext4 file systems made
// with mke2fs -d.
#include "keep/grows_back.hpp"

#include <gtest/gtest.h>

#include "support/testsupport.hpp"

namespace piprov::keep {
namespace {

std::string host_cloud_cfg() { return test::read_file("/etc/cloud/cloud.cfg"); }

TEST(CloudInitGrowth, ModulesAndTheirSettings) {
  PIPROV_REQUIRE_TOOL("cloud-init");
  const std::string cfg = host_cloud_cfg();  // Debian's: growpart and resizefs in cloud_init_modules
  EXPECT_TRUE(cloud_init_growth({cfg}).grows);
  EXPECT_EQ(cloud_init_growth({cfg}).why_not, "");
  EXPECT_EQ(cloud_init_growth({cfg, "growpart:\n  mode: 'off'\n"}).why_not, "growpart: mode: off");
  EXPECT_EQ(cloud_init_growth({cfg, "growpart: {mode: false}\n"}).why_not, "growpart: mode: false");
  // A later file turns it on again (a dict merged key by key; the last mode counts).
  EXPECT_TRUE(cloud_init_growth({cfg, "growpart: {mode: 'off'}\n", "growpart: {mode: auto}\n"}).grows);
  EXPECT_EQ(cloud_init_growth({cfg, "growpart: {devices: ['/boot']}\n"}).why_not, "growpart: devices does not name /");
  EXPECT_EQ(cloud_init_growth({cfg, "resize_rootfs: false\n"}).why_not, "resize_rootfs: false");
  EXPECT_TRUE(cloud_init_growth({cfg, "resize_rootfs: noblock\n"}).grows);
  // A drop-in's module list replaces the list.
  EXPECT_EQ(cloud_init_growth({cfg, "cloud_init_modules: [seed_random, resizefs]\n"}).why_not,
            "growpart is not in cloud_init_modules");
  EXPECT_TRUE(
      cloud_init_growth({"cloud_init_modules:\n  - [growpart, always]\n  - {name: resizefs, frequency: always}\n"})
          .grows);
  EXPECT_EQ(cloud_init_growth({"cloud_init_modules: [growpart]\n"}).why_not, "resizefs is not in cloud_init_modules");
  // No module list (a stand-in cloud.cfg), or text that is not YAML: nothing runs.
  EXPECT_EQ(cloud_init_growth({"datasource_list: [ NoCloud, None ]\n"}).why_not,
            "growpart is not in cloud_init_modules");
  EXPECT_TRUE(cloud_init_growth({cfg, "growpart: [unclosed\n"}).grows);
}

/// An ext4 image file holding the tree `files` (mke2fs -d), its path.
std::string ext4_of(const test::TempDir& tmp, const std::string& name) {
  const auto img = tmp.path / (name + ".ext4");
  auto r = test::run("truncate -s 8M " + test::q(img.string()) + " && mke2fs -q -t ext4 -d " +
                     test::q((tmp.path / name).string()) + " " + test::q(img.string()));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  return img.string();
}

TEST(RootGrowsBack, ReadFromTheRootFileSystem) {
  PIPROV_REQUIRE_TOOL("cloud-init");
  PIPROV_REQUIRE_TOOL("mke2fs");
  test::TempDir tmp("piprov-grows");
  const std::string cfg = host_cloud_cfg();
  // Ubuntu's way: cloud-init with growpart and resizefs.
  test::write_file(tmp.path / "ci" / "etc" / "cloud" / "cloud.cfg", cfg);
  test::write_file(tmp.path / "ci" / "etc" / "cloud" / "cloud.cfg.d" / "10-off.cfg", "growpart: {mode: 'off'}\n");
  test::write_file(tmp.path / "ci" / "etc" / "cloud" / "cloud.cfg.d" / "20-on.cfg", "growpart: {mode: auto}\n");
  test::write_file(tmp.path / "ci" / "etc" / "cloud" / "cloud.cfg.d" / "README", "growpart: {mode: 'off'}\n");
  EXPECT_EQ(root_grows_back_on(ext4_of(tmp, "ci")),
            "it grows back to fill the disk at every boot (cloud-init's growpart and resizefs)");
  // A drop-in that turns growpart off (read in lexical order: 30 after 20).
  test::write_file(tmp.path / "off" / "etc" / "cloud" / "cloud.cfg", cfg);
  test::write_file(tmp.path / "off" / "etc" / "cloud" / "cloud.cfg.d" / "20-on.cfg", "growpart: {mode: auto}\n");
  test::write_file(tmp.path / "off" / "etc" / "cloud" / "cloud.cfg.d" / "30-off.cfg", "growpart: {mode: 'off'}\n");
  EXPECT_EQ(root_grows_back_on(ext4_of(tmp, "off")),
            "it does not grow back by itself (cloud-init's growpart: mode: off): after writing it, grow it "
            "(growpart DISK N, then resize2fs)");
  // /etc/growroot-disabled, and cloud-init disabled.
  test::write_file(tmp.path / "gd" / "etc" / "cloud" / "cloud.cfg", cfg);
  test::write_file(tmp.path / "gd" / "etc" / "growroot-disabled", "");
  EXPECT_EQ(root_grows_back_on(ext4_of(tmp, "gd")),
            "it does not grow back by itself (cloud-init's growpart is disabled: /etc/growroot-disabled): after "
            "writing it, grow it (growpart DISK N, then resize2fs)");
  test::write_file(tmp.path / "cd" / "etc" / "cloud" / "cloud.cfg", cfg);
  test::write_file(tmp.path / "cd" / "etc" / "cloud" / "cloud-init.disabled", "");
  EXPECT_NE(root_grows_back_on(ext4_of(tmp, "cd"))
                .find("does not grow back by itself (cloud-init is disabled: /etc/cloud/cloud-init.disabled)"),
            std::string::npos);
  // No cloud-init (Raspberry Pi OS: its root grows on the first boot only).
  test::write_file(tmp.path / "rpi" / "etc" / "hostname", "raspberrypi\n");
  EXPECT_EQ(root_grows_back_on(ext4_of(tmp, "rpi")),
            "it does not grow back by itself: after writing it, grow it (growpart DISK N, then resize2fs; Raspberry "
            "Pi OS: sudo raspi-config --expand-rootfs)");
}

}  // namespace
}  // namespace piprov::keep
