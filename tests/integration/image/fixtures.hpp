#pragma once
// Inputs for the image integration tests, made once per machine by
// make-fixtures.sh into $PIPROV_CACHE_DIR/image-fixtures-<key of the scripts>
// (serialised with flock, so parallel ctest runs, of one build dir or
// several, are safe). The tests only read them.
#include <cstdint>
#include <filesystem>
#include <string>

namespace piprov::test {

struct ImageFixtures {
  std::filesystem::path dir;
  std::uint64_t img_size = 0;  ///< bytes of t.img (= xz -dc t.img.xz)
  std::filesystem::path operator/(const std::string& name) const { return dir / name; }
};

/// Builds (first call) and returns the fixtures. Throws std::runtime_error
/// with the script's stderr when a tool is missing.
const ImageFixtures& image_fixtures();

/// Size of the loop devices the image tests write to (t.img is 321 MiB).
inline constexpr std::uint64_t kDevBytes = 400ull << 20;

/// `piprov write --progress none FLAGS 'IMAGE' DEV`.
std::string write_cmd(const std::string& image, const std::string& dev, const std::string& flags = "--yes");

/// True when every byte of `s` is 0.
bool all_zero(const std::string& s);

}  // namespace piprov::test
