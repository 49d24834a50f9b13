// The cloud-config top-level keys a newer cloud-init only reads (seed_check_detail.hpp): each with
// the cloud-init release whose module first reads it, as cloud-init's module reference and its
// schema say it. Each version is checked against cloud-init's own schemas
// (cloudinit/config/schemas/schema-cloud-config-v1.json): the key is absent from the release
// before it and present from it on.
#include <string>
#include <vector>

#include "provision/seed/image_cloud_init.hpp"
#include "provision/seed/seed_check_detail.hpp"

namespace piprov::provision {
namespace {

constexpr const char* kSrcCloudInitSince =
    "cloud-init docs, Module reference (https://cloudinit.readthedocs.io/en/latest/reference/modules.html) and "
    "the release's schema (cloudinit/config/schemas/schema-cloud-config-v1.json): a cloud-init before the release "
    "has no module for the key and never applies it";

struct CloudInitKeySince {
  const char* key;
  const char* since;
  const char* what;  ///< the module that reads it
};

/// Keys newer than cloud-init 22.4 (Debian 12's and Ubuntu 20.04's 22.4.2, the oldest piprov judges with): rpi is
/// cc_raspberry_pi (cloud-init 25.2, "Raspberry Pi Configuration"); ubuntu_pro is cc_ubuntu_pro's new name for
/// ubuntu_advantage (the 24.1 schema marks ubuntu_advantage "deprecated_version": "24.1", "Use ubuntu_pro instead").
const std::vector<CloudInitKeySince>& ck_table() {
  static const std::vector<CloudInitKeySince> t = {
      {"rpi", "25.2", "the Raspberry Pi module cc_raspberry_pi"},
      {"ubuntu_pro", "24.1", "cc_ubuntu_pro (ubuntu_advantage before 24.1)"},
  };
  return t;
}

}  // namespace

std::string cloud_init_key_since(const std::string& key) {
  for (const auto& e : ck_table())
    if (key == e.key) return e.since;
  return "";
}

std::optional<Finding> seed_newer_key_finding(const std::string& key, const std::string& version,
                                              const std::string& judge, bool from_image, int line,
                                              const std::string& file) {
  const CloudInitKeySince* e = nullptr;
  for (const auto& x : ck_table())
    if (key == x.key) e = &x;
  if (!e || (!version.empty() && compare_versions(version, e->since) >= 0)) return std::nullopt;
  const std::string since = e->since;
  const std::string is =
      "'" + key + "' is read by cloud-init " + since + " and later (" + e->what + ", added in " + since + ")";
  if (from_image)
    return seed_finding("seed-cloud-init-version", Severity::Error, line, key, file,
                        is + "; this image's cloud-init is " + (version.empty() ? "of unknown version" : version) +
                            " (" + judge + "): it has no module for '" + key + "' and never applies it",
                        "use an image whose cloud-init is " + since + " or later, or remove '" + key +
                            "' and set the same on the node another way (e.g. runcmd)",
                        kSrcCloudInitSince);
  return seed_finding("seed-cloud-init-version", Severity::Warning, line, key, file,
                      is + "; judged by " + judge + ", this workstation's, not the node's: the node's cloud-init " +
                          "decides (one older than " + since + " ignores '" + key + "')",
                      "check with --image IMAGE (its cloud-init judges), or keep '" + key +
                          "' only if the node's cloud-init is " + since + " or later",
                      kSrcCloudInitSince);
}

}  // namespace piprov::provision
