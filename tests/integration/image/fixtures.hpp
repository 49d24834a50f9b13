#pragma once
// Inputs for the image integration tests, made once per build tree by
// make-fixtures.sh (serialised with flock, so parallel ctest is safe).
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

/// `n` bytes at `offset` of a file or block device (buffered read).
std::string read_bytes(const std::filesystem::path& p, std::uint64_t offset, std::size_t n);

/// Single-quoted for /bin/sh.
std::string q(const std::string& s);

}  // namespace piprov::test
