#pragma once
// Random identifiers from the kernel's CSPRNG (getrandom(2)): disk ids, GUIDs
// and cloud-init instance-ids that must differ between disks written from
// one image.
#include <cstddef>
#include <string>

namespace piprov {

/// `n` random bytes as 2n lowercase hex digits. Throws Error{Io} when
/// getrandom(2) fails.
std::string random_hex(std::size_t n);

/// A random (version 4, RFC 9562 section 5.4) UUID in lowercase
/// "xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx" form. Throws like random_hex().
std::string random_uuid();

}  // namespace piprov
