// `piprov boot check IMAGE` (issue 27 item 3): the .img.xz of
// scripts/make-test-image.sh's Ubuntu 20.04, 24.04 and 26.04 A/B layouts is
// checked through the image reader and gives the layout and findings of
// `boot check` on a disk written from it (a loop device; its boot partition
// copied out with mtools, its root fs mounted read-only); the image is not changed.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/testsupport.hpp"

namespace fs = std::filesystem;
using piprov::test::q;
using piprov::test::run;
using piprov::test::TempDir;

namespace {

/// What must be the same on the image and on the disk: each finding's rule, severity, line and key.
std::vector<std::string> image_check_findings(const nlohmann::json& j) {
  std::vector<std::string> out;
  for (const auto& f : j["findings"])
    out.push_back(f["rule"].get<std::string>() + " " + f["severity"].get<std::string>() + " " + f["line"].dump() + " " +
                  f["key"].dump());
  return out;
}

}  // namespace

TEST(BootCheckImage, GivesTheLayoutAndFindingsOfADiskWrittenFromIt) {
  PIPROV_REQUIRE_LOOP();
  PIPROV_REQUIRE_TOOL("mcopy");
  for (const char* layout : {"focal", "noble", "resolute"}) {
    SCOPED_TRACE(layout);
    TempDir d("piprov-image-check");
    const fs::path img = d.path / "image.img";
    if (auto why = piprov::test::make_test_image(img, 64, layout); !why.empty()) PIPROV_SKIP(why);
    const std::string xz = img.string() + ".xz";
    const std::string sum_before = run("sha256sum < " + q(xz)).out;

    auto on_image = run(piprov::test::piprov_bin() + " boot check --json " + q(xz));
    ASSERT_TRUE(on_image.exit_code == 0 || on_image.exit_code == 1) << on_image.err;
    const auto ji = nlohmann::json::parse(on_image.out);
    EXPECT_EQ(run("sha256sum < " + q(xz)).out, sum_before) << "boot check IMAGE writes nothing";

    // The disk written from it: the image's decoded bytes (the .img the .xz was made from) on a loop device.
    piprov::test::LoopDevice disk(img, fs::file_size(img), true);
    // make-test-image.sh's layout: p1 at sector 2048, p2 at 526336 (read by offset: no wait for udev's nodes).
    piprov::test::Mount root(disk.path, d.path / "root", "ext4", "ro,offset=" + std::to_string(526336ull * 512));
    ASSERT_NO_FATAL_FAILURE(piprov::test::copy_fat_out(disk.path + "@@1M", d.path / "boot"));
    auto on_disk = run(piprov::test::piprov_bin() + " boot check --json " + q((d.path / "boot").string()) + " --root " +
                       q(root.dir.string()));
    ASSERT_TRUE(on_disk.exit_code == 0 || on_disk.exit_code == 1) << on_disk.err;
    const auto jd = nlohmann::json::parse(on_disk.out);

    EXPECT_EQ(on_image.exit_code, on_disk.exit_code);
    EXPECT_EQ(ji["layout"], jd["layout"]);
    EXPECT_EQ(image_check_findings(ji), image_check_findings(jd));
    EXPECT_EQ(ji["summary"], jd["summary"]);
    EXPECT_FALSE(image_check_findings(ji).empty());
    // What the reader decoded: the boot partition and the root files read, not the root fs's free space.
    const auto& info = ji["image"];
    EXPECT_EQ(info["format"], "xz");
    EXPECT_TRUE(info["random_access"].get<bool>());
    EXPECT_TRUE(info["root_read"].get<bool>());
    EXPECT_EQ(info["boot_partition"], 1);
    EXPECT_GT(info["blocks_decoded"].get<std::uint64_t>(), 0u);
    EXPECT_LT(info["blocks_decoded"].get<std::uint64_t>(), info["blocks_total"].get<std::uint64_t>());
    EXPECT_GE(info["bytes_decoded"].get<std::uint64_t>(), 256ull << 20);  // the 256 MiB boot partition
  }
}

TEST(BootCheckImage, RefusesRootAndDeviceAndAnImageWithoutAFatPartition) {
  TempDir d("piprov-image-check-bad");
  piprov::test::write_file(d.path / "zeros.img", std::string(1 << 20, '\0'));
  auto none = run(piprov::test::piprov_bin() + " boot check " + q((d.path / "zeros.img").string()));
  EXPECT_EQ(none.exit_code, 2) << none.err;
  EXPECT_NE(none.err.find("has no FAT partition (no partition table"), std::string::npos) << none.err;
  auto root = run(piprov::test::piprov_bin() + " boot check " + q((d.path / "zeros.img").string()) + " --root /");
  EXPECT_EQ(root.exit_code, 2) << root.err;
  EXPECT_NE(root.err.find("--root is for a mounted BOOT_DIR"), std::string::npos) << root.err;
}
