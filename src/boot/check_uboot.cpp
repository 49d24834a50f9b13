// boot check: what U-Boot's boot script boot.scr does with root= when the cmdline file has none
// (check_ctx.hpp).
#include "boot/check_ctx.hpp"
#include "boot/uboot_script.hpp"
#include "core/file.hpp"

namespace piprov::boot::detail {
namespace {
constexpr const char* kUbootSourceDoc =
    "U-Boot docs, source command (\"Two formats for script files exist: legacy U-Boot image format, Flat Image "
    "Tree (FIT)\"); U-Boot cmd/source.c";
}  // namespace

UbootRootVerdict uboot_root(const Ctx& c) {
  if (auto scr = read_partition_file(c.o.boot_dir, "boot.scr")) {
    const UbootScriptText script = uboot_script_text(*scr);
    if (script.plain_text) {
      // boot.cmd saved as boot.scr: U-Boot's source command refuses it. Wrapped by mkimage, would it set root=?
      const bool would_set = uboot_script_root(*scr).root == UbootRoot::Sets;
      UbootRootVerdict plain{
          false, false,
          "boot.scr is plain text, not an mkimage script: U-Boot does not run it (U-Boot: Wrong image format "
          "for \"source\" command)",
          would_set ? std::string("make it a script U-Boot runs: mv boot.scr boot.cmd, then ") + kUbootMkimage
                    : std::string()};
      plain.source = kUbootSourceDoc;
      return plain;
    }
    if (script.fit) return {false, true, "boot.scr is a FIT image, whose script piprov does not read"};
    if (!script.ok) return {false, false, "U-Boot runs no boot script boot.scr either: " + script.why};
    const UbootScriptRoot root = uboot_script_root(script.text);
    const std::string line = "line " + std::to_string(root.line);
    switch (root.root) {
      case UbootRoot::Sets:
        if (root.value.empty()) return {true, false, "right under U-Boot, whose boot script boot.scr sets root="};
        if (root.run_time)
          return {true, false,
                  "U-Boot's boot script boot.scr sets root=" + root.value + " (" + line +
                      ") from a variable U-Boot sets at run time, which piprov does not know: not judged"};
        return {true, false,      "U-Boot's boot script boot.scr sets root=" + root.value + " (" + line + ")",
                "",   root.value, root.line};
      case UbootRoot::Unknown:
        return {false, true,
                "piprov cannot tell whether U-Boot's boot script boot.scr puts root= in bootargs: " + root.why};
      case UbootRoot::None: break;
    }
    if (root.line > 0)  // the script replaces the command line cmdline.txt gave: a root= there is thrown away
      return {false, false, "U-Boot's boot script boot.scr sets none either: " + root.why + " (the last wins)",
              "add root=" + root_example(c) + " to the setenv bootargs on boot.scr " + line + " (boot.cmd), then " +
                  kUbootMkimage};
    return {false, false,
            "U-Boot's boot script boot.scr sets none either: " +
                (root.why.empty() ? std::string("it passes this command line on") : root.why + " (the last wins)")};
  }
  if (c.layout() == LayoutId::UbuntuUboot)
    return {false, false,
            "Ubuntu's U-Boot boot script, flash-kernel's bootscr.rpi, sets none either: it passes this "
            "command line on"};
  return {true, false,
          "right under U-Boot if its boot script adds root= (there is no boot.scr on the partition to read)"};
}

}  // namespace piprov::boot::detail
