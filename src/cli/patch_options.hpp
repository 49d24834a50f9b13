#pragma once
// The [pi4] patch options `piprov boot patch` shares with `piprov provision`
// (--gpu-mem, --max-framebuffers, --boot-delay, --fkms, --seed-settings,
// --uas-quirk), added from the one table in boot/patch.hpp (pi4_settings()),
// and --method.
#include <CLI/CLI.hpp>

#include "boot/patch.hpp"

namespace piprov::cli {

/// Adds the patch options to `cmd`, bound to `opts` (which must outlive
/// parsing: keep it in a shared_ptr).
void add_patch_options(CLI::App* cmd, boot::PatchOptions& opts);

/// Adds --method vmlinux|direct (how to fix Ubuntu 20.04's U-Boot layout;
/// boot::PatchOptions::method, boot::choose_method()) to `cmd`, bound to `opts`
/// as add_patch_options(). `boot patch` and `provision` share this one
/// definition: the same values, checked by CLI11 while parsing (a bad value is a
/// usage error, exit 2, before the command runs), and the same help text.
void add_method_option(CLI::App* cmd, boot::PatchOptions& opts);

}  // namespace piprov::cli
