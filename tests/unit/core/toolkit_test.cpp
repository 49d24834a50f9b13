// core toolkit: UniqueFd, strings, SysRoot, board detection, system files.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "core/board.hpp"
#include "core/fd.hpp"
#include "core/file.hpp"
#include "core/strings.hpp"
#include "core/sysroot.hpp"
#include "support/testsupport.hpp"

namespace piprov {
namespace {

bool fd_open(int fd) { return ::fcntl(fd, F_GETFD) != -1; }

TEST(UniqueFd, ClosesOnScopeExitAndMoves) {
  int raw = -1;
  {
    UniqueFd fd(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    ASSERT_TRUE(fd);
    raw = fd.get();
    UniqueFd moved = std::move(fd);
    EXPECT_FALSE(fd);  // NOLINT(bugprone-use-after-move): the moved-from state is the point
    EXPECT_EQ(moved.get(), raw);
    EXPECT_TRUE(fd_open(raw));
  }
  EXPECT_FALSE(fd_open(raw));
}

TEST(UniqueFd, ReleaseResetAndClose) {
  UniqueFd fd(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  int raw = fd.release();
  EXPECT_FALSE(fd);
  EXPECT_TRUE(fd_open(raw));
  fd.reset(raw);
  EXPECT_EQ(fd.close(), 0);
  EXPECT_FALSE(fd_open(raw));
  EXPECT_EQ(fd.close(), 0);  // nothing left to close
  UniqueFd bad(1000000);     // not an open descriptor: close reports EBADF
  EXPECT_EQ(bad.close(), EBADF);
}

TEST(Strings, TrimLowerJoinSplit) {
  EXPECT_EQ(trim("  a b \t\r\n"), "a b");
  EXPECT_EQ(trim("\v\f"), "");
  EXPECT_EQ(trim(""), "");
  EXPECT_EQ(to_lower("BOOT_Order=0xF41"), "boot_order=0xf41");
  EXPECT_EQ(join({"a", "b", "c"}, ", "), "a, b, c");
  EXPECT_EQ(join({}, ", "), "");
  EXPECT_EQ(split("a,,b", ','), (std::vector<std::string>{"a", "", "b"}));
  EXPECT_EQ(split("", ','), (std::vector<std::string>{""}));
  EXPECT_EQ(split("x\n", '\n'), (std::vector<std::string>{"x", ""}));
}

TEST(Strings, ShellQuoteOnlyWhenNeeded) {
  EXPECT_EQ(shell_quote("/boot/firmware"), "/boot/firmware");
  EXPECT_EQ(shell_quote("vcgencmd"), "vcgencmd");
  EXPECT_EQ(shell_quote("/media/my boot"), "'/media/my boot'");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_quote(""), "''");
  EXPECT_EQ(shell_quote("$(rm)"), "'$(rm)'");
}

// What PyYAML (cloud-init's reader) decodes as UTF-8, byte offsets as it reports them.
TEST(Strings, Utf8InvalidAtNamesTheFirstBadByte) {
  constexpr auto npos = std::string_view::npos;
  EXPECT_EQ(utf8_invalid_at(""), npos);
  EXPECT_EQ(utf8_invalid_at("#cloud-config\nhostname: caf\xc3\xa9\n"), npos);          // é, 2 bytes
  EXPECT_EQ(utf8_invalid_at("\xef\xbb\xbf#cloud-config\n"), npos);                     // BOM
  EXPECT_EQ(utf8_invalid_at("\xe2\x82\xac \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf"), npos);  // €, 😀, U+10FFFF
  EXPECT_EQ(utf8_invalid_at("#cloud-config\nhostname: caf\xe9\n"), 27u);               // Latin-1 é
  EXPECT_EQ(utf8_invalid_at("ab\xc3"), 2u);                                            // cut short
  EXPECT_EQ(utf8_invalid_at("a\xc3\x28"), 1u);                                         // no continuation byte
  EXPECT_EQ(utf8_invalid_at("\x80"), 0u);                                              // a lone continuation byte
  EXPECT_EQ(utf8_invalid_at("\xc0\xaf"), 0u);                                          // overlong '/'
  EXPECT_EQ(utf8_invalid_at("x\xe0\x80\xaf"), 1u);                                     // overlong, 3 bytes
  EXPECT_EQ(utf8_invalid_at("xy\xed\xa0\x80"), 2u);                                    // surrogate U+D800
  EXPECT_EQ(utf8_invalid_at("\xf4\x90\x80\x80"), 0u);                                  // U+110000
  EXPECT_EQ(utf8_invalid_at("\xf5\x80\x80\x80"), 0u);
  EXPECT_EQ(utf8_invalid_at("\xff"), 0u);
}

TEST(SysRoot, MapsSystemPathsUnderTheRootAndBack) {
  SysRoot host;
  EXPECT_TRUE(host.is_host());
  EXPECT_EQ(host("/sys/block"), "/sys/block");
  SysRoot fake("/tmp/fake");
  EXPECT_EQ(fake("/sys/block"), "/tmp/fake/sys/block");
  EXPECT_EQ(fake.system_path("/tmp/fake/sys/devices/usb1"), "/sys/devices/usb1");
  EXPECT_EQ(fake.system_path("/elsewhere"), "/elsewhere");
}

TEST(SystemFiles, AttributesAreTrimmedAndAbsenceIsEmpty) {
  test::TempDir d;
  test::write_file(d.path / "model", std::string("Raspberry Pi 4 Model B Rev 1.4\0", 31));
  test::write_file(d.path / "size", "  1024\n2048\n");
  EXPECT_EQ(read_attr(d.path / "model"), "Raspberry Pi 4 Model B Rev 1.4");
  EXPECT_EQ(read_attr(d.path / "size"), "1024");
  EXPECT_EQ(read_attr(d.path / "missing"), "");
  EXPECT_FALSE(read_system_file(d.path / "missing"));
  EXPECT_EQ(read_system_file(d.path / "size").value(), "  1024\n2048\n");
  EXPECT_FALSE(read_system_file(d.path));  // a directory cannot be read: nullopt, no throw
}

struct FakeDeviceTree {
  test::TempDir root{"piprov-fake-dt"};
  FakeDeviceTree(const std::string& dir, const std::string& model, const std::string& compatible) {
    test::write_file(root.path / dir / "model", model);
    test::write_file(root.path / dir / "compatible", compatible);
  }
};

TEST(Board, DetectedFromTheDeviceTree) {
  using namespace std::string_literals;
  FakeDeviceTree pi4("proc/device-tree", "Raspberry Pi 4 Model B Rev 1.4\0"s, "raspberrypi,4-model-b\0brcm,bcm2711\0"s);
  auto id = detect_board(pi4.root.path);
  EXPECT_EQ(id.model, "Raspberry Pi 4 Model B Rev 1.4");
  EXPECT_EQ(id.board, PiBoard::Pi4);
  EXPECT_TRUE(id.raspberry_pi());
  EXPECT_EQ(id.compatible_text(), "raspberrypi,4-model-b,brcm,bcm2711");

  FakeDeviceTree pi5("sys/firmware/devicetree/base", "Raspberry Pi 5 Model B Rev 1.0\0"s,
                     "raspberrypi,5-model-b\0brcm,bcm2712\0"s);
  EXPECT_EQ(detect_board(pi5.root.path).board, PiBoard::Pi5);

  FakeDeviceTree pi3("proc/device-tree", "Raspberry Pi 3 Model B Plus Rev 1.3\0"s,
                     "raspberrypi,3-model-b-plus\0brcm,bcm2837\0"s);
  id = detect_board(pi3.root.path);
  EXPECT_TRUE(id.raspberry_pi());
  EXPECT_FALSE(id.board);

  test::TempDir none;
  id = detect_board(none.path);
  EXPECT_FALSE(id.raspberry_pi());
  EXPECT_FALSE(id.board);
  EXPECT_FALSE(id.compatible);
}

TEST(Board, FromCompatible) {
  using namespace std::string_literals;
  EXPECT_EQ(board_from_compatible("raspberrypi,400\0brcm,bcm2711\0"s), PiBoard::Pi400);
  EXPECT_EQ(board_from_compatible("raspberrypi,4-compute-module\0brcm,bcm2711\0"s), PiBoard::Cm4);
  EXPECT_FALSE(board_from_compatible("linux,dummy-virt"));
}

}  // namespace
}  // namespace piprov
