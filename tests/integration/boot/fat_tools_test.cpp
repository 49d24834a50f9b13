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
