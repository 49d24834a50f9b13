// `--json` after the disk was written: an IMAGE path that is not UTF-8 (Linux file names are
// bytes) is printed with U+FFFD by the one JSON printer (core dump_json), never a throw that
// turns a written disk into an error (issue 29).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "fixtures.hpp"
#include "support/testsupport.hpp"

namespace piprov::test {
namespace {

TEST(JsonOutput, ImagePathThatIsNotUtf8IsPrintedNotThrown) {
  PIPROV_REQUIRE_LOOP();
  const auto& fx = image_fixtures();
  TempDir tmp("piprov-json");
  const auto image = tmp.path / "t-\xff\xfe.img.xz";  // Latin-1 bytes in a file name
  std::filesystem::copy_file(fx / "t.img.xz", image);
  LoopDevice dev(tmp.path / "dev.img", kDevBytes);
  auto w = run(piprov_bin() + " write --yes --progress none --json " + q(image.string()) + " " + dev.path);
  ASSERT_EQ(w.exit_code, 0) << w.err;
  auto j = nlohmann::json::parse(w.out);  // valid JSON (UTF-8)
  EXPECT_NE(j.dump().find("t-\xef\xbf\xbd\xef\xbf\xbd.img.xz"), std::string::npos) << w.out;
  auto v = run(piprov_bin() + " verify --progress none --json " + q(image.string()) + " " + dev.path);
  ASSERT_EQ(v.exit_code, 0) << v.err;
  EXPECT_NE(nlohmann::json::parse(v.out).dump().find("\xef\xbf\xbd"), std::string::npos) << v.out;
}

}  // namespace
}  // namespace piprov::test
