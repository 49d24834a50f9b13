// The mtools path of provision (hosts without the vfat module): a real FAT
// image made by mkfs.vfat, copied out, changed (a top-level file, a file in a
// subdirectory, a file in a new directory, one removed), written back and read
// again with mtype.
#include <gtest/gtest.h>

#include "boot/fat_tools.hpp"
#include "core/error.hpp"
#include "support/testsupport.hpp"

namespace fs = std::filesystem;
using piprov::test::q;
using piprov::test::read_file;
using piprov::test::run;
using piprov::test::write_file;

namespace {
std::string mtype(const std::string& img, const std::string& name) {
  auto r = run("MTOOLS_SKIP_CHECK=1 mtype -i " + q(img) + " " + q("::/" + name));
  return r.exit_code == 0 ? r.out : "<missing>";
}
}  // namespace

TEST(FatTools, WriteBackReachesSubdirectoriesAndNewDirectories) {
  PIPROV_REQUIRE_TOOL("mkfs.vfat");
  PIPROV_REQUIRE_TOOL("mcopy");
  piprov::test::TempDir d("fat-tools");
  std::string img = (d.path / "boot.img").string();
  ASSERT_EQ(run("truncate -s 16M " + q(img) + " && mkfs.vfat -n system-boot " + q(img)).exit_code, 0);
  fs::path src = d.path / "src";
  write_file(src / "config.txt", "[all]\nos_prefix=current/\n");
  write_file(src / "current" / "cmdline.txt", "root=PARTUUID=0a0b0c0d-02 rootwait\n");
  write_file(src / "old.txt", "to be removed\n");
  auto put = run("MTOOLS_SKIP_CHECK=1 mcopy -s -i " + q(img) + " " + q((src / "config.txt").string()) + " " +
                 q((src / "current").string()) + " " + q((src / "old.txt").string()) + " ::/");
  ASSERT_EQ(put.exit_code, 0) << put.err;

  fs::path dir = d.path / "out";
  fs::create_directories(dir);
  piprov::boot::fat_copy_out(img, dir);
  ASSERT_EQ(read_file(dir / "current" / "cmdline.txt"), "root=PARTUUID=0a0b0c0d-02 rootwait\n");
  auto before = piprov::boot::tree_hashes(dir);
  write_file(dir / "current" / "cmdline.txt", "root=PARTUUID=11223344-02 rootwait\n");
  write_file(dir / "config.txt", "[all]\nos_prefix=current/\n# edited\n");
  write_file(dir / "new" / "sub" / "note.txt", "made\n");
  fs::remove(dir / "old.txt");
  auto actions = piprov::boot::fat_write_back(img, dir, before);
  EXPECT_EQ(mtype(img, "current/cmdline.txt"), "root=PARTUUID=11223344-02 rootwait\n");
  EXPECT_EQ(mtype(img, "config.txt"), "[all]\nos_prefix=current/\n# edited\n");
  EXPECT_EQ(mtype(img, "new/sub/note.txt"), "made\n");
  EXPECT_EQ(mtype(img, "old.txt"), "<missing>");
  ASSERT_FALSE(actions.empty());
  EXPECT_EQ(actions.back(), "read back 3 files from " + img + ": all match");
  // config.txt and the cmdline file, which name the others, go after them.
  std::size_t cfg = 99, cmd = 99, note = 99, mkdir = 99;
  for (std::size_t i = 0; i < actions.size(); ++i) {
    if (actions[i].rfind("wrote config.txt", 0) == 0) cfg = i;
    if (actions[i].rfind("wrote current/cmdline.txt", 0) == 0) cmd = i;
    if (actions[i].rfind("wrote new/sub/note.txt", 0) == 0) note = i;
    if (actions[i].rfind("made the directory new/sub", 0) == 0) mkdir = i;
  }
  EXPECT_LT(mkdir, note);
  EXPECT_LT(note, cfg);
  EXPECT_LT(note, cmd);
  EXPECT_LT(cfg, actions.size());
  EXPECT_LT(cmd, actions.size());
}

namespace {

/// A 16 MiB FAT image at `img` holding config.txt and current/cmdline.txt.
void make_fat_image(const fs::path& dir, const std::string& img) {
  ASSERT_EQ(run("truncate -s 16M " + q(img) + " && mkfs.vfat -n system-boot " + q(img)).exit_code, 0);
  write_file(dir / "src" / "config.txt", "[all]\nkernel=vmlinux\n");
  write_file(dir / "src" / "current" / "cmdline.txt", "root=PARTUUID=0a0b0c0d-02\n");
  auto put = run("MTOOLS_SKIP_CHECK=1 mcopy -s -i " + q(img) + " " + q((dir / "src" / "config.txt").string()) + " " +
                 q((dir / "src" / "current").string()) + " ::/");
  ASSERT_EQ(put.exit_code, 0) << put.err;
}

/// True when this kernel can mount vfat (listed in /proc/filesystems, or a module to load).
bool kernel_has_vfat() { return run("grep -qw vfat /proc/filesystems || modprobe -n vfat 2>/dev/null").exit_code == 0; }

}  // namespace

/// A 16 MiB FAT image (config.txt, current/cmdline.txt) in a temp dir, made by mkfs.vfat and mcopy.
class FatDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    PIPROV_REQUIRE_TOOL("mkfs.vfat");
    PIPROV_REQUIRE_TOOL("mcopy");
    ASSERT_NO_FATAL_FAILURE(make_fat_image(d.path, img));
  }
  piprov::test::TempDir d{"fat-dir"};
  const std::string img = (d.path / "boot.img").string();
};

TEST_F(FatDirTest, CopyOnlyIsWrittenBackAndRemovedOnClose) {
  fs::path dir;
  {
    piprov::boot::FatDir view(img, {.writable = true, .mount = false});
    dir = view.dir();
    EXPECT_TRUE(view.copied());
    EXPECT_EQ(dir.filename().string().rfind("piprov-fat-", 0), 0u) << dir;
    EXPECT_EQ(read_file(dir / "current" / "cmdline.txt"), "root=PARTUUID=0a0b0c0d-02\n");
    write_file(dir / "config.txt", "[all]\nkernel=vmlinux\n# changed\n");
    auto actions = view.write_back();
    ASSERT_EQ(actions.size(), 2u);
    EXPECT_EQ(actions[0], "wrote config.txt to " + img + " (mtools)");
    EXPECT_EQ(actions[1], "read back 2 files from " + img + ": all match");
    EXPECT_EQ(view.close(), "");
    EXPECT_FALSE(fs::exists(dir));
    EXPECT_EQ(view.close(), "");  // a second close: nothing left to do
  }
  EXPECT_EQ(mtype(img, "config.txt"), "[all]\nkernel=vmlinux\n# changed\n");
}

TEST_F(FatDirTest, ReadOnlyCopyOfNamedFilesInTheCallersDirectory) {
  const fs::path dir = d.path / "view";
  fs::create_directory(dir);
  {
    piprov::boot::FatDir view(img, {.mount = false, .names = {"config.txt", "autoboot.txt"}, .dir = dir});
    EXPECT_EQ(view.dir(), dir);
    EXPECT_EQ(piprov::test::read_tree(dir),
              (std::map<std::string, std::string>{{"config.txt", "[all]\nkernel=vmlinux\n"}}));  // autoboot.txt: none
    EXPECT_TRUE(view.write_back().empty());  // read-only: nothing goes back
  }
  EXPECT_TRUE(fs::is_directory(dir));  // the caller's directory stays, emptied
  EXPECT_TRUE(fs::is_empty(dir));
}

TEST_F(FatDirTest, MountsALoopPartitionOrCopiesWithoutVfat) {
  PIPROV_REQUIRE_LOOP();
  const bool vfat = kernel_has_vfat();
  {
    piprov::test::LoopDevice loop(img, 16u << 20);
    fs::path dir;
    {
      piprov::boot::FatDir view(loop.path, {.writable = true});
      dir = view.dir();
      EXPECT_EQ(view.copied(), !vfat);
      write_file(dir / "current" / "cmdline.txt", "root=PARTUUID=11223344-02\n");
      const auto actions = view.write_back();
      EXPECT_EQ(actions.empty(), vfat);  // a mount writes through the kernel; a copy goes back with mtools
      EXPECT_EQ(view.close(), "");
      EXPECT_FALSE(fs::exists(dir));
    }
    // A view of a partition mounted already is its mount point, left mounted.
    if (vfat) {
      piprov::test::Mount m(loop.path, d.path / "mnt", "vfat", "ro");
      {
        const piprov::boot::FatDir view(loop.path, {.mountpoint = m.dir.string()});
        EXPECT_EQ(view.dir(), m.dir);
        EXPECT_FALSE(view.copied());
      }
      EXPECT_EQ(read_file(m.dir / "current" / "cmdline.txt"), "root=PARTUUID=11223344-02\n");
    }
  }
  EXPECT_EQ(mtype(img, "current/cmdline.txt"), "root=PARTUUID=11223344-02\n");
}
