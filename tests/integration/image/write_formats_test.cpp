// piprov write of the test image, in every format, to a loop device gives
// exactly the bytes of `xz -dc t.img.xz`.
#include <gtest/gtest.h>

#include "fixtures.hpp"
#include "support/testsupport.hpp"

namespace piprov::test {
namespace {

constexpr std::uint64_t kDevBytes = 400ull << 20;

struct Case {
  std::string file, format;
};
void PrintTo(const Case& c, std::ostream* os) { *os << c.file; }

class WriteFormat : public ::testing::TestWithParam<Case> {};

TEST_P(WriteFormat, LoopDeviceHoldsExactlyTheDecodedImage) {
  PIPROV_REQUIRE_LOOP();
  const auto& fx = image_fixtures();
  const std::string& file = GetParam().file;
  const std::string& format = GetParam().format;
  TempDir tmp("piprov-write");
  LoopDevice dev(tmp.path / "dev.img", kDevBytes);
  auto r = run(piprov_bin() + " write --yes --progress none " + q((fx / file).string()) + " " + dev.path);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Summary: sizes, format, target, verify.
  EXPECT_EQ(r.out.rfind(std::string("wrote the 321.0 MiB image (") + format + " ", 0), 0u) << r.out;
  EXPECT_NE(r.out.find(" to " + dev.path + " in "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("; verified in "), std::string::npos) << r.out;
  // Same bytes as xz -dc of the .xz.
  auto cmp =
      run("xz -dc " + q((fx / "t.img.xz").string()) + " | cmp -n " + std::to_string(fx.img_size) + " - " + dev.path);
  EXPECT_EQ(cmp.exit_code, 0) << cmp.out << cmp.err;
  // The partitions appeared (BLKRRPART, or BLKPG where the kernel lacks the parser).
  EXPECT_TRUE(std::filesystem::exists(dev.path + "p1"));
  EXPECT_TRUE(std::filesystem::exists(dev.path + "p2"));
}

INSTANTIATE_TEST_SUITE_P(Formats, WriteFormat,
                         ::testing::Values(Case{"t.img.xz", "xz"}, Case{"t.img.gz", "gzip"}, Case{"t.img.zst", "zstd"},
                                           Case{"t.img.bz2", "bzip2"}, Case{"t.img.lz4", "lz4"}, Case{"t.zip", "zip"},
                                           Case{"t.img", "raw"}),
                         [](const auto& info) { return info.param.format; });

TEST(WriteFile, RegularFileTargetIsCreatedWithTheExactImage) {
  const auto& fx = image_fixtures();
  TempDir tmp("piprov-write");
  auto out = tmp.path / "copy.img";
  auto r = run(piprov_bin() + " write --progress none " + q((fx / "t.img.xz").string()) + " " + q(out.string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;  // a new file needs no confirmation
  EXPECT_EQ(std::filesystem::file_size(out), fx.img_size);
  EXPECT_EQ(run("cmp " + q((fx / "t.img").string()) + " " + q(out.string())).exit_code, 0);
}

// A random-access image (multi-block xz, raw) is opened once by a write, as a
// reader (issue 31 item 1). A sequential one (gzip) three times: the reader's
// format probe, the reader's stream (it reads the partition table) and the
// write's stream. Counted by strace, a real tool: every open(2) of IMAGE.
TEST(WriteFile, ARandomAccessImageIsOpenedOnce) {
  PIPROV_REQUIRE_TOOL("strace");
  const auto& fx = image_fixtures();
  TempDir tmp("piprov-write");
  for (const auto& [file, opens] : {std::pair{"t.img.xz", 1}, std::pair{"t.img", 1}, std::pair{"t.img.gz", 3}}) {
    const auto image = (fx / file).string();
    const auto out = tmp.path / "copy.img";
    std::filesystem::remove(out);
    // LeakSanitizer cannot run under ptrace: off for this run of an instrumented piprov (the sanitize stage).
    auto r =
        run("ASAN_OPTIONS=\"${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0\" strace -f -qq -e trace=open,openat -o " +
            q((tmp.path / "trace").string()) + " " + piprov_bin() + " write --no-verify --progress none " + q(image) +
            " " + q(out.string()));
    ASSERT_EQ(r.exit_code, 0) << file << ": " << r.err;
    auto n = run("grep -c -F " + q("\"" + image + "\"") + " " + q((tmp.path / "trace").string()));
    EXPECT_EQ(n.out, std::to_string(opens) + "\n") << file;
    EXPECT_EQ(run("cmp " + q((fx / "t.img").string()) + " " + q(out.string())).exit_code, 0) << file;
  }
}

TEST(WriteFile, JsonResultHasSizesHashesAndVerifyFlag) {
  const auto& fx = image_fixtures();
  TempDir tmp("piprov-write");
  auto out = tmp.path / "copy.img";
  auto r = run(piprov_bin() + " write --json --progress none --sha256-file " + q((fx / "SHA256SUMS").string()) + " " +
               q((fx / "t.img.xz").string()) + " " + q(out.string()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto sha = run("sha256sum " + q((fx / "t.img.xz").string()) + " | cut -c1-64").out.substr(0, 64);
  auto xxh = run("xxhsum -H2 " + q((fx / "t.img").string()) + " | cut -d' ' -f1").out;
  EXPECT_NE(r.out.find("\"bytes_written\": " + std::to_string(fx.img_size)), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"format\": \"xz\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"verified\": true"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"sha256\": \"" + sha + "\""), std::string::npos) << r.out;
  ASSERT_GE(xxh.size(), 32u) << "xxhsum (Debian package xxhash) is needed: run scripts/install-deps.sh";
  EXPECT_NE(r.out.find("\"xxh3_128\": \"" + xxh.substr(0, 32) + "\""), std::string::npos) << r.out << xxh;
}

}  // namespace
}  // namespace piprov::test
