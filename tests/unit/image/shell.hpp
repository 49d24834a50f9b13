#pragma once
#include <string>

namespace piprov::test {
/// Single-quoted for /bin/sh.
inline std::string q(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}
}  // namespace piprov::test
