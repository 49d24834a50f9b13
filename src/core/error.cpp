#include "core/error.hpp"

#include <cstring>

namespace piprov {

std::string errno_name(int err) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 32))
  if (const char* n = strerrorname_np(err)) return n;
#endif
  return "errno " + std::to_string(err);
}

Error io_error(const std::string& what, int err) {
  return Error(ErrorKind::Io, what + ": " + std::strerror(err) + " (" + errno_name(err) + ")");
}

}  // namespace piprov
