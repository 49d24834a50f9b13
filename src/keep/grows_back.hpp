#pragma once
// Whether a root file system that `backup --shrink` shrank grows back to fill
// its disk by itself: cloud-init's growpart and resizefs modules run at every
// boot where they are enabled (cloud-init docs, modules Growpart and Resizefs:
// frequency "always"; Ubuntu's raspi images), while Raspberry Pi OS grows its
// root only on its first boot (raspi-config's init_resize / rpi-resize).
#include <string>
#include <vector>

#include "image/image_fs.hpp"

namespace piprov::keep {

/// What cloud-init does with the root partition, from its configuration
/// files' texts: /etc/cloud/cloud.cfg, then /etc/cloud/cloud.cfg.d/*.cfg in
/// lexical order (cloud-init docs, "Base configuration": a later file's
/// top-level key replaces an earlier one's; dicts are merged).
struct CloudInitGrowth {
  bool grows = false;  ///< growpart and resizefs both run on `/`
  /// Why not, when cloud-init is there: "growpart is not in cloud_init_modules",
  /// "growpart: mode: off", "resize_rootfs: false", ... ("" when it grows).
  std::string why_not;
};

/// The rules: growpart and resizefs in cloud_init_modules (an entry "growpart",
/// ["growpart", FREQ] or {name: growpart}), growpart's mode not off/false
/// (default auto), resize_rootfs not false (default true). Texts that are not
/// YAML maps are skipped (cloud-init logs and ignores them). Throws nothing.
CloudInitGrowth cloud_init_growth(const std::vector<std::string>& config_texts);

/// The clause for backup's --shrink line about the root fs in `fs`: "it grows back
/// to fill the disk at every boot (cloud-init's growpart and resizefs)" when
/// cloud_init_growth() says so and neither /etc/cloud/cloud-init.disabled nor
/// /etc/growroot-disabled exists (cloud-init docs: disabling cloud-init, module
/// Growpart); else "it does not grow back by itself[ (why)]: after writing it,
/// grow it (...)". Throws what ExtFiles throws for a damaged file system.
std::string root_grows_back(image::ExtFiles& fs);

/// root_grows_back() of the ext2/3/4 on block device or file `dev` (a loop device over the
/// shrunk partition). Throws Error{Usage} when it holds no ext2/3/4, Error{Io} on read errors.
std::string root_grows_back_on(const std::string& dev);

}  // namespace piprov::keep
