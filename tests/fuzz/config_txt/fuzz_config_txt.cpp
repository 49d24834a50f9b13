// Fuzzes the config.txt model: parse must never crash, printing must give the
// input back byte for byte, and queries/edits/lint must keep the model sane
// (an edit's output parses and prints back identically; set() is idempotent).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "boot/cmdline_txt.hpp"
#include "boot/config_txt.hpp"

using namespace piprov::boot;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string in(reinterpret_cast<const char*>(data), size);
  auto c = ConfigTxt::parse(in);
  if (c.to_string() != in) std::abort();
  (void)c.lint();
  for (const char* board : {"pi4", "pi3", "pi400", "cm4", "pi5"}) {
    (void)c.effective("kernel", Board{board});
    (void)c.effective("initramfs", Board{board});
    (void)c.effective_all("dtoverlay", Board{board});
  }
  // Includes resolve to the input itself (small inputs: exercises the recursion bound) or a fixed file.
  static const ConfigTxt fixed = ConfigTxt::parse("[pi3]\nkernel=inc\ninclude again.txt\n[all]\n");
  auto self = [&c, size](const std::string&) -> std::optional<ConfigTxt> { return size <= 512 ? c : fixed; };
  (void)c.effective("kernel", Board{"pi4"}, self);

  auto e = c;
  e.set("pi4", "kernel", "vmlinux");
  e.set_directive("pi4", "initramfs", "initrd.img followkernel");
  e.ensure_line("pi4", "dtoverlay", "vc4-fkms-v3d");
  std::string out = e.to_string();
  auto re = ConfigTxt::parse(out);
  if (re.to_string() != out) std::abort();
  if (re.set("pi4", "kernel", "vmlinux")) std::abort();  // idempotent
  e.remove("pi4", "gpu_mem");
  (void)e.lint();
  if (size <= 2048) (void)unified_diff(in, out, "a", "b");  // O(lines^2): keep runs fast

  auto cmd = CmdlineTxt::parse(in);
  (void)cmd.lint();
  (void)cmd.has_uas_quirk("152d:0578");
  cmd.add_uas_quirk("152d:0578");
  if (!cmd.has_uas_quirk("152d:0578") && !cmd.params().empty()) std::abort();
  return 0;
}
