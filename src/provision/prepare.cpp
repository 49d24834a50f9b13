// provision's checks before the first byte: prepare_provision() and the
// board check (docs/provision.md).
#include <memory>
#include <string>

#include "boot/cmdline_txt.hpp"
#include "core/board.hpp"
#include "core/error.hpp"
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
  PreparedProvision p{image::prepare_write(wo), {}, {}};
  // The user's seed files are judged by the cloud-init of the image (read through the write's reader).
  const auto& id = o.identity;
  // --wifi-country: the image's netplan decides whether wlan0 may carry regulatory-domain (0.105 on).
  const bool user_files = !id.user_data_file.empty() || !id.network_config_file.empty();
  const bool read_image = user_files || (!id.wifi_country.empty() && id.seed_wanted());
  auto image_ci = read_image ? read_image_cloud_init(p.write.reader(), o.write.image) : nullptr;
  p.seeds = plan_seeds(id, o.write.targets, &p.seed_check, image_ci);
  // provision needs system-boot and writable partitions: an image without a
  // partition table is refused before the first byte of any disk.
  if (p.write.partition_table().scheme == image::TableScheme::None)
    throw Error(ErrorKind::Usage, o.write.image +
                                      " holds no partition table (no MBR or GPT at its start): not a Raspberry Pi OS "
                                      "image; give an .img or .img.xz of Ubuntu or Raspberry Pi OS; nothing was "
                                      "written");
  // A seed for an image whose root fs has no cloud-init: refused now, not after the write (an
  // image read only from its start, gzip, is checked after the write: its root fs lies behind).
  if (!p.seeds.empty() && p.seeds.front().writes_files()) {
    if (!image_ci) image_ci = read_image_cloud_init(p.write.reader(), o.write.image);
    if (!image_ci->missing.empty())
      throw Error(ErrorKind::Usage, no_cloud_init_refusal(*image_ci) + "; nothing was written");
  }
  return p;
}

// --board of the Pi 5 family: the patch step's layout/board check (boot/patch.hpp: a layout that
// needs the Pi 4 USB fix, Ubuntu 20.04's U-Boot, cannot boot a Pi 5) made on the image alone,
// through the prepared write's reader as the dry run makes it (a reader of its own for an image
// read only from its start), so that the refusal comes before the first byte is written.
void refuse_unbootable_board(const ProvisionOptions& o, PreparedProvision& prepared) {
  if (!o.patch.board || !is_bcm2712(*o.patch.board)) return;
  // A sequential reader (gzip, single-block xz) cannot go back for the write: the check reads
  // the image's start (its boot partition) through a reader of its own.
  std::unique_ptr<image::ImageReader> own;
  image::ImageReader* reader = &prepared.write.reader();
  if (!reader->random_access()) {
    own = image::open_image_reader(o.write.image);
    reader = own.get();
  }
  const ImageTree tree(*reader, o.write.image);
  try {
    patch_image_tree(o.patch, tree);
  } catch (const Error& e) {
    std::string m = e.what();
    if (const std::string done = "; nothing was changed"; m.ends_with(done)) m.resize(m.size() - done.size());
    throw Error(e.kind(), m + "; nothing was written", e.findings());
  }
}

}  // namespace piprov::provision
