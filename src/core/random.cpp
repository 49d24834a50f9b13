#include "core/random.hpp"

#include <sys/random.h>
#include <cerrno>
#include <cstdint>
#include <vector>

#include "core/error.hpp"
#include "core/file.hpp"

namespace piprov {
namespace {

std::vector<std::uint8_t> random_bytes(std::size_t n) {
  std::vector<std::uint8_t> out(n);
  std::size_t got = 0;
  while (got < n) {
    ssize_t r = retry_eintr([&] { return ::getrandom(out.data() + got, n - got, 0); });
    if (r < 0) throw io_error("getrandom", errno);
    got += static_cast<std::size_t>(r);
  }
  return out;
}

std::string to_hex(const std::vector<std::uint8_t>& b) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (auto c : b) {
    s += digits[c >> 4];
    s += digits[c & 15];
  }
  return s;
}

}  // namespace

std::string random_hex(std::size_t n) { return to_hex(random_bytes(n)); }

std::string random_uuid() {
  auto b = random_bytes(16);
  b[6] = static_cast<std::uint8_t>((b[6] & 0x0f) | 0x40);  // version 4
  b[8] = static_cast<std::uint8_t>((b[8] & 0x3f) | 0x80);  // variant 10
  std::string h = to_hex(b);
  return h.substr(0, 8) + "-" + h.substr(8, 4) + "-" + h.substr(12, 4) + "-" + h.substr(16, 4) + "-" + h.substr(20);
}

}  // namespace piprov
