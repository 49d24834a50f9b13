#include "core/protected_paths.hpp"

namespace piprov {

std::string protected_dir_of(const std::string& real) {
  for (const char* dir : {"/etc", "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/boot", "/var/lib",
                          "/root", "/proc", "/sys", "/dev", "/run"}) {
    std::string d(dir);
    if (real.rfind(d + "/", 0) == 0) return d;
  }
  return "";
}

}  // namespace piprov
