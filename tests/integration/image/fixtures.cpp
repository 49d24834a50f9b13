#include "fixtures.hpp"

#include <cstdlib>
#include <stdexcept>

#include "support/testsupport.hpp"

namespace fs = std::filesystem;

namespace piprov::test {

const ImageFixtures& image_fixtures() {
  static ImageFixtures f = [] {
    ImageFixtures r;
    const char* cache = std::getenv("PIPROV_CACHE_DIR");
    r.dir = fs::path(cache && *cache ? cache : "/var/tmp/piprov-cache") / ("image-fixtures-" PIPROV_FIXTURE_KEY);
    fs::create_directories(r.dir.parent_path());
    std::string script = (source_dir() / "tests/integration/image/make-fixtures.sh").string();
    auto res = run("flock " + q(r.dir.string() + ".lock") + " " + q(script) + " " + q(r.dir.string()));
    if (res.exit_code != 0) throw std::runtime_error("make-fixtures.sh failed: " + res.err);
    r.img_size = fs::file_size(r.dir / "t.img");
    return r;
  }();
  return f;
}

std::string write_cmd(const std::string& image, const std::string& dev, const std::string& flags) {
  return piprov_bin() + " write --progress none " + flags + " " + q(image) + " " + dev;
}

bool all_zero(const std::string& s) { return s.find_first_not_of('\0') == std::string::npos; }

}  // namespace piprov::test
