#pragma once
// A U-Boot boot script (boot.scr, the text mkimage -T script wraps): whether it adds root= to
// the kernel command line. Read as U-Boot's hush shell reads it (U-Boot docs, "Hush shell" and
// the setenv/env set/setexpr commands): '#' starts a comment, ';' and newlines end a command,
// quotes group words. Only a root= in a value that is set counts: not a comment, not an echo,
// not the pattern of `setexpr VAR gsub "root=..." ""`, which removes it.
//
// boot.scr is a legacy U-Boot image (U-Boot include/image.h, struct legacy_img_hdr; U-Boot docs,
// "source command"): a 64-byte header of big-endian fields (magic 0x27051956, header CRC-32,
// ih_size, data CRC-32, ih_type 6 = script, ih_comp 0 = none), then, for a script, a table of 32-bit
// big-endian lengths ending with 0, then the script (U-Boot cmd/source.c: "scripts are just
// multi-image files with one component"). A file without the magic is read as plain script text.
#include <string>
#include <string_view>

namespace piprov::boot {

/// The script text U-Boot's `source` runs from `file` (boot.scr's bytes). With the legacy header:
/// the first component after the length table, `ok` false and `why` naming what makes U-Boot refuse
/// it (bad header or data CRC-32, a type that is not script, a compressed script, ih_size or the
/// length table past the end of the file). Without the header: the whole file. Never throws.
struct UbootScriptText {
  bool ok = true;
  std::string_view text;  ///< a view into `file`
  std::string why;        ///< when !ok: e.g. "its header CRC-32 is wrong (U-Boot: Bad header crc)"
};
UbootScriptText uboot_script_text(std::string_view file);

/// True when `script` (boot.scr's script text, from uboot_script_text()) sets a variable to a value
/// holding root=: `setenv bootargs "${bootargs} root=PARTUUID=..."`, `env set VAR ...root=...`,
/// or `setexpr VAR sub|gsub PATTERN REPLACEMENT` whose replacement holds root=. Never throws.
bool uboot_script_adds_root(std::string_view script);

}  // namespace piprov::boot
