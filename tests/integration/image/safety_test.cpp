// The disk a user did not mean must be impossible to hit: partitions, mounted
// disks (unless --unmount), read-only devices, images larger than the target,
// no confirmation without a terminal.
#include <gtest/gtest.h>

#include "core/mounts.hpp"
#include "fixtures.hpp"
#include "support/testsupport.hpp"

namespace piprov::test {
namespace {

/// Writes the image, so the loop device has partitions p1 (vfat) and p2 (ext4).
void prepare(const LoopDevice& dev) {
  auto r = run(write_cmd((image_fixtures() / "t.img.xz").string(), dev.path, "--yes --no-verify"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
}

bool is_mounted(const std::string& dir) {
  for (const auto& m : mount_table())
    if (m.target == dir) return true;
  return false;
}

TEST(WriteSafety, PartitionIsRefusedNamingTheWholeDisk) {
  PIPROV_REQUIRE_LOOP();
  TempDir tmp("piprov-safety");
  LoopDevice dev(tmp.path / "dev.img", kDevBytes);
  prepare(dev);
  auto r = run(write_cmd((image_fixtures() / "t.img.xz").string(), dev.path + "p1"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "piprov: error: " + dev.path + "p1 is a partition; give the whole disk (" + dev.path + ") instead\n");
}

TEST(WriteSafety, MountedTargetIsRefusedAndUnmountWorks) {
  PIPROV_REQUIRE_LOOP();
  TempDir tmp("piprov-safety");
  LoopDevice dev(tmp.path / "dev.img", kDevBytes);
  prepare(dev);
  // p2 is ext4 ("writable"); this kernel may lack vfat, ext4 is always there.
  Mount mounted(dev.path + "p2", tmp.path / "mnt");
  const auto& mnt = mounted.dir;
  auto refused = run(write_cmd((image_fixtures() / "t.img.xz").string(), dev.path));
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_EQ(refused.err, "piprov: error: " + dev.path + " has mounted file systems (" + dev.path + "p2 on " +
                             mnt.string() + "): unmount them or pass --unmount\n");
  EXPECT_TRUE(is_mounted(mnt.string()));

  auto ok = run(write_cmd((image_fixtures() / "t.img.xz").string(), dev.path, "--yes --unmount"));
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_NE(ok.err.find("unmounted " + dev.path + "p2 from " + mnt.string()), std::string::npos) << ok.err;
  EXPECT_FALSE(is_mounted(mnt.string()));
}

TEST(WriteSafety, ImageLargerThanTargetIsRefusedWithNothingWritten) {
  PIPROV_REQUIRE_LOOP();
  const auto& fx = image_fixtures();
  TempDir tmp("piprov-safety");
  LoopDevice dev(tmp.path / "dev.img", 64ull << 20);
  auto r = run(write_cmd((fx / "t.img.xz").string(), dev.path));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "piprov: error: the image " + (fx / "t.img.xz").string() + " (321.0 MiB, " +
                       std::to_string(fx.img_size) + " bytes) is larger than " + dev.path +
                       " (64.0 MiB, 67108864 bytes): nothing was written\n");
  EXPECT_TRUE(all_zero(read_file(dev.backing)));
}

TEST(WriteSafety, ReadOnlyDeviceIsRefused) {
  PIPROV_REQUIRE_LOOP();
  TempDir tmp("piprov-safety");
  LoopDevice dev(tmp.path / "dev.img", kDevBytes, /*read_only=*/true);
  auto r = run(write_cmd((image_fixtures() / "t.img.xz").string(), dev.path));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "piprov: error: " + dev.path +
                       " is read-only: check the write-protect switch (SD adapters) or the device's ro flag\n");
}

// The backing file of a loop device is that disk: writing it as a "file"
// would corrupt its (possibly mounted) file systems.
TEST(WriteSafety, LoopBackingFileIsRefusedEvenWithOverwrite) {
  PIPROV_REQUIRE_LOOP();
  TempDir tmp("piprov-safety");
  LoopDevice dev(tmp.path / "dev.img", 64ull << 20);
  write_file(tmp.path / "small.img", std::string(1 << 20, 'x'));
  auto backing = std::filesystem::canonical(dev.backing).string();
  auto r = run(write_cmd((tmp.path / "small.img").string(), backing, "--yes --overwrite"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "piprov: error: " + backing + " is the backing file of " + dev.path +
                       ": writing it would corrupt that disk under its users; detach it first (losetup -d " + dev.path +
                       ")\n");
  EXPECT_EQ(std::filesystem::file_size(dev.backing), 64ull << 20);
}

TEST(WriteSafety, NoTerminalAndNoYesRefusesBeforeWriting) {
  PIPROV_REQUIRE_LOOP();
  TempDir tmp("piprov-safety");
  LoopDevice dev(tmp.path / "dev.img", 64ull << 20);
  // A raw image that fits the 64 MiB device; stdin is /dev/null in run().
  write_file(tmp.path / "small.img", std::string(1 << 20, 'x'));
  auto r = run(write_cmd((tmp.path / "small.img").string(), dev.path, ""));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "piprov: error: no terminal to ask for confirmation on: pass --yes to write without asking\n");
  EXPECT_TRUE(all_zero(read_bytes(dev.backing, 0, 2 << 20)));
}

TEST(WriteSafety, ZipWithTwoFilesIsRefused) {
  PIPROV_REQUIRE_LOOP();
  const auto& fx = image_fixtures();
  TempDir tmp("piprov-safety");
  LoopDevice dev(tmp.path / "dev.img", kDevBytes);
  auto r = run(write_cmd((fx / "two.zip").string(), dev.path));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "piprov: error: " + (fx / "two.zip").string() +
                       " holds 2 files (t.img.gz, t.img.lz4): a zip must hold exactly one image; unpack it and "
                       "give the image file\n");
}

}  // namespace
}  // namespace piprov::test
