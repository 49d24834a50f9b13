#include <gtest/gtest.h>

#include <sstream>

#include "core/error.hpp"
#include "core/file.hpp"
#include "support/testsupport.hpp"

using namespace piprov;

TEST(ReadCapped, StreamUpToTheCapIsReturnedWhole) {
  std::istringstream exact("abcdefgh");
  auto got = read_capped(exact, 8, "input");
  ASSERT_TRUE(got);
  EXPECT_EQ(*got, "abcdefgh");
  std::istringstream shorter("abc");
  EXPECT_EQ(read_capped(shorter, 8, "input").value(), "abc");
  std::istringstream empty("");
  EXPECT_EQ(read_capped(empty, 8, "input").value(), "");
}

TEST(ReadCapped, OneByteOverTheCapIsRefused) {
  std::istringstream over("abcdefghi");
  EXPECT_FALSE(read_capped(over, 8, "input"));
}

TEST(ReadCapped, EndlessDeviceIsRefusedAfterABoundedRead) {
  // /dev/zero never ends: the read must stop one byte past the cap.
  auto got = read_file_capped("/dev/zero", 4096, "config");
  EXPECT_FALSE(got);
}

TEST(ReadCapped, FileIsReadAndMissingFileIsAUsageErrorNamingIt) {
  test::TempDir d;
  test::write_file(d.path / "bootconf.txt", "[all]\nBOOT_ORDER=0xf41\n");
  EXPECT_EQ(read_file_capped((d.path / "bootconf.txt").string(), 1024, "config").value(), "[all]\nBOOT_ORDER=0xf41\n");
  auto missing = (d.path / "nope.txt").string();
  try {
    (void)read_file_capped(missing, 1024, "config");
    FAIL() << "no error for a missing file";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Usage);
    EXPECT_EQ(std::string(e.what()), missing + " does not exist: give the path of the config file");
  }
}

TEST(ReadCapped, DirectoryIsAUsageError) {
  test::TempDir d;
  try {
    (void)read_file_capped(d.path.string(), 1024, "fio output");
    FAIL() << "no error for a directory";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Usage);
    EXPECT_EQ(std::string(e.what()), d.path.string() + " is a directory; give the fio output file");
  }
}

namespace piprov {
namespace {

TEST(ReadFile, WholeFileOrAnErrorNamingIt) {
  test::TempDir d;
  test::write_file(d.path / "a.bin", std::string("a\0b", 3));
  EXPECT_EQ(read_file(d.path / "a.bin"), std::string("a\0b", 3));
  try {
    (void)read_file(d.path / "nope");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Io);
    EXPECT_EQ(std::string(e.what()),
              "cannot read " + (d.path / "nope").string() + ": No such file or directory (ENOENT)");
  }
  try {
    (void)read_file(d.path);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Usage);
    EXPECT_EQ(std::string(e.what()), d.path.string() + " is a directory; give a file");
  }
}

TEST(ReadFile, IfExistsIsNulloptOnlyForAbsentFiles) {
  test::TempDir d;
  test::write_file(d.path / "config.txt", "[pi4]\n");
  EXPECT_EQ(read_file_if_exists(d.path / "config.txt").value(), "[pi4]\n");
  EXPECT_FALSE(read_file_if_exists(d.path / "missing.txt"));
  EXPECT_FALSE(read_file_if_exists(d.path / "config.txt" / "below-a-file"));  // ENOTDIR
  EXPECT_THROW((void)read_file_if_exists(d.path), Error);                     // a directory is not absent
}

}  // namespace
}  // namespace piprov
