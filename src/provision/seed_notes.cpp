#include "provision/seed_notes.hpp"

#include <yaml-cpp/yaml.h>

#include "core/file.hpp"
#include "core/strings.hpp"

namespace fs = std::filesystem;

namespace piprov::provision {
namespace {

bool sn_nonempty_seq(const YAML::Node& n) { return n && n.IsSequence() && n.size() > 0; }

std::string sn_scalar(const YAML::Node& n) { return n && n.IsScalar() ? n.Scalar() : ""; }

/// A users entry's login ("admin (SSH keys)"), "" when it gives none.
std::string sn_user_login(const YAML::Node& u) {
  if (!u.IsMap()) return "";
  const std::string name = sn_scalar(u["name"]).empty() ? "a user" : sn_scalar(u["name"]);
  std::vector<std::string> how;
  if (sn_nonempty_seq(u["ssh_authorized_keys"]) || u["ssh_import_id"]) how.push_back("SSH keys");
  const bool has_password = u["hashed_passwd"] || u["passwd"] || u["plain_text_passwd"];
  const std::string lock = to_lower(sn_scalar(u["lock_passwd"]));
  if (has_password && (lock == "false" || lock == "no" || lock == "off")) how.push_back("password");
  return how.empty() ? "" : name + " (" + join(how, ", ") + ")";
}

}  // namespace

std::string regdom_netplan_note(const ImageCloudInit* image, bool* in_netplan) {
  const std::string version = image ? image->netplan_version : "";
  *in_netplan = !version.empty() && compare_versions(version, kNetplanRegdomSince) >= 0;
  if (*in_netplan) return "";
  const std::string why = version.empty()
                              ? std::string("the image names no netplan version") +
                                    (image && !image->note.empty() && !image->root_read ? " (" + image->note + ")" : "")
                              : "netplan " + version + ", read from the image, refuses it";
  return "network-config has no regulatory-domain for wlan0 (" + why +
         "; netplan reads it from 0.105 on, canonical/netplan PR #281, and an older one refuses the whole config): "
         "the country is set by cfg80211.ieee80211_regdom in the cmdline only";
}

std::string seed_login(std::string_view user_data) {
  YAML::Node doc;
  try {
    doc = YAML::Load(std::string(user_data));
  } catch (const YAML::Exception&) {
    return "";
  }
  if (!doc.IsMap()) return "";
  std::vector<std::string> out;
  if (const YAML::Node c = doc["chpasswd"]; c && c.IsMap()) {
    std::vector<std::string> names;
    if (c["users"] && c["users"].IsSequence())
      for (const auto& u : c["users"])
        if (u.IsMap() && u["password"]) names.push_back(sn_scalar(u["name"]).empty() ? "a user" : sn_scalar(u["name"]));
    if (!names.empty()) out.push_back("chpasswd: a password for " + join(names, ", "));
    if ((c["list"] && c["list"].IsScalar() && !trim(c["list"].Scalar()).empty()) || sn_nonempty_seq(c["list"]))
      out.push_back("chpasswd.list: passwords");
  }
  if (!sn_scalar(doc["password"]).empty()) out.push_back("password: for the default user");
  if (sn_nonempty_seq(doc["ssh_authorized_keys"])) out.push_back("ssh_authorized_keys: for the default user");
  if (doc["users"] && doc["users"].IsSequence()) {
    std::vector<std::string> users;
    for (const auto& u : doc["users"])
      if (auto l = sn_user_login(u); !l.empty()) users.push_back(l);
    if (!users.empty()) out.push_back("users: " + join(users, ", "));
  }
  return join(out, "; ");
}

SeedReplacement seed_replacement(const fs::path& boot_dir, const SeedPlan& plan) {
  SeedReplacement r;
  if (!plan.writes_files()) return r;
  std::error_code ec;
  for (const auto& name : seed_file_names())
    if (fs::exists(boot_dir / name, ec)) r.replaced.push_back(name);
  if (r.replaced.empty() || r.replaced.front() != "user-data") return r;
  std::optional<std::string> old;
  try {
    old = read_file_capped((boot_dir / "user-data").string(), 1u << 20, "user-data");
  } catch (const std::exception&) {
  }
  r.image_login = old ? seed_login(*old) : "";
  if (!r.image_login.empty() && seed_login(plan.user_data).empty())
    r.login_warning = "the image's user-data gave a way to log in (" + r.image_login +
                      ") and the new seed gives none: the node will have no console or SSH login (cloud-init locks "
                      "the default user's password); add --user NAME with --ssh-key FILE or --password-hash HASH";
  return r;
}

std::string seed_replacement_text(const SeedReplacement& r) {
  std::string s = r.replaced.empty() ? "" : "replaces the image's " + join(r.replaced, ", ");
  if (!r.login_warning.empty()) s += std::string(s.empty() ? "" : "; ") + "WARNING: " + r.login_warning;
  return s;
}

}  // namespace piprov::provision
