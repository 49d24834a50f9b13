#pragma once
// A U-Boot boot script (boot.scr, the text mkimage -T script wraps): whether it leaves root= in
// bootargs, the kernel command line. Read as U-Boot's hush shell reads it (U-Boot docs, "Hush shell" and
// the setenv/env set/setexpr commands): '#' starts a comment, ';' and newlines end a command,
// quotes group words. Only a root= in a value that is set counts: not a comment, not an echo,
// not the pattern of `setexpr VAR gsub "root=..." ""`, which removes it.
//
// boot.scr is a legacy U-Boot image (U-Boot include/image.h, struct legacy_img_hdr; U-Boot docs,
// "source command"): a 64-byte header of big-endian fields (magic 0x27051956, header CRC-32,
// ih_size, data CRC-32, ih_type 6 = script, ih_comp 0 = none), then, for a script, a table of 32-bit
// big-endian lengths ending with 0, then the script (U-Boot cmd/source.c: "scripts are just
// multi-image files with one component"). U-Boot's `source` runs only that format or a FIT image (U-Boot
// docs, "source command": "Two formats for script files exist"); anything else, e.g. boot.cmd saved as
// boot.scr, it refuses ("Wrong image format for "source" command"): it runs no script.
#include <string>
#include <string_view>
#include <vector>

namespace piprov::boot {

/// The script text U-Boot's `source` runs from `file` (boot.scr's bytes). With the legacy header:
/// the first component after the length table, `ok` false and `why` naming what makes U-Boot refuse
/// it (bad header or data CRC-32, a type that is not script, a compressed script, ih_size or the
/// length table past the end of the file). Without the header: `ok` false and `plain_text` true (no
/// FIT either: U-Boot's "Wrong image format for "source" command"); a FIT image (the device tree
/// magic 0xd00dfeed): `ok` true, `fit` true and `text` empty (piprov does not read a FIT's script).
/// Never throws.
struct UbootScriptText {
  bool ok = true;
  bool plain_text = false;  ///< neither the legacy header nor FIT: U-Boot does not run it
  bool fit = false;         ///< a FIT image: U-Boot runs its script, which piprov does not read
  std::string_view text;    ///< a view into `file`
  std::string why;          ///< when !ok: e.g. "its header CRC-32 is wrong (U-Boot: Bad header crc)"
};
UbootScriptText uboot_script_text(std::string_view file);

/// Whether the kernel gets a root= from U-Boot (uboot_script_root()).
enum class UbootRoot {
  Sets,     ///< bootargs holds root= when the script boots
  None,     ///< it holds none: the firmware's command line passed on, or a value without root=
  Unknown,  ///< piprov cannot tell (set under a condition, from a variable the script does not set, by `run`...)
};
struct UbootScriptRoot {
  UbootRoot root = UbootRoot::None;
  /// Sets: ""; None: "" when bootargs is the firmware's command line passed on, else what replaced it
  /// ("line 2 sets bootargs to a value without root="); Unknown: why ("line 3 sets bootargs from ${myargs},
  /// which the script does not set").
  std::string why;
  /// Sets: the value of the last root= in bootargs when the kernel boots ("PARTUUID=1234abcd-02"); ""
  /// when piprov cannot tell which (it differs between boot commands or branches, setexpr edits it).
  std::string value;
  /// Sets: `value`, or what follows it in bootargs, holds a variable U-Boot expands at run time
  /// ("PARTUUID=${uuid}"), which piprov does not know.
  bool run_time = false;
  /// Sets: the line whose text holds that root= (0: the firmware's command line, `firmware_args`, passed
  /// on); None with a `why`: the line that replaced or deleted bootargs; 0 otherwise (the firmware's
  /// command line passed on).
  int line = 0;
  /// Sets with a `value`: every root= value in bootargs, in order (the last is `value`).
  std::vector<std::string> all = {};
};

/// What `script` (boot.scr's script text, from uboot_script_text()) leaves in bootargs, the variable
/// U-Boot passes to the kernel as its command line (U-Boot docs, "Environment variables": bootargs),
/// when it boots (booti/bootz/bootm/bootefi; the script's end without one). bootargs starts unset
/// (U-Boot's default environment for the Pi has none, so `${bootargs}` expands to nothing);
/// `fdt get value bootargs /chosen bootargs` sets it to `firmware_args`, the command line the firmware
/// built from the cmdline file and put in /chosen/bootargs (as Ubuntu's boot.scr does). At a boot
/// command U-Boot's fdt_chosen() writes a set bootargs over /chosen/bootargs and leaves /chosen alone
/// when it is unset (U-Boot boot/fdt_support.c): so the kernel's command line is what the script
/// leaves in bootargs, or `firmware_args` when it leaves none. Evaluated in order, the last assignment
/// winning: `setenv`/`env set` (no value deletes it), `setexpr NAME sub|gsub PATTERN REPLACEMENT
/// [STRING]` (a PATTERN holding root= matches only a bootargs that has one), `fdt get value bootargs
/// /chosen bootargs`. `${VAR}`/`$VAR` in a value carries VAR's state; a variable the script does not
/// set is unknown. An assignment under if/while/for or after && / ||
/// keeps the earlier state only when both agree; `run`, `source`, `env import`/`default` make every
/// variable unknown. Never throws.
UbootScriptRoot uboot_script_root(std::string_view script, std::string_view firmware_args = {});

}  // namespace piprov::boot
