#pragma once
// What provision says about the seed it writes beside what it was asked for: whether wlan0's
// netplan `regulatory-domain` can be written for the image's netplan, which of the image's own
// seed files a new seed replaces, and whether the node keeps a way to log in.
// Sources: netplan docs, YAML configuration, wifis regulatory-domain (canonical/netplan PR #281,
// netplan 0.105); cloud-init docs, modules Set Passwords (chpasswd, password) and Users and
// Groups (users[].hashed_passwd, lock_passwd: true by default, ssh_authorized_keys).
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "provision/cloud_init.hpp"
#include "provision/seed/image_cloud_init.hpp"

namespace piprov::provision {

/// The netplan that first reads wifis' `regulatory-domain` (canonical/netplan PR #281).
inline constexpr const char* kNetplanRegdomSince = "0.105";

/// Whether piprov's network-config may carry `regulatory-domain` (*in_netplan): only when
/// `image` (may be nullptr) names a netplan of 0.105 or later. Returns the note for a plan
/// without it ("netplan 0.99, read from the image, refuses regulatory-domain ...: the country is
/// set by cfg80211.ieee80211_regdom=CC in the cmdline only"), "" when *in_netplan.
std::string regdom_netplan_note(const ImageCloudInit* image, bool* in_netplan);

/// The warning for a #cloud-config `user_data` that gives the default user a login (top-level
/// ssh_authorized_keys or password: --ssh-key, --password-hash with --user-data) but has a users
/// list without `default`, so cloud-init creates no default user and nothing else gives a login
/// (cloud-init docs, Users and Groups; cc_ssh.py apply_credentials); "" otherwise. Its fix: add
/// `default` to the users list, or keys/hashed_passwd to the user's entry.
std::string seed_unused_login(std::string_view user_data);

/// The warning for a #cloud-config `user_data` whose users list (without `default`, so no default
/// user is created) gives none of its users an SSH key or an unlocked password and that gives no
/// other login: --user NAME alone, or a --user-data users list like it (cloud-init docs, Users and
/// Groups: lock_passwd defaults to true); "" otherwise, and when seed_unused_login() warns. Its
/// fix: "add --ssh-key FILE or --password-hash HASH" when `user_option` (--user made the list),
/// else an edit of the users list.
std::string seed_users_without_login(std::string_view user_data, bool user_option);

/// --wifi-country `country` ("DE") next to the user's network-config `text` (from `file`): throws
/// Error(Usage) "FILE sets wifis.wlan0.regulatory-domain 'GB' and --wifi-country sets DE: keep one
/// of them" when a wifis entry names another country (netplan 0.105 and later sets it at boot with
/// `iw reg set`, canonical/netplan PR #281, over the cmdline's cfg80211.ieee80211_regdom); returns
/// the note "network-config (FILE) has no regulatory-domain for wlan0: the country DE is set by
/// cfg80211.ieee80211_regdom=DE in the cmdline only" when it has wifis without one; "" otherwise
/// (no wifis, the same country, or text that is not YAML: the seed check reports that).
std::string wifi_country_with_network_config(std::string_view text, const std::string& file,
                                             const std::string& country);

/// What in the #cloud-config `user_data` gives a way to log in, as cloud-init applies it:
/// "chpasswd: a password for ubuntu", "password: for the default user", "ssh_authorized_keys:
/// for the default user", "users: admin (SSH keys)", "users: admin (password)" (a users entry's
/// password counts only with lock_passwd: false, cloud-init locks it otherwise; top-level keys and
/// password only when the default user is created: no users list, or one naming `default`), joined with
/// "; "; "" when it gives none or is not a YAML map.
std::string seed_login(std::string_view user_data);

/// What writing `plan` onto a boot partition that holds the image's own seed does to it.
struct SeedReplacement {
  std::vector<std::string> replaced;  ///< the image's seed files the plan overwrites ("user-data", ...)
  std::string image_login;            ///< seed_login() of the image's user-data ("" when none)
  /// The image's user-data gave a login and the new one gives none: the node then has no
  /// console or SSH login (Ubuntu's default user is locked); or seed_unused_login(), or
  /// seed_users_without_login(). "" otherwise.
  /// The fix edits the user-data's users list when it has one (--user next to it is refused).
  std::string login_warning;
};

/// The replacement of the seed files in `boot_dir` by `plan` (read before it is written).
/// Never throws for unreadable files (they count as replaced, giving no login).
SeedReplacement seed_replacement(const std::filesystem::path& boot_dir, const SeedPlan& plan);

/// "replaces the image's user-data, network-config, meta-data" ("" when nothing is replaced),
/// then "; WARNING: ..." when a login is lost.
std::string seed_replacement_text(const SeedReplacement& r);

}  // namespace piprov::provision
