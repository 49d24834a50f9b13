#pragma once
// What the write tests on regular files share (write_file_test.cpp, prepare_write_test.cpp):
// a patterned image and the options of a write to one file.
#include <cstddef>
#include <cstdint>
#include <string>

#include "image/write.hpp"

namespace piprov::image::write_test {

/// `n` bytes of a fixed pseudo-random pattern (a linear congruential generator): never all zeros,
/// so no free space is skipped by accident.
inline std::string pattern(std::size_t n) {
  std::string s(n, '\0');
  std::uint32_t x = 7;
  for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>((x = x * 1664525u + 1013904223u) >> 24);
  return s;
}

/// `piprov write IMAGE TARGET` with the defaults.
inline WriteOptions opts(const std::string& img, const std::string& target) {
  WriteOptions o;
  o.image = img;
  o.targets = {target};
  return o;
}

}  // namespace piprov::image::write_test
