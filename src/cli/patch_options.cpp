#include "cli/patch_options.hpp"

namespace piprov::cli {

void add_patch_options(CLI::App* cmd, boot::PatchOptions& opts) {
  for (const auto& s : boot::pi4_settings()) {
    auto* field = &(opts.*s.field);
    cmd->add_option_function<int>(
           s.option, [field](const int& v) { *field = v; }, s.help)
        ->check(CLI::Range(s.min, s.max));
  }
  cmd->add_flag("--fkms", opts.fkms, "Also add [pi4] dtoverlay=vc4-fkms-v3d");
  cmd->add_flag("--seed-settings", opts.seed_settings,
                "The usual Pi 4 USB-boot [pi4] settings, each unless given: " + boot::seed_settings_words());
  cmd->add_option("--uas-quirk", opts.uas_quirks, "Add usb-storage.quirks=VID:PID:u to cmdline.txt (repeatable)");
}

void add_method_option(CLI::App* cmd, boot::PatchOptions& opts) {
  cmd->add_option_function<std::string>(
         "--method", [&opts](const std::string& v) { opts.method = boot::parse_method(v); },
         "How to fix Ubuntu 20.04's U-Boot layout: vmlinux (decompressed kernel + apt hook) or direct "
         "(kernel=vmlinuz, needs start4.elf from 2020-09 on); default: direct when start4.elf is known "
         "new enough")
      ->check(CLI::IsMember({"vmlinux", "direct"}));
}

}  // namespace piprov::cli
