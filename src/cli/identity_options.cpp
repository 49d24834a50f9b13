#include "cli/identity_options.hpp"

namespace piprov::cli {
namespace {

using provision::IdentityOptions;

struct TextOption {
  const char* name;
  std::string IdentityOptions::*field;
  const char* help;
};

struct ListOption {
  const char* name;
  std::vector<std::string> IdentityOptions::*field;
  const char* help;
};

constexpr TextOption kText[] = {
    {"--hostname", &IdentityOptions::hostnames,
     "Host name per target disk: NAME, a pattern node{1..3} or a comma list (exactly one per disk)"},
    {"--user", &IdentityOptions::user, "Admin user to create (sudo without password, SSH keys)"},
    {"--password-hash", &IdentityOptions::password_hash,
     "crypt(5) hash of the user's password ($y$/$6$..., from mkpasswd or openssl passwd -6); never a clear password"},
    {"--timezone", &IdentityOptions::timezone, "Time zone, e.g. Europe/Berlin"},
    {"--gateway", &IdentityOptions::gateway, "Default route for the --ip addresses"},
    {"--wifi-ssid", &IdentityOptions::wifi_ssid, "Wi-Fi network for wlan0 (DHCP); needs --wifi-psk-file"},
    {"--wifi-psk-file", &IdentityOptions::wifi_psk_file, "File whose first line is the Wi-Fi passphrase"},
    {"--wifi-country", &IdentityOptions::wifi_country,
     "Wi-Fi country, ISO 3166-1 alpha-2 (GB, DE, US): cfg80211.ieee80211_regdom=CC in cmdline.txt (and netplan's "
     "regulatory-domain for wlan0 when the image's netplan is 0.105 or later); alone it writes no seed; without it "
     "the Pi's Wi-Fi may stay blocked"},
    {"--user-data", &IdentityOptions::user_data_file,
     "Your own #cloud-config user-data (the options above are added to it)"},
    {"--network-config", &IdentityOptions::network_config_file,
     "Your own network-config (version 1 or 2) instead of the generated one"},
    {"--meta-data", &IdentityOptions::meta_data_file,
     "Your own meta-data (instance-id and local-hostname are set per disk)"},
};

constexpr ListOption kLists[] = {
    {"--ssh-key", &IdentityOptions::ssh_key_files, "SSH public key file (.pub) for the user (repeatable)"},
    {"--ip", &IdentityOptions::ips,
     "Static eth0 address per target disk, CIDR (comma list or repeated; in disk order); default DHCP"},
    {"--dns", &IdentityOptions::dns, "Name servers, IP,IP... (repeatable)"},
};

}  // namespace

// The files (--ssh-key, --wifi-psk-file, --user-data, ...) are read by
// plan_seeds(), which names the option and the path when one is missing, a
// directory, a FIFO or too big (one message for every command, core/file.hpp).
void add_identity_options(CLI::App* cmd, IdentityOptions& opts) {
  const std::string group = "First-boot identity (cloud-init NoCloud seed on the boot partition)";
  for (const auto& t : kText) cmd->add_option(t.name, opts.*t.field, t.help)->group(group);
  // "--wifi-ssid ''" leaves the field empty, as if not given: note that it was (check_combinations).
  cmd->get_option("--wifi-ssid")->each([&opts](const std::string&) { opts.wifi_ssid_given = true; });
  cmd->get_option("--wifi-country")->each([&opts](const std::string&) { opts.wifi_country_given = true; });
  for (const auto& l : kLists)
    cmd->add_option(l.name, opts.*l.field, l.help)->group(group)->allow_extra_args(false);  // one value per use
  cmd->add_flag("--force-seed", opts.force_seed,
                "Write your cloud-init files even when the seed check finds errors (e.g. keys newer than this "
                "host's cloud-init schema); they become warnings. Not for files that are not YAML or #cloud-config")
      ->group(group);
}

}  // namespace piprov::cli
