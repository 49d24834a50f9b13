// Target rules that need no root: write sizes, partition names, files.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "image/partitions.hpp"
#include "image/target.hpp"
#include "support/testsupport.hpp"

namespace piprov::image {
namespace {

TEST(ChooseIoBytes, LargestMultipleOfMaxSectorsUpTo4MiB) {
  EXPECT_EQ(choose_io_bytes(0, 512), 4u << 20);         // unknown: 4 MiB
  EXPECT_EQ(choose_io_bytes(1280, 512), 3840u * 1024);  // loop default: 3 x 1280 KiB
  EXPECT_EQ(choose_io_bytes(120, 512), 4080u * 1024);   // old USB bridges: 34 x 120 KiB
  EXPECT_EQ(choose_io_bytes(512, 4096), 4u << 20);
  EXPECT_EQ(choose_io_bytes(32767, 512), 4u << 20);  // larger than 4 MiB: capped
}

TEST(PartitionPath, DigitEndingNamesTakeP) {
  EXPECT_EQ(partition_path("/dev/sdb", 1), "/dev/sdb1");
  EXPECT_EQ(partition_path("/dev/loop3", 2), "/dev/loop3p2");
  EXPECT_EQ(partition_path("/dev/mmcblk0", 1), "/dev/mmcblk0p1");
  EXPECT_EQ(partition_path("/dev/nvme0n1", 1), "/dev/nvme0n1p1");
}

// A udev link (/dev/disk/by-id/virtio-X, /dev/disk/by-path/...) names the disk;
// its partitions are the kernel's names of the disk it points at, not LINK + "1".
TEST(PartitionPath, SymlinkIsResolvedToTheDiskItNames) {
  test::TempDir d;
  std::filesystem::create_directories(d.path / "by-id");
  { std::ofstream(d.path / "vdc") << ""; }
  std::filesystem::create_symlink("../vdc", d.path / "by-id" / "virtio-piprov-ssd");
  const auto disk = std::filesystem::canonical(d.path / "vdc").string();
  EXPECT_EQ(partition_path((d.path / "by-id" / "virtio-piprov-ssd").string(), 1), disk + "1");
  EXPECT_EQ(partition_path((d.path / "by-id" / "missing").string(), 2), (d.path / "by-id" / "missing2").string());
}

TEST(InspectTarget, NewRegularFileIsAllowed) {
  test::TempDir d;
  auto t = inspect_target((d.path / "out.img").string());
  EXPECT_TRUE(t.is_file);
  EXPECT_FALSE(t.exists);
  EXPECT_GT(t.capacity, 0u);
  EXPECT_EQ(t.io_bytes, 4u << 20);
}

TEST(InspectTarget, ExistingFileIsMarkedForConfirmation) {
  test::TempDir d;
  test::write_file(d.path / "old.img", "12345");
  EXPECT_THROW(inspect_target((d.path / "old.img").string()), Error);  // needs --overwrite
  auto t = inspect_target((d.path / "old.img").string(), {.overwrite = true});
  EXPECT_TRUE(t.is_file);
  EXPECT_TRUE(t.exists);
  EXPECT_EQ(t.size, 5u);
  EXPECT_EQ(describe_target(t), (d.path / "old.img").string() + ": existing file, 5 B (it will be overwritten)");
}

TEST(InspectTarget, RefusesMissingDeviceDirectoryAndMissingParent) {
  try {
    inspect_target("/dev/sdzz9");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Usage);
    EXPECT_EQ(std::string(e.what()), "/dev/sdzz9 does not exist; run 'piprov devices' to list disks");
  }
  test::TempDir d;
  EXPECT_THROW(inspect_target(d.path.string()), Error);  // a directory
  EXPECT_THROW(inspect_target((d.path / "no/such/dir/x.img").string()), Error);
  EXPECT_THROW(inspect_target("/dev/null"), Error);  // a character device
}

TEST(CheckImageNotOnTarget, SameFileIsRefused) {
  test::TempDir d;
  test::write_file(d.path / "a.img", "x");
  auto t = inspect_target((d.path / "a.img").string(), {.overwrite = true});
  EXPECT_THROW(check_image_not_on_target((d.path / "a.img").string(), t), Error);
  test::write_file(d.path / "b.img", "x");
  EXPECT_NO_THROW(check_image_not_on_target((d.path / "b.img").string(), t));
}

}  // namespace
}  // namespace piprov::image

namespace piprov::image {
namespace {

// The disk holding / is refused by inspect_target() (which only reads sysfs;
// nothing is opened for writing, so a bug here cannot touch the disk).
TEST(InspectTarget, SystemDiskIsRefusedWithTheReason) {
  struct stat st {};
  ASSERT_EQ(::stat("/", &st), 0);
  std::string disk = disk_of_devno(st.st_dev);
  if (disk.empty() || !std::filesystem::exists("/dev/" + disk)) PIPROV_SKIP("/ is not on a block device here");
  try {
    inspect_target("/dev/" + disk);
    FAIL() << "/dev/" << disk << " holds / but was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Usage);
    std::string m = e.what();
    EXPECT_EQ(m.rfind("/dev/" + disk + " is a system disk (", 0), 0u) << m;
    EXPECT_NE(m.find(" is mounted at /"), std::string::npos) << m;
    EXPECT_NE(m.find("): piprov never writes it"), std::string::npos) << m;
  }
}

}  // namespace
}  // namespace piprov::image
