#include "provision/seed_notes.hpp"

#include <yaml-cpp/yaml.h>

#include <optional>

#include "core/error.hpp"
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

/// Whether cloud-init creates the distro's default user for `doc`: with no `users` key (the
/// image's cloud.cfg lists `default`), or a `users` list (sequence, comma-separated string or
/// map) that names `default`: a users list replaces cloud.cfg's `users: [default]`, so without
/// `default` in it no default user is made (cloud-init docs, Users and Groups; canonical/cloud-init
/// issue 3903). cc_ssh puts top-level ssh_authorized_keys on the default user only
/// (cloudinit/config/cc_ssh.py apply_credentials; root gets them with a forced "Please login as
/// the user ..." command).
bool sn_default_user_created(const YAML::Node& doc) {
  const YAML::Node u = doc["users"];
  if (!u || u.IsNull()) return true;
  if (u.IsScalar()) {
    for (const auto& name : split(u.Scalar(), ','))
      if (trim(name) == "default") return true;
    return false;
  }
  if (u.IsMap()) return static_cast<bool>(u["default"]);
  if (u.IsSequence())
    for (const auto& e : u)
      if (e.IsScalar() && trim(e.Scalar()) == "default") return true;
  return false;
}

/// The top-level keys of `doc` that give the default user a login ("ssh_authorized_keys", "password").
std::vector<std::string> sn_default_user_logins(const YAML::Node& doc) {
  std::vector<std::string> keys;
  if (!sn_scalar(doc["password"]).empty()) keys.push_back("password");
  if (sn_nonempty_seq(doc["ssh_authorized_keys"])) keys.push_back("ssh_authorized_keys");
  return keys;
}

std::optional<YAML::Node> sn_load_map(std::string_view text) {
  try {
    YAML::Node doc = YAML::Load(std::string(text));
    if (doc.IsMap()) return doc;
  } catch (const YAML::Exception&) {
  }
  return std::nullopt;
}

/// The names of `doc`'s users entries ("bob"), for the fix.
std::vector<std::string> sn_user_names(const YAML::Node& doc) {
  std::vector<std::string> names;
  if (doc["users"] && doc["users"].IsSequence())
    for (const auto& u : doc["users"])
      if (u.IsMap() && !sn_scalar(u["name"]).empty()) names.push_back(sn_scalar(u["name"]));
  return names;
}

/// The rule of seed_unused_login() and seed_users_without_login(): `doc` (user_data parsed) has a
/// users list without `default`, so cloud-init creates no default user, and nothing in it gives a
/// login (seed_login() "").
bool sn_users_list_gives_no_login(const std::optional<YAML::Node>& doc, std::string_view user_data) {
  return doc && !sn_default_user_created(*doc) && seed_login(user_data).empty();
}

/// How to give the node a login: the options when the user-data sets no users list (--user then
/// makes it), else an edit of the file's users list (--user next to it is refused: a key set twice).
std::string sn_login_fix(const std::optional<YAML::Node>& doc) {
  if (!doc || !(*doc)["users"]) return "add --user NAME with --ssh-key FILE or --password-hash HASH";
  const auto names = sn_user_names(*doc);
  return "add '- default' to the user-data's users list (cloud-init then creates the default user, who gets "
         "--ssh-key's keys and the top-level ssh_authorized_keys), or give " +
         (names.empty() ? std::string("a users entry") : "'" + names.front() + "'") +
         " ssh_authorized_keys, or hashed_passwd with lock_passwd: false";
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

std::string wifi_country_with_network_config(std::string_view text, const std::string& file,
                                             const std::string& country) {
  auto doc = sn_load_map(text);
  if (!doc) return "";
  YAML::Node net = (*doc)["network"] && (*doc)["network"].IsMap() ? (*doc)["network"] : *doc;
  const YAML::Node wifis = net["wifis"];
  if (!wifis || !wifis.IsMap() || wifis.size() == 0) return "";
  std::vector<std::string> without;
  for (const auto& w : wifis) {
    const std::string name = w.first.IsScalar() ? w.first.Scalar() : "?";
    const std::string regdom = w.second.IsMap() ? sn_scalar(w.second["regulatory-domain"]) : "";
    if (regdom.empty()) {
      without.push_back(name);
    } else if (to_lower(regdom) != to_lower(country)) {
      throw Error(ErrorKind::Usage,
                  file + " sets wifis." + name + ".regulatory-domain '" + regdom + "' and --wifi-country sets " +
                      country + ": keep one of them (netplan 0.105 and later sets '" + regdom +
                      "' at boot with iw reg set, over the cmdline's cfg80211.ieee80211_regdom=" + country + ")");
    }
  }
  if (without.empty()) return "";
  return "network-config (" + file + ") has no regulatory-domain for " + join(without, ", ") + ": the country " +
         country + " is set by cfg80211.ieee80211_regdom=" + country + " in the cmdline only";
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
  if (sn_default_user_created(doc))
    for (const auto& k : sn_default_user_logins(doc)) out.push_back(k + ": for the default user");
  if (doc["users"] && doc["users"].IsSequence()) {
    std::vector<std::string> users;
    for (const auto& u : doc["users"])
      if (auto l = sn_user_login(u); !l.empty()) users.push_back(l);
    if (!users.empty()) out.push_back("users: " + join(users, ", "));
  }
  return join(out, "; ");
}

std::string seed_unused_login(std::string_view user_data) {
  const auto doc = sn_load_map(user_data);
  if (!sn_users_list_gives_no_login(doc, user_data)) return "";
  const auto keys = sn_default_user_logins(*doc);
  if (keys.empty()) return "";
  return "the user-data's users list has no 'default', so cloud-init creates no default user and its top-level " +
         join(keys, " and ") +
         " (--ssh-key, --password-hash) go to no one (cloud-init docs, Users and Groups; cc_ssh gives root only "
         "a key that prints 'Please login as the user ...'): the node will have no console or SSH login; " +
         sn_login_fix(doc);
}

std::string seed_users_without_login(std::string_view user_data, bool user_option) {
  const auto doc = sn_load_map(user_data);
  if (!sn_users_list_gives_no_login(doc, user_data) || !sn_default_user_logins(*doc).empty()) return "";
  const auto names = sn_user_names(*doc);
  const std::string who = names.empty() ? std::string("its users") : "'" + join(names, "', '") + "'";
  return "the user-data's users list has no 'default' and gives " + who +
         " no SSH key and no password (cloud-init locks a user's password unless lock_passwd: false; cloud-init "
         "docs, Users and Groups): the node will have no console or SSH login; " +
         (user_option ? std::string("add --ssh-key FILE or --password-hash HASH") : sn_login_fix(doc));
}

SeedReplacement seed_replacement(const fs::path& boot_dir, const SeedPlan& plan) {
  SeedReplacement r;
  if (!plan.writes_files()) return r;
  r.login_warning = seed_unused_login(plan.user_data);
  std::error_code ec;
  for (const auto& name : seed_file_names())
    if (fs::exists(boot_dir / name, ec)) r.replaced.push_back(name);
  if (!r.replaced.empty() && r.replaced.front() == "user-data") {
    std::optional<std::string> old;
    try {
      old = read_file_capped((boot_dir / "user-data").string(), 1u << 20, "user-data");
    } catch (const std::exception&) {
    }
    r.image_login = old ? seed_login(*old) : "";
    if (!r.image_login.empty() && seed_login(plan.user_data).empty() && r.login_warning.empty())
      r.login_warning = "the image's user-data gave a way to log in (" + r.image_login +
                        ") and the new seed gives none: the node will have no console or SSH login (cloud-init "
                        "locks the default user's password); " +
                        (plan.user_option ? std::string("add --ssh-key FILE or --password-hash HASH")
                                          : sn_login_fix(sn_load_map(plan.user_data)));
  }
  if (r.login_warning.empty()) r.login_warning = seed_users_without_login(plan.user_data, plan.user_option);
  return r;
}

std::string seed_replacement_text(const SeedReplacement& r) {
  std::string s = r.replaced.empty() ? "" : "replaces the image's " + join(r.replaced, ", ");
  if (!r.login_warning.empty()) s += std::string(s.empty() ? "" : "; ") + "WARNING: " + r.login_warning;
  return s;
}

}  // namespace piprov::provision
