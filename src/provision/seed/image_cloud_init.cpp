#include "provision/seed/image_cloud_init.hpp"

#include <regex>

#include "core/error.hpp"
#include "core/strings.hpp"
#include "image/image_fs.hpp"
#include "provision/cloud_init.hpp"
#include "provision/image_check.hpp"

namespace piprov::provision {

std::string upstream_version(const std::string& debian_version) {
  std::string v = debian_version;
  if (auto colon = v.find(':'); colon != std::string::npos) v = v.substr(colon + 1);
  if (auto dash = v.rfind('-'); dash != std::string::npos) v = v.substr(0, dash);
  static const std::regex lead("^[0-9]+(\\.[0-9]+)*");
  std::smatch m;
  return std::regex_search(v, m, lead) ? m.str(0) : "";
}

int compare_versions(const std::string& a, const std::string& b) {
  auto as = split(a, '.'), bs = split(b, '.');
  for (std::size_t i = 0; i < std::max(as.size(), bs.size()); ++i) {
    const long x = i < as.size() && !as[i].empty() ? std::stol(std::string(as[i])) : 0;
    const long y = i < bs.size() && !bs[i].empty() ? std::stol(std::string(bs[i])) : 0;
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

std::string dpkg_installed_version(const std::string& status, const std::string& package) {
  std::string name, version, state;
  auto done = [&]() { return name == package && state == "install ok installed"; };
  for (const auto& raw : split(status + "\n", '\n')) {
    const std::string line(raw);
    if (line.empty()) {
      if (done()) return version;
      name.clear(), version.clear(), state.clear();
    } else if (line.rfind("Package:", 0) == 0) {
      name = std::string(trim(line.substr(8)));
    } else if (line.rfind("Version:", 0) == 0) {
      version = std::string(trim(line.substr(8)));
    } else if (line.rfind("Status:", 0) == 0) {
      state = std::string(trim(line.substr(7)));
    }
  }
  return done() ? version : "";
}

std::string no_cloud_init_refusal(const ImageCloudInit& ci) {
  return ci.missing +
         ": use an image with cloud-init (Ubuntu's raspi images, Raspberry Pi OS trixie) or provision without identity "
         "options";
}

std::shared_ptr<const ImageCloudInit> read_image_cloud_init(const std::string& path) {
  return read_image_cloud_init(*image::open_image_reader(path), path);
}

namespace {
/// The root fs boot check IMAGE reads (ImageTree::root_partition()), of `tree` or of one read here; none,
/// with *why set, when that tree read none (root= names a partition without ext2/3/4); the first ext2/3/4
/// when the image has no FAT partition (no cmdline file names a root).
std::unique_ptr<image::ExtFiles> cloud_init_root_fs(image::ImageReader& reader, const std::string& path,
                                                    const ImageTree* tree, std::string* why) {
  std::unique_ptr<ImageTree> own;
  if (!tree) {
    try {
      own = std::make_unique<ImageTree>(reader, path);
      tree = own.get();
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::Usage) throw;
    }
  }
  if (!tree) return image::open_root_fs(reader, why);  // no boot partition: the first ext2/3/4
  auto root = tree->open_root_fs();
  if (!root) *why = tree->root_note();
  return root;
}
}  // namespace

std::shared_ptr<const ImageCloudInit> read_image_cloud_init(image::ImageReader& reader, const std::string& path,
                                                            const ImageTree* tree) {
  auto out = std::make_shared<ImageCloudInit>();
  out->image = path;
  out->random_access = reader.random_access();
  if (!reader.random_access()) {
    out->note = reader.sequential_note() + "; its root file system was not read";
    return out;
  }
  std::string why;
  auto root = cloud_init_root_fs(reader, path, tree, &why);
  if (!root) {
    out->note = why;
    return out;
  }
  out->root_read = true;
  const std::string status = root->read_file("/var/lib/dpkg/status", 64u << 20).value_or("");
  out->cloud_init_version = upstream_version(dpkg_installed_version(status, "cloud-init"));
  if (out->cloud_init_version.empty()) {
    static const std::regex v("__VERSION__\\s*=\\s*[\"']([^\"']+)[\"']");
    const std::string py = root->read_file("/usr/lib/python3/dist-packages/cloudinit/version.py", 1 << 16).value_or("");
    std::smatch m;
    if (std::regex_search(py, m, v)) out->cloud_init_version = m.str(1);
  }
  for (const char* pkg : {"netplan.io", "libnetplan1", "libnetplan0"})
    if (out->netplan_version.empty()) out->netplan_version = upstream_version(dpkg_installed_version(status, pkg));
  out->missing = cloud_init_missing(root->read_file("/usr/bin/cloud-init", 16u << 20).has_value(),
                                    root->is_directory("/etc/cloud"));
  out->schema_text = root->read_file(kImageSchemaPath, 16u << 20).value_or("");
  if (out->schema_text.empty())
    out->note = out->cloud_init_version.empty()
                    ? "the image has no cloud-init (no cloud-init in /var/lib/dpkg/status, no cloudinit/version.py)"
                    : "the image's cloud-init " + out->cloud_init_version + " has no " + kImageSchemaPath;
  return out;
}

}  // namespace piprov::provision
