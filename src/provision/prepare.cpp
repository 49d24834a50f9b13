// provision's checks before the first byte: prepare_provision() and the
// refusal of an image boot patch refuses (docs/provision.md).
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "boot/autoboot.hpp"
#include "boot/cmdline_txt.hpp"
#include "core/board.hpp"
#include "core/error.hpp"
#include "core/finding.hpp"
#include "core/write_guard.hpp"
#include "provision/dry_run.hpp"
#include "provision/identity.hpp"
#include "provision/image_check.hpp"
#include "provision/provision.hpp"
#include "provision/seed/image_cloud_init.hpp"

namespace piprov::provision {

PreparedProvision prepare_provision(const ProvisionOptions& o) {
  for (const auto& q : o.patch.uas_quirks) boot::normalize_vid_pid(q);
  for (const auto& q : o.usb_ids) boot::normalize_vid_pid(q);
  // The write's checks, with the write guard's rules for a disk to provision (whole disks only).
  image::WriteOptions wo = o.write;
  wo.intent = WriteIntent::ProvisionDisk;
  if (!wo.progress) wo.progress = o.progress;
  PreparedProvision p{image::prepare_write(wo), {}, {}, nullptr};
  const bool table = p.write.partition_table().scheme != image::TableScheme::None;
  // The tree the dry run plans from and the real run judges its layout by, read once (a
  // sequential reader would decode the image twice: the dry run reads it itself); its root fs
  // (the partition root= names) is the one whose cloud-init judges the seed.
  if (table && p.write.reader().random_access()) p.tree = std::make_unique<ImageTree>(p.write.reader(), o.write.image);
  // The user's seed files are judged by the cloud-init of the image (read through the write's reader).
  const auto& id = o.identity;
  // --wifi-country: the image's netplan decides whether wlan0 may carry regulatory-domain (0.105 on).
  const bool user_files = !id.user_data_file.empty() || !id.network_config_file.empty();
  const bool read_image = user_files || (!id.wifi_country.empty() && id.seed_wanted());
  auto image_ci = read_image ? read_image_cloud_init(p.write.reader(), o.write.image, p.tree.get()) : nullptr;
  // An image without cloud-init is refused before the user's files are judged (as `seed check
  // --image` does): neither fixing them nor --force-seed would make it read a seed.
  if (image_ci && id.seed_wanted() && !image_ci->missing.empty())
    throw Error(ErrorKind::Usage, no_cloud_init_refusal(*image_ci) + "; nothing was written");
  p.seeds = plan_seeds(id, o.write.targets, &p.seed_check, image_ci);
  // provision needs system-boot and writable partitions: an image without a
  // partition table is refused before the first byte of any disk.
  if (!table)
    throw Error(ErrorKind::Usage, o.write.image +
                                      " holds no partition table (no MBR or GPT at its start): not a Raspberry Pi OS "
                                      "image; give an .img or .img.xz of Ubuntu or Raspberry Pi OS; nothing was "
                                      "written");
  // A seed for an image whose root fs has no cloud-init: refused now, not after the write (an
  // image read only from its start, gzip, is checked after the write: its root fs lies behind).
  if (!p.seeds.empty() && p.seeds.front().writes_files()) {
    if (!image_ci) image_ci = read_image_cloud_init(p.write.reader(), o.write.image, p.tree.get());
    if (!image_ci->missing.empty())
      throw Error(ErrorKind::Usage, no_cloud_init_refusal(*image_ci) + "; nothing was written");
  }
  return p;
}

// The patch step's refusal made on the image alone, as the dry run makes it (provision.hpp).
void refuse_unpatchable_image(const ProvisionOptions& o, PreparedProvision& prepared) {
  const bool pi5 = o.patch.board && is_bcm2712(*o.patch.board);
  std::unique_ptr<ImageTree> own;
  const ImageTree* tree = prepared.tree.get();
  if (!tree) {
    // A sequential reader (gzip, single-block xz) cannot go back for the write: for a Pi 5 family
    // board (its refusal needs only the boot partition, at the image's start) the check reads
    // the image through a reader of its own; for another board the patch step judges the disk.
    if (!pi5) return;
    own = std::make_unique<ImageTree>(o.write.image);
    tree = own.get();
  } else if (!tree->root_dir() && !pi5) {
    return;  // the layout is told by the root fs (os-release): the disk's, at the patch step
  }
  if (boot::autoboot_only(tree->boot_dir())) return;  // followed on the disk (autoboot_target.hpp)
  try {
    patch_image_tree(o.patch, *tree);
  } catch (const Error& e) {
    std::string m = e.what();
    if (const std::string done = "; nothing was changed"; m.ends_with(done)) m.resize(m.size() - done.size());
    std::vector<Finding> findings = e.findings();
    for (auto& f : findings) {
      f.message = tree->named(f.message);
      f.fix = tree->named(f.fix);
    }
    throw Error(e.kind(), m + "; nothing was written", std::move(findings));
  }
}

}  // namespace piprov::provision
