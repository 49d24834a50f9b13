#include "core/error.hpp"

#include <cstring>

#include "core/enum_names.hpp"
#include "core/finding.hpp"

namespace piprov {

namespace {
constexpr EnumName<ErrorKind> kErrorKindNames[] = {
    {ErrorKind::Check, "check"},   {ErrorKind::Usage, "usage"},     {ErrorKind::Io, "io"},
    {ErrorKind::Verify, "verify"}, {ErrorKind::Partial, "partial"}, {ErrorKind::Interrupted, "interrupted"},
};
}  // namespace

std::string_view error_kind_name(ErrorKind k) { return enum_name(kErrorKindNames, k); }

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
