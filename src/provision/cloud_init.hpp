#pragma once
// The cloud-init NoCloud seed on the boot partition, as Ubuntu's raspi images
// and Raspberry Pi OS (trixie and later) read it: `user-data` (#cloud-config),
// `meta-data` (instance-id: a new one makes cloud-init run again) and
// `network-config` (network config version 2). YAML is built and read back
// with yaml-cpp, never pasted together.
// Sources: cloud-init docs "NoCloud" datasource, "User data formats"
// (#cloud-config), "Networking config Version 2", module docs cc_users_groups
// (users, ssh_authorized_keys, hashed_passwd, lock_passwd, sudo),
// cc_set_hostname, cc_timezone, cc_set_passwords (ssh_pwauth).
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "provision/ip_value.hpp"

namespace piprov::provision {

/// Everything one target's seed says, already validated (identity.hpp).
struct NodeIdentity {
  std::string hostname;  ///< "" = not set
  std::string instance_id;
  std::string user;                   ///< "" = keys go to the image's default user
  std::vector<std::string> ssh_keys;  ///< "TYPE BASE64 [comment]" lines
  std::string password_hash, timezone;
  std::optional<IpValue> address;   ///< ADDR/PREFIX on eth0; nullopt = DHCP
  std::optional<IpValue> gateway;   ///< default route via this address (with `address`)
  std::vector<IpValue> dns;         ///< name servers
  std::string wifi_ssid, wifi_psk;  ///< wlan0 with DHCP when the SSID is set
  std::string wifi_country;         ///< "GB": cfg80211.ieee80211_regdom (and regulatory-domain); "" = not set
  /// wlan0 gets netplan's `regulatory-domain: CC` too: only when the image's netplan reads it
  /// (0.105 and later, canonical/netplan PR #281); an older one refuses the whole config.
  bool regdom_in_netplan = false;
  /// The user's own files (content, "" when not given) and their paths for messages.
  std::string user_data_base, network_config_base, meta_data_base;
  std::string user_data_file, network_config_file, meta_data_file;
};

/// One target's seed: what is written and what `--json` reports.
struct SeedPlan {
  std::string target;                                ///< "/dev/sdb"
  std::string hostname;                              ///< "" when --hostname was not given
  std::string instance_id;                           ///< unique per target and run
  std::string user_data, meta_data, network_config;  ///< file contents
  /// --wifi-country ("GB", "" = none): also cfg80211.ieee80211_regdom=CC in the cmdline files
  /// (first_boot.hpp set_wifi_regdom()), as rpi-imager writes it (rpi-imager issues 1066, 1123).
  std::string wifi_country;
  std::string wifi_ssid;  ///< --wifi-ssid ("" = no Wi-Fi): without wifi_country the plan notes it
  /// Why network-config has no `regulatory-domain` although --wifi-country and --wifi-ssid were
  /// given (the image's netplan is older than 0.105, or unknown); "" when it has it or no Wi-Fi.
  std::string regdom_note;
  /// --user was given: user_data's users list is piprov's entry for it (its login is --ssh-key or
  /// --password-hash; a --user-data that sets users is refused next to --user).
  bool user_option = false;
  /// False for --wifi-country alone: only the cmdline files change, no seed file is written
  /// (user_data, network_config, meta_data and instance_id are then "").
  bool writes_files() const { return !meta_data.empty(); }
};

/// File names of the seed, in the order written: meta-data (the new
/// instance-id, which makes cloud-init act) last.
inline const std::vector<std::string>& seed_file_names() {
  static const std::vector<std::string> v = {"user-data", "network-config", "meta-data"};
  return v;
}

/// True when every line of `text` is blank or a comment ('#' first after
/// white space; "#cloud-config" is one too), also for "": a cloud-init file
/// that sets nothing.
bool blank_or_comments(std::string_view text);

/// `user-data`: "#cloud-config" and a map with hostname/preserve_hostname,
/// users (name, sudo, shell, lock_passwd, hashed_passwd,
/// ssh_authorized_keys) or top-level ssh_authorized_keys without a user,
/// ssh_pwauth false with keys and no password, timezone. With the user's
/// file it is the base: it must start with "#cloud-config" and be a YAML map
/// (or set nothing: blank_or_comments()), and may not set a key an option sets too. Throws Error{Usage} naming the
/// file.
std::string build_user_data(const NodeIdentity& n);

/// `meta-data`: instance-id and local-hostname (over the user's file's, which
/// must be a YAML map; its other keys are kept). Throws Error{Usage}.
std::string build_meta_data(const NodeIdentity& n);

/// `network-config` (version 2): eth0 with dhcp4, or addresses + a default
/// route (`to: 0.0.0.0/0` or `to: "::/0"`, never `to: default`, which
/// netplan < 0.103 and cloud-init's network_state before PR 6391 reject:
/// cloud-init issues 3988 and 4133) + nameservers; wlan0 under wifis with access-points when an SSID is
/// given, with `regulatory-domain: CC` when a Wi-Fi country is and n.regdom_in_netplan; or the user's file, which
/// must be a YAML map of version 1 or 2 (at the top or under `network:`). Throws Error{Usage} naming the file.
std::string build_network_config(const NodeIdentity& n);

/// Why the root fs at `root_dir` cannot read a NoCloud seed ("" when it can:
/// usr/bin/cloud-init and etc/cloud exist).
std::string cloud_init_missing(const std::filesystem::path& root_dir);
/// The same sentence from what a root fs holds (an image's, read_image_cloud_init()).
std::string cloud_init_missing(bool has_bin, bool has_etc);

/// Writes the seed's files into `boot_dir`, each atomically (core
/// AtomicFile). Returns their names. Throws Error{Io}.
std::vector<std::string> write_seed(const SeedPlan& plan, const std::filesystem::path& boot_dir);

}  // namespace piprov::provision
