#include "core/error.hpp"

#include <cstring>

#include "core/finding.hpp"

namespace piprov {

std::string errno_name(int err) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 32))
  if (const char* n = strerrorname_np(err)) return n;
#endif
  return "errno " + std::to_string(err);
}

Error::Error(ErrorKind kind, const std::string& message, std::vector<Finding> findings)
    : std::runtime_error(message),
      kind_(kind),
      findings_(std::make_shared<const std::vector<Finding>>(std::move(findings))) {}

const std::vector<Finding>& Error::findings() const noexcept {
  static const std::vector<Finding> none;
  return findings_ ? *findings_ : none;
}

Error io_error(const std::string& what, int err) {
  return Error::system(ErrorKind::Io, what + ": " + std::strerror(err) + " (" + errno_name(err) + ")", err);
}

}  // namespace piprov
