// Whether a shrunk root fs grows back by itself (grows_back.hpp).
#include "keep/grows_back.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <optional>

#include "core/file.hpp"
#include "core/strings.hpp"
#include "image/disk_reader.hpp"

namespace piprov::keep {

namespace fs = std::filesystem;

namespace {

/// The module name of a cloud_init_modules entry ("growpart", ["growpart", "always"], {name: growpart}).
std::string gb_module_name(const YAML::Node& e) {
  if (e.IsScalar()) return std::string(trim(e.Scalar()));
  if (e.IsSequence() && e.size() > 0 && e[0].IsScalar()) return std::string(trim(e[0].Scalar()));
  if (e.IsMap() && e["name"] && e["name"].IsScalar()) return std::string(trim(e["name"].Scalar()));
  return "";
}

bool gb_false(const YAML::Node& n) {
  if (!n || !n.IsScalar()) return false;
  const std::string v = to_lower(trim(n.Scalar()));
  return v == "false" || v == "off" || v == "no" || v == "0";
}

}  // namespace

CloudInitGrowth cloud_init_growth(const std::vector<std::string>& config_texts) {
  std::optional<YAML::Node> modules, resize_rootfs, mode, devices;
  for (const auto& text : config_texts) {
    YAML::Node doc;
    try {
      doc = YAML::Load(text);
    } catch (const YAML::Exception&) {
      continue;
    }
    if (!doc.IsMap()) continue;
    if (doc["cloud_init_modules"]) modules = doc["cloud_init_modules"];
    if (doc["resize_rootfs"]) resize_rootfs = doc["resize_rootfs"];
    if (const YAML::Node g = doc["growpart"]; g && g.IsMap()) {  // a dict: merged key by key
      if (g["mode"]) mode = g["mode"];
      if (g["devices"]) devices = g["devices"];
    }
  }
  std::vector<std::string> names;
  if (modules && modules->IsSequence())
    for (const auto& e : *modules) names.push_back(gb_module_name(e));
  auto listed = [&](const char* m) { return std::find(names.begin(), names.end(), m) != names.end(); };
  CloudInitGrowth g;
  if (!listed("growpart"))
    g.why_not = "growpart is not in cloud_init_modules";
  else if (!listed("resizefs"))
    g.why_not = "resizefs is not in cloud_init_modules";
  else if (mode && gb_false(*mode))
    g.why_not = "growpart: mode: " + (mode->IsScalar() ? mode->Scalar() : std::string("off"));
  else if (devices && devices->IsSequence() && std::none_of(devices->begin(), devices->end(), [](const YAML::Node& d) {
             return d.IsScalar() && trim(d.Scalar()) == "/";
           }))
    g.why_not = "growpart: devices does not name /";
  else if (resize_rootfs && gb_false(*resize_rootfs))
    g.why_not = "resize_rootfs: false";
  else
    g.grows = true;
  return g;
}

std::string root_grows_back(image::ExtFiles& root) {
  const std::string grow_it = "after writing it, grow it (growpart DISK N, then resize2fs";
  std::string why;
  if (auto cfg = root.read_file("/etc/cloud/cloud.cfg", 1u << 20)) {
    std::vector<std::string> texts = {*cfg};
    const fs::path tmp = make_temp_dir("shrink-cloud");
    try {  // the drop-ins' names: the directory copied out (ExtFiles lists none)
      root.extract("/etc/cloud/cloud.cfg.d", tmp / "d", 4u << 20);
      std::vector<std::string> dropins;
      std::error_code ec;
      for (const auto& e : fs::directory_iterator(tmp / "d", ec))
        if (e.path().extension() == ".cfg") dropins.push_back(e.path().filename().string());
      std::sort(dropins.begin(), dropins.end());
      for (const auto& name : dropins)
        texts.push_back(root.read_file("/etc/cloud/cloud.cfg.d/" + name, 1u << 20).value_or(""));
    } catch (...) {
      std::error_code ec;
      fs::remove_all(tmp, ec);
      throw;
    }
    std::error_code ec;
    fs::remove_all(tmp, ec);
    const CloudInitGrowth g = cloud_init_growth(texts);
    if (root.read_file("/etc/cloud/cloud-init.disabled", 1u << 20))
      why = "cloud-init is disabled: /etc/cloud/cloud-init.disabled";
    else if (g.grows && root.read_file("/etc/growroot-disabled", 1u << 20))
      why = "cloud-init's growpart is disabled: /etc/growroot-disabled";
    else if (g.grows)
      return "it grows back to fill the disk at every boot (cloud-init's growpart and resizefs)";
    else
      why = "cloud-init's " + g.why_not;
    return "it does not grow back by itself (" + why + "): " + grow_it + ")";
  }
  return "it does not grow back by itself: " + grow_it + "; Raspberry Pi OS: sudo raspi-config --expand-rootfs)";
}

std::string root_grows_back_on(const std::string& dev) {
  auto reader = image::open_disk_reader(dev);
  image::ExtFiles root(*reader, 0, reader->size());
  return root_grows_back(root);
}

}  // namespace piprov::keep
