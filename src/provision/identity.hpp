#pragma once
// First-boot identity options of `provision` and their validation, all done
// before the first byte is written: one hostname per target (NAME, a pattern
// node{1..3} or a comma list), public SSH keys only, a crypt(3) password hash
// only, one static address per target (or DHCP), optional Wi-Fi, or the
// user's own cloud-init files. plan_seeds() turns them into one NoCloud seed
// per target (cloud_init.hpp builds the YAML).
// Sources: RFC 1123 section 2.1 (host names); OpenSSH ssh-keygen(1) and
// RFC 4253 section 6.6 (public key blob: string type, ...); crypt(5) (hash
// prefixes $y$, $6$, $5$, $2b$); cloud-init docs "NoCloud" and "Networking
// config Version 2".
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "provision/cloud_init.hpp"
#include "provision/seed/seed_check.hpp"

namespace piprov::provision {

/// What `provision --hostname/--user/...` asked for (strings as typed).
struct IdentityOptions {
  std::string hostnames;                   ///< "node1", "node{1..3}", "a,b,c": one name per target
  std::string user;                        ///< admin user (sudo, SSH keys)
  std::vector<std::string> ssh_key_files;  ///< public key files (.pub, authorized_keys)
  std::string password_hash;               ///< crypt(3) hash of the user's password
  std::string timezone;                    ///< tz database name, "Europe/Berlin"
  std::vector<std::string> ips;            ///< CIDR per target; entries may be comma lists
  std::string gateway;                     ///< IPv4/IPv6 default route (with --ip)
  std::vector<std::string> dns;            ///< name servers; entries may be comma lists
  std::string wifi_ssid, wifi_psk_file;    ///< Wi-Fi network (wlan0, DHCP)
  bool wifi_ssid_given = false;            ///< --wifi-ssid was given (even as ""): an empty SSID is refused
  std::string wifi_country;                ///< ISO 3166-1 alpha-2 regulatory domain ("GB"), as typed
  bool wifi_country_given = false;         ///< --wifi-country was given (even as ""): an empty one is refused
  std::string user_data_file, network_config_file, meta_data_file;  ///< the user's own files
  /// --force-seed: the seed check's errors (but an unreadable file) become
  /// warnings and the seed is written. Not counted by any().
  bool force_seed = false;
  /// True when any identity option is set (then provision writes a seed, or for --wifi-country
  /// alone only sets cfg80211.ieee80211_regdom in the cmdline files: seed_wanted()).
  bool any() const;
  /// True when an option other than --wifi-country is set: a seed is written.
  bool seed_wanted() const;
};

/// The names `spec` gives for `targets` disks: "node{1..3}" -> node1, node2,
/// node3 ("{01..03}" keeps the zero padding), "a,b" -> a, b, "x" -> x.
/// Each must be an RFC 1123 host name label (1-63 of a-z, A-Z, 0-9, '-', not
/// starting or ending with '-'), all distinct. Throws Error{Usage} naming
/// the bad name, or the count when it differs from `targets`.
std::vector<std::string> expand_hostnames(std::string_view spec, std::size_t targets);

/// The public keys in `text` (the content of `file`), one per non-empty,
/// non-comment line, each "TYPE BASE64 [comment]" with TYPE one of ssh-ed25519,
/// ssh-rsa, ecdsa-sha2-nistp256/384/521, sk-ssh-ed25519@openssh.com,
/// sk-ecdsa-sha2-nistp256@openssh.com, and a base64 body whose first field
/// names the same TYPE. Throws Error{Usage} for a private key ("-----BEGIN
/// ... PRIVATE KEY-----"), a bad line (its number), or no key at all.
std::vector<std::string> parse_public_keys(std::string_view text, const std::string& file);

/// Throws Error{Usage} unless `hash` has the shape of a crypt(5) hash:
/// yescrypt $y$, SHA-512 $6$, SHA-256 $5$ (optional rounds=N$), bcrypt $2b$.
void check_password_hash(std::string_view hash);

/// The IP value of option `what` (IpValue, ip_value.hpp). With `require_prefix`, "ADDRESS/PREFIX"
/// with a prefix of 1..32 (IPv4) or 1..128 (IPv6): netplan refuses a /0 address ("invalid prefix
/// length"), and an IPv4 address with a prefix of /30 or shorter must not be its subnet's network
/// or broadcast address (RFC 950, RFC 919); without, a bare address. Either way it must be a
/// host's: no loopback, multicast, 'this network', reserved or limited broadcast address (IPv6 ::,
/// ::1, ff00::/8; IpValue::not_a_host(), RFC 1122 3.2.1.3, RFC 6890). Throws Error{Usage} naming
/// `what` and the value.
IpValue check_ip(std::string_view text, bool require_prefix, const std::string& what);

/// Throws Error{Usage} unless `gateway` (--gateway) is of the same IP version as `cidr` (--ip),
/// not its address, and inside its subnet or an IPv6 link-local address (fe80::/10: on-link,
/// RFC 4861 4.2, 6.1.2).
void check_gateway(const IpValue& gateway, const IpValue& cidr);

/// The Wi-Fi country `cc` in upper case ("gb" -> "GB"). Throws Error{Usage} unless it is an
/// ISO 3166-1 alpha-2 code listed in `iso3166_tab` (the tz database's iso3166.tab,
/// /usr/share/zoneinfo/iso3166.tab: "CC<TAB>name" lines); without that file only the shape (two
/// letters) is checked. netplan's wifis `regulatory-domain` and the kernel's
/// cfg80211.ieee80211_regdom take this code (netplan docs, YAML configuration; Linux
/// net/wireless/reg.c); rpi-imager writes both (raspberrypi/rpi-imager issues 1066, 1123).
std::string check_wifi_country(const std::string& cc, const std::filesystem::path& iso3166_tab);

/// True when `name` is one label of a host name (RFC 1123 section 2.1, RFC 952): 1-63 letters,
/// digits and '-', not starting or ending with '-'.
bool is_host_label(const std::string& name);

/// Throws Error{Usage} unless `tz` is a zone name ("Europe/Berlin", "UTC")
/// that names a TZif file (RFC 8536) under `zoneinfo` (the tz database,
/// /usr/share/zoneinfo); with no such directory only the name's shape is checked. A name not
/// there gets "did you mean Europe/Berlin?": the zone that differs only in case, else the nearest
/// within 3 edits (as --wifi-country UK gets GB).
void check_timezone(const std::string& tz, const std::filesystem::path& zoneinfo);

/// A WPA2/WPA3 passphrase (8-63 printable ASCII, spaces included) or a 64-hex-digit PSK: the
/// first line of `text` without its line end (\n or \r\n); leading and trailing spaces are kept,
/// they are part of the passphrase (IEEE 802.11i). Throws Error{Usage}.
std::string parse_wifi_psk(std::string_view text, const std::string& file);

/// Validates every option and user file (Error{Usage} naming the option or
/// file; Error{Io} when a file cannot be read), checks the user's seed files
/// (seed_check.hpp: any error refuses with Error{Usage}, message
/// refusal_text(), carrying every finding of the check; --force-seed makes most
/// errors warnings; the findings go to *check), checks piprov's own generated
/// network-config with the same check_network_config() (an error refuses the same
/// way, warnings join *check) and returns one seed per
/// target, in order. Nothing is written. Empty when !o.any(). `image`: the
/// cloud-init of the image the seeds go onto (SeedCheckOptions::image), the
/// judge of the user's files.
std::vector<SeedPlan> plan_seeds(const IdentityOptions& o, const std::vector<std::string>& targets,
                                 SeedCheck* check = nullptr,
                                 const std::shared_ptr<const ImageCloudInit>& image = nullptr);

/// `piprov seed check` (issue 29): the check plan_seeds() runs on the user's
/// files (o.user_data_file, network_config_file, meta_data_file; --force-seed),
/// without a disk; judged by the cloud-init of `image` (read_image_cloud_init())
/// when it is not "", else by the installed one. Never throws for findings:
/// the caller refuses (refusal_text()) when refused(). Throws Error{Usage}
/// when no file is given or one cannot be read (as provision), or IMAGE cannot be opened.
SeedCheck check_seed_files(const IdentityOptions& o, const std::string& image);

}  // namespace piprov::provision
