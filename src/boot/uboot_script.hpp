#pragma once
// A U-Boot boot script (boot.scr, the text mkimage -T script wraps): whether it adds root= to
// the kernel command line. Read as U-Boot's hush shell reads it (U-Boot docs, "Hush shell" and
// the setenv/env set/setexpr commands): '#' starts a comment, ';' and newlines end a command,
// quotes group words. Only a root= in a value that is set counts: not a comment, not an echo,
// not the pattern of `setexpr VAR gsub "root=..." ""`, which removes it.
#include <string_view>

namespace piprov::boot {

/// True when `script` (boot.scr's bytes, the mkimage header too) sets a variable to a value
/// holding root=: `setenv bootargs "${bootargs} root=PARTUUID=..."`, `env set VAR ...root=...`,
/// or `setexpr VAR sub|gsub PATTERN REPLACEMENT` whose replacement holds root=. Never throws.
bool uboot_script_adds_root(std::string_view script);

}  // namespace piprov::boot
