#include "core/sysroot.hpp"

namespace piprov {

const SysRoot& SysRoot::host() {
  static const SysRoot h{"/"};
  return h;
}

std::filesystem::path SysRoot::operator()(std::string_view abs) const {
  std::filesystem::path p(abs);
  if (is_host()) return p;
  return root_ / p.relative_path();
}

std::string SysRoot::system_path(const std::filesystem::path& real) const {
  if (is_host()) return real.string();
  auto rel = real.lexically_relative(root_);
  if (rel.empty() || *rel.begin() == "..") return real.string();
  return "/" + rel.string();
}

}  // namespace piprov
