// boot check: what U-Boot's boot script boot.scr leaves of root= in bootargs, the kernel's command
// line under U-Boot (check_ctx.hpp).
#include <algorithm>
#include <vector>

#include "boot/check_ctx.hpp"
#include "boot/uboot_script.hpp"
#include "core/file.hpp"
#include "core/strings.hpp"

namespace piprov::boot::detail {
namespace {
constexpr const char* kUbootBootargsSource =
    "U-Boot docs, Environment variables (bootargs: the kernel command line); U-Boot boot/fdt_support.c fdt_chosen() "
    "(writes bootargs to /chosen/bootargs); Linux init/do_mounts.c root_dev_setup() (of several root= the last counts)";
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
      case UbootRoot::Sets: {
        if (root.value.empty()) return {true, false, "right under U-Boot, whose boot script boot.scr sets root="};
        if (root.run_time) {
          UbootRootVerdict run_time{true,
                                    false,
                                    "U-Boot's boot script boot.scr sets root=" + root.value + " (" + line +
                                        ") from a variable U-Boot sets at run time, which piprov does not know: "
                                        "not judged",
                                    "",
                                    "",
                                    root.line};
          run_time.shown = root.value;
          return run_time;
        }
        UbootRootVerdict sets{
            true, false,      "U-Boot's boot script boot.scr sets root=" + root.value + " (" + line + ")",
            "",   root.value, root.line};
        sets.shown = root.value;
        return sets;
      }
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

void check_uboot_bootargs(Ctx& c, const CmdlineTxt& cmdline) {
  const auto scr = read_partition_file(c.o.boot_dir, "boot.scr");
  if (!scr) return;  // no script to read: the firmware's command line, cmdline.txt's, is the one judged
  const UbootScriptText script = uboot_script_text(*scr);
  const std::string file = c.r.cmdline_file;
  const std::string root = cmdline.get("root").value_or("");
  const std::string unknown_head = "piprov cannot tell whether the kernel gets " + file + "'s root=" + root + ": ";
  auto unknown = [&](const std::string& why) {
    c.add(Severity::Info, "cmdline-root-uboot-unknown", unknown_head + why, "", kUbootScrSource);
    c.r.root = root;
    c.r.root_from = file + "; boot.scr may change it";
  };
  if (script.fit) return unknown("boot.scr is a FIT image, whose script piprov does not read");
  if (!script.ok) return;  // U-Boot runs no script: cmdline.txt's line is what it has
  const UbootScriptRoot u = uboot_script_root(script.text, c.r.resolved.cmdline_args);
  const std::string at = "boot.scr line " + std::to_string(u.line);
  switch (u.root) {
    case UbootRoot::Unknown:
      return unknown("U-Boot's boot script boot.scr may change bootargs, the kernel's command line: " + u.why);
    case UbootRoot::None:
      c.cmdline_root_replaced = true;
      c.r.root = "";
      c.r.root_from = at + " replaces bootargs";
      Ctx::locate(
          c.add(
              Severity::Error, "cmdline-no-root",
              "no root= reaches the kernel: U-Boot's boot script boot.scr " + u.why + " (the last wins), so " + file +
                  "'s line, root=" + root + " with it, never reaches the kernel: it will not find the root filesystem",
              "add root=" + root_example(c) + " to the setenv bootargs on " + at + " (boot.cmd), then " + kUbootMkimage,
              kUbootBootargsSource),
          u.line, "bootargs");
      return;
    case UbootRoot::Sets: break;
  }
  if (u.value.empty())  // two possible values (a condition), or edited by setexpr
    return unknown(
        "U-Boot's boot script boot.scr may change bootargs, the kernel's command line: which root= is "
        "last there piprov cannot tell (a root= set under a condition, or an edit with setexpr)");
  if (u.line == 0) return;  // the last root= is the firmware's: cmdline.txt's, judged as it is
  c.cmdline_root_replaced = true;
  c.r.root = u.value;
  c.r.root_from = at;
  const bool distinct =
      u.all.size() > 1 && std::any_of(u.all.begin(), u.all.end(), [&](const auto& v) { return v != u.value; });
  if (distinct) {
    std::vector<std::string> quoted;
    for (const auto& v : u.all) quoted.push_back("root=" + v);
    Ctx::locate(c.add(Severity::Warning, "cmdline-duplicate",
                      "U-Boot's bootargs (the kernel's command line: " + file +
                          "'s line, then what boot.scr adds) sets root= " + std::to_string(u.all.size()) + " times (" +
                          join(quoted, ", ") + "): the kernel uses the last, root=" + u.value + " (" + at + ")",
                      "keep only the root= you mean, once: drop root=" + root + " from " + file, kUbootBootargsSource),
                1, "root");
  } else if (u.all.size() == 1) {  // the script replaced bootargs: cmdline.txt's root= is gone
    c.add(Severity::Info, "cmdline-root-from-uboot",
          file + "'s root=" + root +
              " does not reach the kernel: U-Boot's boot script boot.scr replaces bootargs, and the root= it leaves "
              "there is root=" +
              u.value + " (" + at + ")",
          "", kUbootBootargsSource);
  }
  if (u.run_time) {
    c.add(Severity::Info, "cmdline-root-from-uboot",
          "root=" + u.value + " (" + at +
              ") holds a variable U-Boot sets at run time, which piprov does not know: "
              "not judged");
    return;
  }
  c.uboot_scr_root = u.value;  // check_root judges it instead of cmdline.txt's
  c.uboot_scr_root_line = u.line;
}

}  // namespace piprov::boot::detail
