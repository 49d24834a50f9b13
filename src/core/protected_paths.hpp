#pragma once
// System directories piprov never writes a file in, for `write` onto a file
// and `bench --destructive` on a file (a mistyped `write --yes IMG /etc/passwd`
// must not replace it; `bench --destructive` must not rewrite a file under /usr).
// Directories: FHS 3.0 (/etc, /usr, /bin, /sbin, /lib*, /boot, /var/lib, /root).
#include <string>

namespace piprov {

/// The protected directory ("/etc", "/usr", "/bin", "/sbin", "/lib*", "/boot",
/// "/var/lib", "/root", "/proc", "/sys", "/dev", "/run") that holds `real` (a
/// canonical absolute path), or "" when none does. Throws nothing.
std::string protected_dir_of(const std::string& real);

}  // namespace piprov
