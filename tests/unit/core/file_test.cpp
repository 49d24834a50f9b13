#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <future>
#include <span>
#include <sstream>

#include "core/error.hpp"
#include "core/fd.hpp"
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

// Only a regular file is read: /dev/zero (a character device that never
// ends) is refused before the first read, not read up to the cap.
TEST(ReadCapped, CharacterDeviceIsRefusedAsNotARegularFile) {
  test::expect_error(ErrorKind::Usage,
                     "/dev/zero is not a regular file: pass a file (or - for standard input where supported)",
                     [] { (void)read_file_capped("/dev/zero", 4096, "config"); });
}

// A FIFO with no writer: a blocking open(2) would wait forever. The open must
// return at once and the FIFO be refused; the test runs the read on a thread
// and gives it 10 s.
TEST(ReadCapped, FifoWithoutWriterIsRefusedWithoutBlocking) {
  test::TempDir d;
  const std::string fifo = (d.path / "user-data").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  auto done = std::async(std::launch::async, [&]() -> std::string {
    try {
      (void)read_file_capped(fifo, 1024, "--user-data");
      return "read";
    } catch (const Error& e) {
      return std::to_string(static_cast<int>(e.kind())) + " " + e.what();
    }
  });
  if (done.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
    UniqueFd unblock(::open(fifo.c_str(), O_WRONLY | O_NONBLOCK));  // lets a blocked open return
    ADD_FAILURE() << "read_file_capped blocked on a FIFO";
  }
  EXPECT_EQ(done.get(), "2 " + fifo + " is not a regular file: pass a file (or - for standard input where supported)");
}

// A symlink to a regular file is a regular file.
TEST(ReadCapped, SymlinkToAFileIsRead) {
  test::TempDir d;
  test::write_file(d.path / "bootconf.txt", "[all]\n");
  std::filesystem::create_symlink(d.path / "bootconf.txt", d.path / "link");
  EXPECT_EQ(read_file_capped((d.path / "link").string(), 1024, "config").value(), "[all]\n");
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
    EXPECT_EQ(std::string(e.what()),
              d.path.string() + " is not a regular file: pass a file (or - for standard input where supported)");
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

TEST(ReadFilePart, BytesAtAnOffsetShortAtTheEndEmptyPastIt) {
  test::TempDir d;
  test::write_file(d.path / "k.img", "0123456789");
  EXPECT_EQ(read_file_part(d.path / "k.img", 0, 4), "0123");
  EXPECT_EQ(read_file_part(d.path / "k.img", 6, 8), "6789");
  EXPECT_EQ(read_file_part(d.path / "k.img", 20, 8), "");
  EXPECT_THROW((void)read_file_part(d.path / "missing", 0, 4), Error);
}

TEST(FdHelpers, WriteFullThenReadFullAtOffsetsAndToTheEnd) {
  test::TempDir d;
  UniqueFd fd(::open((d.path / "f").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
  ASSERT_TRUE(fd);
  const std::string text = "hello, world";
  FdResult w = write_fd_full(fd.get(), std::as_bytes(std::span(text)));
  EXPECT_EQ(w.bytes, text.size());
  EXPECT_EQ(w.err, 0);
  EXPECT_EQ(write_fd_full(fd.get(), std::as_bytes(std::span(text).first(5)), 7).bytes, 5u);  // "hello" at 7
  std::string got(8, '.');
  FdResult r = read_fd_full(fd.get(), std::as_writable_bytes(std::span(got)), 4);
  EXPECT_EQ(r.bytes, 8u);
  EXPECT_EQ(got, "o, hello");
  r = read_fd_full(fd.get(), std::as_writable_bytes(std::span(got)), 10);  // 2 bytes left
  EXPECT_EQ(r.bytes, 2u);
  EXPECT_EQ(r.err, 0);
  ASSERT_EQ(::lseek(fd.get(), 0, SEEK_SET), 0);
  EXPECT_EQ(read_fd_to_end(fd.get(), "f"), "hello, hello");
  EXPECT_EQ(read_fd_some(-1, std::as_writable_bytes(std::span(got))).err, EBADF);
}

TEST(AtomicCopy, CopiesWholeWithTheModeAndLeavesTheTargetOnFailure) {
  test::TempDir d;
  std::string big(3u << 20, 'x');  // more than one buffer
  big[12345] = 'y';
  test::write_file(d.path / "from", big);
  atomic_copy(d.path / "from", d.path / "to", 0600);
  EXPECT_EQ(read_file(d.path / "to"), big);
  EXPECT_EQ(std::filesystem::status(d.path / "to").permissions(), std::filesystem::perms(0600));
  EXPECT_THROW(atomic_copy(d.path / "missing", d.path / "to"), Error);
  EXPECT_EQ(read_file(d.path / "to"), big);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(d.path), {}), 2);  // no temp file left
}

}  // namespace
}  // namespace piprov
