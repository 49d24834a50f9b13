// Any bytes given as IMAGE must end in data or a piprov::Error, never a crash,
// hang or unbounded memory (truncated or corrupt input gives one clear error line).
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "image/source.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  int fd = ::memfd_create("fuzz.img", MFD_CLOEXEC);
  if (fd < 0) return 0;
  if (size > 0 && ::write(fd, data, size) != static_cast<ssize_t>(size)) {
    ::close(fd);
    return 0;
  }
  std::string path = "/proc/self/fd/" + std::to_string(fd);
  try {
    auto src = piprov::image::open_source(path, 1, true);
    std::vector<std::byte> buf(1 << 20);
    std::size_t total = 0;
    while (total < (16u << 20)) {
      std::size_t n = src->read_full(buf);
      total += n;
      if (n < buf.size()) break;
    }
    (void)src->size();
    (void)src->input().finish_sha256();
  } catch (const piprov::Error&) {
  }
  ::close(fd);
  return 0;
}
