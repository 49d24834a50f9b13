#include "provision/cloud_init.hpp"

#include <yaml-cpp/yaml.h>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/strings.hpp"

namespace fs = std::filesystem;

namespace piprov::provision {
namespace {

constexpr const char* kCloudConfig = "#cloud-config";

Error bad_file(const std::string& file, const std::string& what) { return Error(ErrorKind::Usage, file + " " + what); }

/// `text` as a YAML map (an empty document is an empty map). Throws Error{Usage}.
YAML::Node load_map(const std::string& text, const std::string& file) {
  YAML::Node n;
  try {
    n = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw bad_file(file, "is not valid YAML (line " + std::to_string(e.mark.line + 1) + ": " + e.msg +
                             "); fix it or leave the option out");
  }
  if (n.IsNull()) return YAML::Node(YAML::NodeType::Map);
  if (!n.IsMap()) throw bad_file(file, "is not a YAML map of keys (cloud-init reads one); fix it");
  return n;
}

/// Sets base[key] = value; refuses when the user's file already sets it.
template <typename T>
void set_key(YAML::Node& base, const std::string& key, const T& value, const std::string& file,
             const std::string& option) {
  if (base[key]) throw bad_file(file, "sets '" + key + "' and so does " + option + ": keep one of them");
  base[key] = value;
}

/// A string scalar: emitted quoted, so cloud-init's YAML 1.1 reader never
/// takes a host name "yes" or a passphrase "12345678" for a bool or a number.
/// "!" is the tag yaml-cpp gives quoted scalars it loads, so a user file's
/// quoted values stay quoted too.
YAML::Node text(const std::string& s) {
  YAML::Node n(s);
  n.SetTag("!");
  return n;
}

YAML::Node texts(const std::vector<std::string>& v) {
  YAML::Node n(YAML::NodeType::Sequence);
  for (const auto& s : v) n.push_back(text(s));
  return n;
}

void emit_node(YAML::Emitter& out, const YAML::Node& n) {
  const std::string& tag = n.Tag();
  if (!tag.empty() && tag != "?" && tag != "!") out << YAML::VerbatimTag(tag);
  switch (n.Type()) {
    case YAML::NodeType::Map:
      out << YAML::BeginMap;
      for (const auto& kv : n) {
        out << YAML::Key;
        emit_node(out, kv.first);
        out << YAML::Value;
        emit_node(out, kv.second);
      }
      out << YAML::EndMap;
      break;
    case YAML::NodeType::Sequence:
      out << YAML::BeginSeq;
      for (const auto& e : n) emit_node(out, e);
      out << YAML::EndSeq;
      break;
    case YAML::NodeType::Scalar:
      if (tag == "!") out << YAML::DoubleQuoted;
      out << n.Scalar();
      break;
    default: out << YAML::Null;
  }
}

std::string emit(const YAML::Node& n) {
  YAML::Emitter out;
  emit_node(out, n);
  if (!out.good()) throw Error(ErrorKind::Io, "internal error: cannot emit YAML: " + out.GetLastError());
  return std::string(out.c_str()) + "\n";
}

/// The emitted text parsed back: a map again (what cloud-init will read).
std::string checked(const std::string& text, const std::string& name) {
  YAML::Node back = YAML::Load(text);
  if (!back.IsMap() && !back.IsNull()) throw Error(ErrorKind::Io, "internal error: " + name + " is not a YAML map");
  return text;
}

YAML::Node user_entry(const NodeIdentity& n) {
  YAML::Node u;
  u["name"] = text(n.user);
  u["groups"] = text("adm, sudo");
  u["shell"] = text("/bin/bash");
  u["sudo"] = text("ALL=(ALL) NOPASSWD:ALL");
  u["lock_passwd"] = n.password_hash.empty();
  if (!n.password_hash.empty()) u["hashed_passwd"] = text(n.password_hash);
  if (!n.ssh_keys.empty()) u["ssh_authorized_keys"] = texts(n.ssh_keys);
  return u;
}

YAML::Node user_data_base(const NodeIdentity& n) {
  if (blank_or_comments(n.user_data_base)) return YAML::Node(YAML::NodeType::Map);
  auto first = n.user_data_base.substr(0, n.user_data_base.find('\n'));
  if (trim(first) != kCloudConfig)
    throw bad_file(n.user_data_file,
                   "does not start with '#cloud-config' (piprov takes cloud-config user-data only, not scripts, "
                   "#include or MIME archives); put '#cloud-config' on its first line");
  return load_map(n.user_data_base, n.user_data_file);
}

/// --dns on an interface: netplan's nameservers are per interface (netplan docs, YAML
/// configuration: "nameservers"), so every interface piprov writes gets them.
void add_nameservers(const NodeIdentity& n, YAML::Node& iface) {
  if (n.dns.empty()) return;
  std::vector<std::string> dns;
  for (const auto& d : n.dns) dns.push_back(d.address());
  iface["nameservers"]["addresses"] = texts(dns);
}

YAML::Node ethernet(const NodeIdentity& n) {
  YAML::Node eth;
  if (!n.address) {
    eth["dhcp4"] = true;
  } else {
    eth["dhcp4"] = false;
    eth["addresses"].push_back(text(n.address->text));
    if (n.gateway) {
      YAML::Node route;
      // Not "default": netplan before 0.103 and cloud-init's network_state
      // before PR 6391 reject it (cloud-init issues 3988, 4133).
      route["to"] = text(n.gateway->default_route());
      route["via"] = text(n.gateway->address());
      eth["routes"].push_back(route);
    }
  }
  add_nameservers(n, eth);
  eth["optional"] = true;
  return eth;
}

YAML::Node wifi(const NodeIdentity& n) {
  YAML::Node w;
  w["dhcp4"] = true;
  add_nameservers(n, w);
  w["optional"] = true;
  YAML::Node ap;
  ap["password"] = text(n.wifi_psk);
  YAML::Node aps(YAML::NodeType::Map);
  aps.force_insert(text(n.wifi_ssid), ap);
  w["access-points"] = aps;
  // netplan before 0.105 refuses the key, and with it the whole config (canonical/netplan PR #281).
  if (!n.wifi_country.empty() && n.regdom_in_netplan) w["regulatory-domain"] = text(n.wifi_country);
  return w;
}

void check_network_file(const NodeIdentity& n) {
  YAML::Node doc = load_map(n.network_config_base, n.network_config_file);
  YAML::Node net = doc["network"] ? doc["network"] : doc;
  int version = 0;
  try {
    if (net.IsMap() && net["version"]) version = net["version"].as<int>();
  } catch (const YAML::Exception&) {
  }
  if (version != 1 && version != 2)
    throw bad_file(n.network_config_file,
                   "has no 'version: 1' or 'version: 2' (at the top or under 'network:'): it is not a cloud-init "
                   "network config");
}

}  // namespace

bool blank_or_comments(std::string_view text) {
  for (const auto& line : split(text, '\n')) {
    auto t = trim(line);
    if (!t.empty() && t.front() != '#') return false;
  }
  return true;
}

std::string build_user_data(const NodeIdentity& n) {
  YAML::Node doc = user_data_base(n);
  const std::string& file = n.user_data_file;
  if (!n.hostname.empty()) {
    set_key(doc, "hostname", text(n.hostname), file, "--hostname");
    set_key(doc, "preserve_hostname", false, file, "--hostname");
  }
  if (!n.user.empty()) {
    YAML::Node users;
    users.push_back(user_entry(n));
    set_key(doc, "users", users, file, "--user");
  } else if (!n.ssh_keys.empty()) {
    set_key(doc, "ssh_authorized_keys", texts(n.ssh_keys), file, "--ssh-key");
  }
  if (!n.ssh_keys.empty() && n.password_hash.empty()) set_key(doc, "ssh_pwauth", false, file, "--ssh-key");
  if (!n.timezone.empty()) set_key(doc, "timezone", text(n.timezone), file, "--timezone");
  return checked(std::string(kCloudConfig) + "\n" + emit(doc), "user-data");
}

std::string build_meta_data(const NodeIdentity& n) {
  YAML::Node doc =
      n.meta_data_base.empty() ? YAML::Node(YAML::NodeType::Map) : load_map(n.meta_data_base, n.meta_data_file);
  doc["instance-id"] = text(n.instance_id);
  if (!n.hostname.empty()) doc["local-hostname"] = text(n.hostname);
  return checked(emit(doc), "meta-data");
}

std::string build_network_config(const NodeIdentity& n) {
  if (!n.network_config_base.empty()) {
    check_network_file(n);
    return n.network_config_base;  // the user's bytes, as given
  }
  YAML::Node doc;
  doc["version"] = 2;
  doc["ethernets"]["eth0"] = ethernet(n);
  if (!n.wifi_ssid.empty()) doc["wifis"]["wlan0"] = wifi(n);
  return checked(emit(doc), "network-config");
}

std::string cloud_init_missing(const fs::path& root_dir) {
  std::error_code ec;
  return cloud_init_missing(fs::exists(fs::symlink_status(root_dir / "usr/bin/cloud-init", ec)),
                            fs::is_directory(root_dir / "etc/cloud", ec));
}

std::string cloud_init_missing(bool bin, bool etc) {
  if (bin && etc) return "";
  std::string missing = !bin && !etc ? "/usr/bin/cloud-init and /etc/cloud"
                        : !bin       ? "/usr/bin/cloud-init"
                                     : "/etc/cloud";
  return "the image's root fs has no cloud-init (" + missing + " missing), so it would ignore a first-boot seed";
}

std::vector<std::string> write_seed(const SeedPlan& plan, const fs::path& boot_dir) {
  const std::string* content[] = {&plan.user_data, &plan.network_config, &plan.meta_data};
  std::vector<std::string> written;
  for (std::size_t i = 0; i < seed_file_names().size(); ++i) {
    // network-config may hold a Wi-Fi passphrase: readable by root only where modes apply.
    atomic_write(boot_dir / seed_file_names()[i], *content[i], i == 1 ? 0600 : 0644);
    written.push_back(seed_file_names()[i]);
  }
  return written;
}

}  // namespace piprov::provision
