#include "provision/identity.hpp"

#include <yaml-cpp/binary.h>
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

#include "core/error.hpp"
#include "core/file.hpp"
#include "core/random.hpp"
#include "core/strings.hpp"
#include "image/disk_identity.hpp"
#include "image/image_fs.hpp"
#include "image/write_targets.hpp"
#include "provision/seed/seed_network_detail.hpp"
#include "provision/seed_notes.hpp"

namespace piprov::provision {
namespace {

Error usage(const std::string& m) { return Error(ErrorKind::Usage, m); }

void check_hostname(const std::string& name) {
  if (!is_host_label(name))
    throw usage("--hostname: '" + name +
                "' is not a host name (1-63 letters, digits and '-', not starting or ending with '-'; no dots)");
}

/// "node{1..3}" -> node1..node3; nullopt when `spec` has no "{A..B}".
std::optional<std::vector<std::string>> expand_range(const std::string& spec) {
  static const std::regex range("^([^{}]*)\\{([0-9]+)\\.\\.([0-9]+)\\}([^{}]*)$");
  std::smatch m;
  if (!std::regex_match(spec, m, range)) return std::nullopt;
  const std::string a = m[2], b = m[3];
  if (a.size() > 6 || b.size() > 6) throw usage("--hostname: the range in '" + spec + "' is too large");
  int from = std::stoi(a), to = std::stoi(b);
  if (from > to) throw usage("--hostname: the range in '" + spec + "' counts down; write {" + b + ".." + a + "}");
  std::size_t width = a.size() > 1 && a[0] == '0' ? a.size() : 0;  // {01..03}: zero-padded
  std::vector<std::string> out;
  for (int i = from; i <= to; ++i) {
    std::string num = std::to_string(i);
    if (num.size() < width) num.insert(0, width - num.size(), '0');
    out.push_back(std::string(m[1]) + num + std::string(m[4]));
  }
  return out;
}

/// The items of a comma-list option (`option`: "--dns"), each trimmed; an empty item ("a,,b",
/// "a,", "") is refused rather than dropped (it is a typo, never a value).
std::vector<std::string> split_list(const std::vector<std::string>& entries, const std::string& option) {
  std::vector<std::string> out;
  for (const auto& e : entries)
    for (const auto& part : split(e, ',')) {
      auto t = std::string(trim(part));
      if (t.empty())
        throw usage(option + ": '" + e + "' has an empty item: give the values separated by single commas (" +
                    (option == "--dns" ? "1.1.1.1,9.9.9.9" : "192.168.1.11/24,192.168.1.12/24") + ")");
      out.push_back(t);
    }
  return out;
}

bool is_public_key_type(const std::string& t) {
  static const std::set<std::string> types = {"ssh-ed25519",
                                              "ssh-rsa",
                                              "ecdsa-sha2-nistp256",
                                              "ecdsa-sha2-nistp384",
                                              "ecdsa-sha2-nistp521",
                                              "sk-ssh-ed25519@openssh.com",
                                              "sk-ecdsa-sha2-nistp256@openssh.com"};
  return types.count(t) > 0;
}

/// The key type the blob's first field (uint32 length, string) names.
std::string blob_type(const std::vector<unsigned char>& blob) {
  if (blob.size() < 4) return "";
  std::size_t len = (std::size_t{blob[0]} << 24) | (std::size_t{blob[1]} << 16) | (std::size_t{blob[2]} << 8) | blob[3];
  if (len > 64 || blob.size() < 4 + len) return "";
  return std::string(blob.begin() + 4, blob.begin() + 4 + static_cast<long>(len));
}

std::string check_key_line(const std::string& line, const std::string& where) {
  auto words = split(line, ' ');
  words.erase(std::remove(words.begin(), words.end(), ""), words.end());
  if (words.size() < 2 || !is_public_key_type(words[0]))
    throw usage(where +
                " is not an SSH public key (TYPE BASE64 [comment], TYPE ssh-ed25519, ssh-rsa, ecdsa-sha2-*, "
                "sk-*); pass a .pub file");
  auto blob = YAML::DecodeBase64(words[1]);
  if (blob.empty() || blob_type(blob) != words[0])
    throw usage(where + ": the base64 body of the " + words[0] + " key is damaged (it does not encode a " + words[0] +
                " key); copy the .pub file again");
  return line;
}

/// The file `path` an option names, `what` it holds ("user-data"). Every
/// refusal is Error{Usage} naming the option and the path: "-" (standard
/// input is not read here), a path that does not exist, anything but a regular
/// file (read_file_capped(): a FIFO never blocks), over 1 MiB (keys and
/// cloud-init files are kilobytes).
std::string user_file(const std::string& path, const std::string& option, const std::string& what) {
  if (path == "-")
    throw usage(option + " -: " + option + " does not read standard input; give the path of the " + what + " file");
  std::optional<std::string> text;
  try {
    text = read_file_capped(path, 1u << 20, what);
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::Usage) throw usage(option + " " + e.what());
    throw;
  }
  if (!text) throw usage(option + " " + path + " is over 1 MiB: not what " + option + " takes");
  return *text;
}

NodeIdentity common_identity(const IdentityOptions& o) {
  NodeIdentity n;
  n.user = o.user;
  std::map<std::string, std::string> key_files;  // "TYPE BASE64" (the key without its comment) -> its file
  for (const auto& f : o.ssh_key_files)
    for (auto& key : parse_public_keys(user_file(f, "--ssh-key", "SSH public key"), f)) {
      std::istringstream words(key);
      std::string type, body;
      words >> type >> body;
      if (auto [it, fresh] = key_files.emplace(type + " " + body, f); !fresh)  // as --dns: a value given twice
        throw usage("--ssh-key: the " + type + " key in " + f + " is given twice (first in " + it->second +
                    "): give each key once");
      n.ssh_keys.push_back(std::move(key));
    }
  n.password_hash = o.password_hash;
  n.timezone = o.timezone;
  if (!o.gateway.empty()) n.gateway = check_ip(o.gateway, false, "--gateway");
  for (const auto& d : split_list(o.dns, "--dns")) {
    n.dns.push_back(check_ip(d, false, "--dns"));
    for (std::size_t i = 0; i + 1 < n.dns.size(); ++i)
      if (n.dns[i].family == n.dns.back().family && n.dns[i].bytes == n.dns.back().bytes)  // fd00::1 = FD00:0::1
        throw usage("--dns: " + n.dns.back().address() + " is given twice ('" + join(o.dns, ",") +
                    "'): give each name server once");
  }
  n.wifi_ssid = o.wifi_ssid;
  if (!o.wifi_country.empty()) n.wifi_country = check_wifi_country(o.wifi_country, "/usr/share/zoneinfo/iso3166.tab");
  if (!o.wifi_psk_file.empty())
    n.wifi_psk = parse_wifi_psk(user_file(o.wifi_psk_file, "--wifi-psk-file", "Wi-Fi passphrase"), o.wifi_psk_file);
  n.user_data_file = o.user_data_file;
  n.network_config_file = o.network_config_file;
  n.meta_data_file = o.meta_data_file;
  if (!o.user_data_file.empty()) n.user_data_base = user_file(o.user_data_file, "--user-data", "user-data");
  if (!o.network_config_file.empty())
    n.network_config_base = user_file(o.network_config_file, "--network-config", "network-config");
  if (!o.meta_data_file.empty()) n.meta_data_base = user_file(o.meta_data_file, "--meta-data", "meta-data");
  return n;
}

void check_combinations(const IdentityOptions& o) {
  if (!o.user.empty()) {
    static const std::regex user_name("[a-z_][a-z0-9_-]{0,31}");
    if (!std::regex_match(o.user, user_name) || o.user == "root")
      throw usage("--user: '" + o.user +
                  "' is not a user name for a new account (lower-case letters, digits, '_', "
                  "'-', at most 32, not root)");
  }
  if (!o.password_hash.empty()) {
    if (o.user.empty()) throw usage("--password-hash needs --user (the account it is for)");
    check_password_hash(o.password_hash);
  }
  if (!o.timezone.empty()) check_timezone(o.timezone, "/usr/share/zoneinfo");
  bool net_options = !o.ips.empty() || !o.gateway.empty() || !o.dns.empty() || !o.wifi_ssid.empty();
  if (!o.network_config_file.empty() && net_options)
    throw usage(
        "--network-config replaces the generated network config: leave out --ip, --gateway, --dns and "
        "--wifi-ssid, or the file");
  if (!o.gateway.empty() && o.ips.empty()) throw usage("--gateway needs --ip (DHCP brings its own route)");
  if (o.wifi_ssid_given && o.wifi_ssid.empty())
    throw usage("--wifi-ssid: the SSID is empty: give the Wi-Fi network's name (1-32 bytes, IEEE 802.11)");
  if (o.wifi_country_given && trim(o.wifi_country).empty())
    throw usage(
        "--wifi-country: the country is empty: give the two-letter ISO 3166-1 code of the country the Pi is in "
        "(GB, DE, US), or leave the option out");
  if (o.wifi_ssid.empty() != o.wifi_psk_file.empty())
    throw usage("--wifi-ssid and --wifi-psk-file go together (the passphrase is read from a file, never typed)");
  if (o.wifi_ssid.size() > 32) throw usage("--wifi-ssid: '" + o.wifi_ssid + "' is longer than 32 bytes");
}

std::vector<std::optional<IpValue>> addresses(const IdentityOptions& o, std::size_t targets) {
  auto ips = split_list(o.ips, "--ip");
  std::vector<std::optional<IpValue>> out(targets);
  if (ips.empty()) return out;  // DHCP everywhere
  if (ips.size() != targets)
    throw usage("--ip gives " + std::to_string(ips.size()) + " address(es) for " + std::to_string(targets) +
                " target disk(s): give exactly one CIDR per disk, in the order of the disks");
  std::set<std::string> seen;
  for (std::size_t i = 0; i < ips.size(); ++i) {
    out[i] = check_ip(ips[i], true, "--ip");
    if (!seen.insert(std::string(out[i]->bytes.begin(), out[i]->bytes.end())).second)
      throw usage("--ip: " + ips[i] + " is given twice: every disk needs its own address");
  }
  return out;
}

}  // namespace

bool IdentityOptions::seed_wanted() const {
  IdentityOptions rest = *this;
  rest.wifi_country.clear();
  rest.wifi_country_given = false;
  return rest.any();
}

bool IdentityOptions::any() const {
  return !hostnames.empty() || !user.empty() || !ssh_key_files.empty() || !password_hash.empty() || !timezone.empty() ||
         !ips.empty() || !gateway.empty() || !dns.empty() || !wifi_ssid.empty() || !wifi_psk_file.empty() ||
         !user_data_file.empty() || !network_config_file.empty() || !meta_data_file.empty() || !wifi_country.empty() ||
         wifi_ssid_given || wifi_country_given;
}

std::vector<std::string> expand_hostnames(std::string_view spec_view, std::size_t targets) {
  std::string spec(trim(spec_view));
  std::vector<std::string> names;
  if (auto r = expand_range(spec))
    names = *r;
  else
    names = split(spec, ',');
  for (auto& n : names) n = std::string(trim(n));
  for (const auto& n : names) check_hostname(n);
  std::set<std::string> seen;
  for (const auto& n : names)
    if (!seen.insert(to_lower(n)).second)
      throw usage("--hostname: '" + n + "' is given twice: every disk needs its own name");
  if (names.size() != targets)
    throw usage("--hostname '" + spec + "' gives " + std::to_string(names.size()) + " name(s) (" + join(names, ", ") +
                ") for " + std::to_string(targets) + " target disk(s): give exactly one name per disk");
  return names;
}

std::vector<std::string> parse_public_keys(std::string_view text, const std::string& file) {
  static const std::regex private_key("-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----");
  std::string s(text);
  std::smatch m;
  if (std::regex_search(s, m, private_key))
    throw usage("--ssh-key " + file + " is a private key (" + m.str() +
                "): never copy it to a disk; pass the public key (" + file + ".pub)");
  std::vector<std::string> keys;
  int number = 0;
  for (const auto& raw : split(s, '\n')) {
    ++number;
    std::string line(trim(raw));
    if (line.empty() || line[0] == '#') continue;
    keys.push_back(check_key_line(line, "--ssh-key " + file + " line " + std::to_string(number)));
  }
  if (keys.empty()) throw usage("--ssh-key " + file + " holds no public key");
  return keys;
}

void check_password_hash(std::string_view hash) {
  static const std::regex shapes(
      "\\$y\\$[./A-Za-z0-9]+\\$[./A-Za-z0-9]{1,86}\\$[./A-Za-z0-9]{43}"
      "|\\$6\\$(rounds=[0-9]+\\$)?[./A-Za-z0-9]{1,16}\\$[./A-Za-z0-9]{86}"
      "|\\$5\\$(rounds=[0-9]+\\$)?[./A-Za-z0-9]{1,16}\\$[./A-Za-z0-9]{43}"
      "|\\$2[aby]\\$[0-9]{2}\\$[./A-Za-z0-9]{53}");
  if (!std::regex_match(std::string(hash), shapes))
    throw usage(
        "--password-hash takes a crypt(5) hash ($y$..., $6$..., $5$..., $2b$...), never a clear password: "
        "make one with 'mkpasswd -m yescrypt' or 'openssl passwd -6'");
}

SeedCheck check_seed_files(const IdentityOptions& o, const std::string& image) {
  if (o.user_data_file.empty() && o.network_config_file.empty() && o.meta_data_file.empty())
    throw usage("seed check needs --user-data, --network-config or --meta-data (the files to check)");
  const NodeIdentity n = common_identity(o);
  // --image names the disk image the seed goes onto: a file without a partition table is not one.
  std::shared_ptr<const ImageCloudInit> image_ci;
  if (!image.empty()) {
    std::unique_ptr<image::ImageReader> reader;
    try {
      reader = image::open_image_reader(image);
    } catch (const Error& e) {  // "X is not a regular file: ...": named by its option, as --user-data's are
      if (e.kind() != ErrorKind::Usage) throw;
      throw usage(std::string("--image ") + e.what());
    }
    const image::PartitionTable table = image::read_partition_table(*reader, std::nullopt);
    if (table.scheme == image::TableScheme::None)
      throw usage("--image " + image +
                  " holds no partition table (no MBR or GPT at its start): not a disk image; give the .img or .img.xz "
                  "the seed goes onto");
    // A cut image: write's message, not "gives no cloud-init schema ... give an image piprov can read at random".
    if (reader->random_access())
      image::check_complete_image(table, reader->size(), reader->format(), image, "nothing was checked");
    image_ci = read_image_cloud_init(*reader, image);
    // provision's verdict: a seed for an image without cloud-init is refused (exit 2), not judged.
    if (!image_ci->missing.empty()) throw usage("--image " + image + ": " + no_cloud_init_refusal(*image_ci));
  }
  return check_seed(n, {.schema_path = "", .force = o.force_seed, .options_add_user_data = false, .image = image_ci});
}

std::vector<SeedPlan> plan_seeds(const IdentityOptions& o, const std::vector<std::string>& targets, SeedCheck* check,
                                 const std::shared_ptr<const ImageCloudInit>& image) {
  std::vector<SeedPlan> plans;
  if (o.force_seed && o.user_data_file.empty() && o.network_config_file.empty() && o.meta_data_file.empty())
    throw usage("--force-seed needs --user-data, --network-config or --meta-data (it writes a file the check refuses)");
  if (!o.any()) return plans;
  check_combinations(o);
  // --wifi-country alone changes only the cmdline files (cfg80211.ieee80211_regdom): no seed, so
  // the image's own seed (and the login it gives) stays, and an image without cloud-init is fine.
  if (!o.seed_wanted()) {
    const std::string cc = check_wifi_country(o.wifi_country, "/usr/share/zoneinfo/iso3166.tab");
    for (const auto& t : targets) {
      SeedPlan only_cmdline;
      only_cmdline.target = t;
      only_cmdline.wifi_country = cc;
      plans.push_back(std::move(only_cmdline));
    }
    return plans;
  }
  std::vector<std::string> names =
      o.hostnames.empty() ? std::vector<std::string>(targets.size()) : expand_hostnames(o.hostnames, targets.size());
  std::vector<std::optional<IpValue>> ips = addresses(o, targets.size());
  NodeIdentity common = common_identity(o);
  const std::string regdom_note = regdom_netplan_note(image.get(), &common.regdom_in_netplan);
  // The user's files are checked before anything is built or written.
  bool options_add = !o.hostnames.empty() || !o.user.empty() || !o.ssh_key_files.empty() || !o.timezone.empty();
  SeedCheck seed_check = check_seed(
      common, {.schema_path = "", .force = o.force_seed, .options_add_user_data = options_add, .image = image});
  if (seed_check.refused()) throw Error(ErrorKind::Usage, refusal_text(seed_check), seed_check.findings);
  if (check) *check = seed_check;
  // --wifi-country next to the user's network-config: one country, and a note when only the cmdline carries it.
  const std::string user_regdom_note =
      common.wifi_country.empty() || common.network_config_base.empty()
          ? ""
          : wifi_country_with_network_config(common.network_config_base, common.network_config_file,
                                             common.wifi_country);
  for (std::size_t i = 0; i < targets.size(); ++i) {
    NodeIdentity n = common;
    n.hostname = names[i];
    n.address = ips[i];
    if (n.gateway && n.address) check_gateway(*n.gateway, *n.address);
    // cloud-init runs its first boot once per instance-id: one per disk and run.
    n.instance_id = "piprov-" + (n.hostname.empty() ? std::string() : n.hostname + "-") + random_hex(6);
    plans.push_back(
        {targets[i], n.hostname, n.instance_id, build_user_data(n), build_meta_data(n), build_network_config(n),
         n.wifi_country, n.wifi_ssid,
         n.network_config_base.empty() && !n.wifi_ssid.empty() && !n.wifi_country.empty() && !n.regdom_in_netplan
             ? regdom_note
             : user_regdom_note});
    plans.back().user_option = !n.user.empty();
    if (n.network_config_base.empty()) {  // piprov's own network-config is judged like the user's
      SeedCheck own =
          check_network_config(plans.back().network_config, "network-config (piprov's, " + targets[i] + ")");
      // judged by the image's netplan, as `seed check --image` judges the user's (it chose the keys written)
      if (image) detail::judge_by_image_netplan(image->netplan_version, own.findings);
      if (own.refused()) throw Error(ErrorKind::Usage, refusal_text(own), own.findings);
      if (check) check->findings.insert(check->findings.end(), own.findings.begin(), own.findings.end());
    }
  }
  return plans;
}

}  // namespace piprov::provision
