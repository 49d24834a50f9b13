#pragma once
// The cloud-init and netplan an image will run (issue 27): read from the
// image's root file system through the random-access reader
// (image/image_fs.hpp), before anything is written, so a seed is judged by
// the node's own cloud-init, not by the workstation's.
// - the cloud-init version: the dpkg status entry of package `cloud-init`
//   (var/lib/dpkg/status, deb-control(5) fields Package/Status/Version),
//   else `__VERSION__` of cloudinit/version.py;
// - its user-data schema, where the cloud-init package installs it:
//   usr/lib/python3/dist-packages/cloudinit/config/schemas/schema-cloud-config-v1.json;
// - the netplan version: dpkg status `netplan.io`, else `libnetplan1`/`libnetplan0`.
#include <memory>
#include <string>

#include "image/image_reader.hpp"

namespace piprov::provision {

/// Where Debian's and Ubuntu's cloud-init package installs its user-data schema.
inline constexpr const char* kImageSchemaPath =
    "/usr/lib/python3/dist-packages/cloudinit/config/schemas/schema-cloud-config-v1.json";

struct ImageCloudInit {
  std::string image;               ///< IMAGE as given
  std::string cloud_init_version;  ///< upstream version ("24.1", from "24.1.3-0ubuntu3"), "" when none
  std::string netplan_version;     ///< upstream version ("1.0", "0.103"), "" when none
  std::string schema_text;         ///< the schema file's text, "" when the image gives none
  /// Why the image gives no schema ("gzip is sequential: ...", "the image has no
  /// cloud-init (no cloud-init in var/lib/dpkg/status, no cloudinit/version.py)"), "" when it does.
  std::string note;
  /// cloud_init_missing() of the image's root fs: why it would ignore a seed; "" when it has
  /// cloud-init or its root fs was not read (`note` says why).
  std::string missing;
  bool root_read = false;      ///< its root fs was read (random access, found): `note` is then about its content
  bool random_access = false;  ///< the image's reader is random access (a sequential one's root fs is not read)
  bool has_schema() const { return !schema_text.empty(); }
};

/// The refusal of provision and `seed check --image` for an image whose root fs has no cloud-init
/// (`ci.missing` not ""): what is missing and what to do (cloud-init docs, NoCloud: the seed is
/// read by cloud-init on the node; without it nothing of the seed is applied).
std::string no_cloud_init_refusal(const ImageCloudInit& ci);

/// The cloud-init of IMAGE. A sequential-only image (image_reader.hpp) is not
/// read (its root file system lies behind most of its bytes): note says so.
/// Throws Error{Usage} when IMAGE cannot be opened (missing, unsupported
/// format) or a file in it is damaged, Error{Io} on read errors.
std::shared_ptr<const ImageCloudInit> read_image_cloud_init(const std::string& image);

class ImageTree;

/// The same, of the image `image` already open behind `reader` (provision reads it through its prepared write).
/// The root fs is the partition boot check IMAGE reads (ImageTree::root_partition(): the one the cmdline
/// file's root= names, else the first ext2/3/4; Linux admin-guide kernel-parameters: root=), of `tree`
/// when given (read through `reader` already), else of an ImageTree read here.
std::shared_ptr<const ImageCloudInit> read_image_cloud_init(image::ImageReader& reader, const std::string& image,
                                                            const ImageTree* tree = nullptr);

/// The upstream version of a Debian package version: epoch and Debian
/// revision removed, then the leading digits-and-dots ("1:25.2-0ubuntu1~24.04.1"
/// -> "25.2", "0.103-0ubuntu5~20.04.6" -> "0.103"). Debian Policy 5.6.12.
std::string upstream_version(const std::string& debian_version);

/// Compares dotted numeric versions ("0.99" < "0.103" < "1.0"): <0, 0, >0.
int compare_versions(const std::string& a, const std::string& b);

/// The Version of `package` in a dpkg status file's text when its Status is
/// "install ok installed"; "" when absent.
std::string dpkg_installed_version(const std::string& status, const std::string& package);

}  // namespace piprov::provision
