#pragma once
// The [pi4] patch options `piprov boot patch` shares with `piprov provision`
// (--gpu-mem, --max-framebuffers, --boot-delay, --fkms, --seed-settings,
// --uas-quirk), added from the one table in boot/patch.hpp (pi4_settings()).
#include <CLI/CLI.hpp>

#include "boot/patch.hpp"

namespace piprov::cli {

/// Adds the patch options to `cmd`, bound to `opts` (which must outlive
/// parsing: keep it in a shared_ptr).
void add_patch_options(CLI::App* cmd, boot::PatchOptions& opts);

}  // namespace piprov::cli
