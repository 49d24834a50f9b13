#include "fixtures.hpp"

#include <fstream>
#include <stdexcept>

#include "support/testsupport.hpp"

namespace fs = std::filesystem;

namespace piprov::test {

const ImageFixtures& image_fixtures() {
  static ImageFixtures f = [] {
    ImageFixtures r;
    r.dir = fs::path(PIPROV_FIXTURE_DIR) / "image";
    fs::create_directories(r.dir.parent_path());
    std::string script = (source_dir() / "tests/integration/image/make-fixtures.sh").string();
    auto res = run("flock " + q(r.dir.string() + ".lock") + " " + q(script) + " " + q(r.dir.string()));
    if (res.exit_code != 0) throw std::runtime_error("make-fixtures.sh failed: " + res.err);
    r.img_size = fs::file_size(r.dir / "t.img");
    return r;
  }();
  return f;
}

std::string read_bytes(const fs::path& p, std::uint64_t offset, std::size_t n) {
  std::ifstream in(p, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(offset));
  std::string s(n, '\0');
  in.read(s.data(), static_cast<std::streamsize>(n));
  s.resize(static_cast<std::size_t>(in.gcount()));
  return s;
}

std::string q(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace piprov::test
