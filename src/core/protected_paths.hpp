#pragma once
// System directories piprov never writes a file in, for `write` onto a file
// and `bench --destructive` on a file. Source: new-user tests of 2026-11-30
// (`write --yes IMG /etc/passwd` replaced it; `bench --destructive` rewrote a
// file under /usr).
#include <string>

namespace piprov {

/// The protected directory ("/etc", "/usr", "/bin", "/sbin", "/lib*", "/boot",
/// "/var/lib", "/root", "/proc", "/sys", "/dev", "/run") that holds `real` (a
/// canonical absolute path), or "" when none does. Throws nothing.
std::string protected_dir_of(const std::string& real);

}  // namespace piprov
