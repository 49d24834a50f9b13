// The images of the free-space tests (skip_free_test.cpp, decode_only_test.cpp).
#include "skip_fixture.hpp"

#include <gtest/gtest.h>

#include <regex>

namespace piprov::test {

/// Runs a shell script, failing the test with its output when it fails.
void sh(const std::string& script) {
  auto r = run("set -e\n" + script);
  ASSERT_EQ(r.exit_code, 0) << script << "\n" << r.out << r.err;
}

/// A 64 MiB image: partition 1 FAT (16 MiB, "BOOT") when `with_fat`, then an
/// ext4 ("writable", MBR type `ext_type`) made by mke2fs -d with ~12 MiB of
/// files, 8 MiB block groups; `mke2fs_opts` adds options (-O ^flex_bg).
SkipImage make_skip_image(const std::filesystem::path& dir, bool with_fat, const std::string& ext_type,
                          const std::string& mke2fs_opts) {
  SkipImage s;
  s.img = dir / "t.img";
  const std::uint64_t ext_start = with_fat ? 34816 : 2048;  // sectors
  s.ext_offset = ext_start * 512;
  const std::uint64_t ext_sectors = kSkipImgBytes / 512 - ext_start;
  std::string table = "label: dos\n";
  if (with_fat) table += "start=2048, size=32768, type=c\n";
  table += "start=" + std::to_string(ext_start) + ", size=" + std::to_string(ext_sectors) + ", type=" + ext_type + "\n";
  sh("cd " + q(dir.string()) + "\nmkdir -p root/dir boot\n" +
     "head -c 6M /dev/urandom > root/big.bin\nhead -c 3M /dev/urandom > root/dir/mid.bin\n"
     "for i in $(seq 1 40); do head -c $((i * 997)) /dev/urandom > root/dir/f$i; done\n"
     "head -c 2M /dev/urandom > boot/kernel.img\necho 'console=tty1' > boot/cmdline.txt\n"
     "truncate -s " +
     std::to_string(kSkipImgBytes) + " t.img\n" + "printf '" + table + "' | sfdisk -q t.img\n" +
     "mke2fs -q -F -t ext4 -b 4096 -g 2048 -L writable " + mke2fs_opts + " -d root ext.img " +
     std::to_string(ext_sectors / 8) + "\n" + "dd if=ext.img of=t.img bs=512 seek=" + std::to_string(ext_start) +
     " conv=notrunc status=none\n" +
     (with_fat ? "mkfs.vfat -n BOOT -C fat.img 16384 >/dev/null\nmcopy -s -i fat.img boot/* ::\n"
                 "dd if=fat.img of=t.img bs=512 seek=2048 conv=notrunc status=none\n"
               : ""));
  auto d = run("dumpe2fs " + q((dir / "ext.img").string()) + " 2>/dev/null");
  s.dumpe2fs = d.out;
  std::smatch m;
  if (std::regex_search(d.out, m, std::regex("\nFree blocks:\\s+(\\d+)"))) s.ext_free_bytes = std::stoull(m[1]) * 4096;
  return s;
}

/// A loop device whose backing file first holds a repeating pattern (not zeros).
std::unique_ptr<LoopDevice> patterned_loop(const std::filesystem::path& backing) {
  sh("yes piprov-was-here | head -c " + std::to_string(kSkipDevBytes) + " > " + q(backing.string()));
  return std::make_unique<LoopDevice>(backing, kSkipDevBytes);
}

nlohmann::json write_json(const std::string& img, const std::string& dev, const std::string& flags) {
  auto r = run(piprov_bin() + " write --yes --progress none --json " + flags + " " + q(img) + " " + dev);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  return r.exit_code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json::object();
}

/// Every file of partition `part` of the image and of the target is the same:
/// read through mounts (ext4), or with mtools (`fat`).
void expect_same_tree(const std::string& img_dev, const std::string& dev, int part, const std::filesystem::path& tmp,
                      bool fat) {
  const std::string p = "p" + std::to_string(part);
  // BLKPG (partx -a): also where the kernel does not scan the image's loop device for partitions.
  run("partx -a " + img_dev + " 2>/dev/null; for i in $(seq 100); do [ -b " + img_dev + p + " ] && [ -b " + dev + p +
      " ] && break; sleep 0.1; done");
  std::map<std::string, std::string> ta, tb;
  if (fat) {
    ASSERT_NO_FATAL_FAILURE(copy_fat_out(img_dev + p, tmp / ("img" + p)));
    ASSERT_NO_FATAL_FAILURE(copy_fat_out(dev + p, tmp / ("dev" + p)));
    ta = read_tree(tmp / ("img" + p)), tb = read_tree(tmp / ("dev" + p));
  } else {
    Mount a(img_dev + p, tmp / ("img" + p), "", "ro");
    Mount b(dev + p, tmp / ("dev" + p), "", "ro");
    ta = read_tree(a.dir), tb = read_tree(b.dir);
  }
  EXPECT_GE(ta.size(), 2u);
  EXPECT_TRUE(ta == tb) << "partition " << part << " differs";
}

bool whole_image_on(const std::filesystem::path& img, const std::string& dev) {
  return run("cmp -n " + std::to_string(kSkipImgBytes) + " " + q(img.string()) + " " + dev).exit_code == 0;
}

void run_fsck_and_compare(const SkipImage& s, const std::string& dev, const std::filesystem::path& tmp) {
  auto e = run("e2fsck -fn " + dev + "p2");
  EXPECT_EQ(e.exit_code, 0) << e.out << e.err;
  auto f = run("fsck.vfat -n " + dev + "p1");
  EXPECT_EQ(f.exit_code, 0) << f.out << f.err;
  LoopDevice image(s.img, 0, true);
  expect_same_tree(image.path, dev, 1, tmp, true);
  expect_same_tree(image.path, dev, 2, tmp);
}

}  // namespace piprov::test
