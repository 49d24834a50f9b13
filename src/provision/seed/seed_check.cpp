#include "provision/seed/seed_check.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <set>

#include "core/error.hpp"
#include "core/file.hpp"
#include "core/strings.hpp"
#include "provision/seed/seed_check_detail.hpp"
#include "provision/seed/seed_network_detail.hpp"
#include "provision/seed/yaml_json.hpp"

namespace fs = std::filesystem;

namespace piprov::provision {
namespace {

constexpr const char* kSrcFormat =
    "cloud-init docs, User data formats: https://cloudinit.readthedocs.io/en/latest/explanation/format.html";
constexpr const char* kSrcPasswords =
    "cloud-init docs, modules Set Passwords and Users and Groups: "
    "https://cloudinit.readthedocs.io/en/latest/reference/modules.html#set-passwords";
constexpr const char* kSrcJudge =
    "cloud-init docs, \"cloud-init schema\" (the schema is the installed version's: "
    "cloudinit/config/schemas/schema-cloud-config-v1.json): "
    "https://cloudinit.readthedocs.io/en/latest/reference/cli.html#schema";

/// cloud-init 22.4's `users_groups.user` keys and `chpasswd` keys: the rules
/// of the partial check (no schema installed).
const std::set<std::string>& sc_builtin_user_keys() {
  static const std::set<std::string> k = {
      "create_groups",  "expiredate",        "gecos",         "groups",      "hashed_passwd",
      "homedir",        "inactive",          "lock-passwd",   "lock_passwd", "name",
      "no_create_home", "no_log_init",       "no_user_group", "passwd",      "plain_text_passwd",
      "primary_group",  "selinux_user",      "shell",         "snapuser",    "ssh_authorized_keys",
      "ssh_import_id",  "ssh_redirect_user", "sudo",          "system",      "uid"};
  return k;
}
const std::set<std::string>& sc_builtin_chpasswd_keys() {
  static const std::set<std::string> k = {"expire", "users", "list"};
  return k;
}
const std::set<std::string>& sc_builtin_chpasswd_user_keys() {
  static const std::set<std::string> k = {"name", "password", "type"};
  return k;
}

}  // namespace

namespace {

bool sc_is_hash(const std::string& s) {
  static const std::regex hash("^\\$(1|2a|2b|2y|5|6|y)\\$.+");
  return std::regex_match(s, hash) || s == "RANDOM" || s == "R";
}

void sc_passwords(const YamlDoc& doc, const std::string& file, Findings& out) {
  const auto& v = doc.value;
  auto warn = [&](const std::string& path, const std::string& what) {
    out.push_back(seed_finding(
        "seed-clear-text-password", Severity::Warning, seed_line(doc, path), path, file,
        what + " stays readable by anyone who reads the FAT boot partition (vfat has no file permissions)",
        "use --user NAME --password-hash \"$(mkpasswd -m yescrypt)\" (or a hashed password: chpasswd type: hash, "
        "users[].hashed_passwd)",
        kSrcPasswords));
  };
  if (v.contains("chpasswd") && v["chpasswd"].is_object()) {
    const auto& c = v["chpasswd"];
    if (c.contains("users") && c["users"].is_array())
      for (std::size_t i = 0; i < c["users"].size(); ++i) {
        const auto& u = c["users"][i];
        if (u.is_object() && u.value("type", "") == "text" && u.contains("password"))
          warn("chpasswd.users." + std::to_string(i) + ".password", "the clear-text password of a chpasswd entry");
      }
    if (c.contains("list")) {
      std::vector<std::string> entries;
      if (c["list"].is_string())
        for (const auto& l : split(c["list"].get<std::string>(), '\n')) entries.emplace_back(trim(l));
      else if (c["list"].is_array())
        for (const auto& l : c["list"])
          if (l.is_string()) entries.push_back(l.get<std::string>());
      for (const auto& e : entries) {
        auto colon = e.find(':');
        if (colon != std::string::npos && !sc_is_hash(e.substr(colon + 1))) {
          warn("chpasswd.list", "a clear-text password in chpasswd.list");
          break;
        }
      }
    }
  }
  if (v.contains("password") && v["password"].is_string() && !sc_is_hash(v["password"].get<std::string>()))
    warn("password", "the clear-text 'password'");
  if (v.contains("users") && v["users"].is_array())
    for (std::size_t i = 0; i < v["users"].size(); ++i) {
      const auto& u = v["users"][i];
      if (!u.is_object()) continue;
      for (const char* k : {"plain_text_passwd", "plain_text_password"})
        if (u.contains(k)) warn("users." + std::to_string(i) + "." + k, std::string("the clear-text '") + k + "'");
    }
}

/// piprov's own rules when no schema is installed: the keys of users[] and
/// chpasswd entries (cloud-init 22.4's schema).
void sc_builtin_rules(const YamlDoc& doc, const std::string& file, Findings& out) {
  auto unknown = [&](const std::string& path, const std::string& key, const std::set<std::string>& known,
                     const std::string& what) {
    std::string at = join_path(path, key);
    out.push_back(
        seed_finding("seed-schema-error", Severity::Error, seed_line(doc, at), at, file,
                     "'" + key + "' is not a key of " + what +
                         " (cloud-init's schema: additionalProperties false): " + seed_unknown_key_effect(key),
                     seed_unknown_key_fix(key, known), kSeedSrcSchema));
  };
  auto check_keys = [&](const nlohmann::json& obj, const std::string& path, const std::set<std::string>& known,
                        const std::string& what) {
    if (!obj.is_object()) return;
    for (const auto& [k, _] : obj.items())
      if (!known.count(k)) unknown(path, k, known, what);
  };
  const auto& v = doc.value;
  if (v.contains("users") && v["users"].is_array())
    for (std::size_t i = 0; i < v["users"].size(); ++i)
      check_keys(v["users"][i], "users." + std::to_string(i), sc_builtin_user_keys(), "a users entry");
  if (v.contains("chpasswd") && v["chpasswd"].is_object()) {
    check_keys(v["chpasswd"], "chpasswd", sc_builtin_chpasswd_keys(), "chpasswd");
    if (v["chpasswd"].contains("users") && v["chpasswd"]["users"].is_array())
      for (std::size_t i = 0; i < v["chpasswd"]["users"].size(); ++i)
        check_keys(v["chpasswd"]["users"][i], "chpasswd.users." + std::to_string(i), sc_builtin_chpasswd_user_keys(),
                   "a chpasswd users entry");
  }
}

}  // namespace

bool SeedCheck::refused() const { return count_findings(findings).errors > 0; }

namespace {

/// The user-data check's validator, rule list and (without a schema) the
/// seed-check-partial warning; `*schema` the schema in use.
SeedCheck sc_user_data_start(const std::string& file, const SeedCheckOptions& o, std::optional<LoadedSchema>* schema) {
  SeedCheck c;
  std::string why;
  *schema = seed_load_schema(o, &why);
  const auto& s = *schema;
  c.partial = !s;
  const std::string ci = s ? "cloud-init" + (s->version.empty() ? "" : " " + s->version) : "";
  c.validator = !s              ? "piprov's own rules"
                : s->from_image ? ci + " schema, read from the image (" + o.image->image + ")"
                                : ci + " schema (" + s->path + ")";
  c.rules = {"seed-not-utf8",  "seed-user-data-empty", "seed-not-cloud-config",   "seed-yaml-invalid",
             "seed-not-a-map", "seed-yaml-date",       "seed-yaml-duplicate-key", "seed-schema-error"};
  if (s) c.rules.insert(c.rules.end(), {"seed-unknown-key", "seed-cloud-init-version", "seed-deprecated-key"});
  c.rules.insert(c.rules.end(), {"seed-template-marker", "seed-clear-text-password"});
  if (o.image) c.rules.push_back("seed-judge-host");
  if (o.image && !(s && s->from_image))
    c.findings.push_back(seed_finding(
        "seed-judge-host", Severity::Warning, 0, "", file,
        "the image " + o.image->image + " gives no cloud-init schema (" + o.image->note +
            "): user-data was judged by " +
            (s ? "this machine's " + ci + " schema (" + s->path + ")" : "piprov's own rules") +
            ", not by the cloud-init the node will run",
        std::string("check the seed with the node's cloud-init (`cloud-init schema --config-file FILE` on the node)") +
            (o.image->random_access
                 ? ""  // a random-access image was read: a .img's note says what it lacks
                 : ", or give an image piprov can read at random (.img, multi-block .xz, multi-frame "
                   ".zst)"),
        kSrcJudge));
  if (c.partial)
    c.findings.push_back(seed_finding(
        "seed-check-partial", Severity::Warning, 0, "", file,
        why + ": user-data was checked with piprov's own rules only: #cloud-config header, YAML, a map, the keys of "
              "users[] and chpasswd entries (from cloud-init 22.4's schema), template markers, clear-text passwords",
        "install cloud-init (apt install cloud-init) for the full check against its schema", kSeedSrcSchema));
  return c;
}

/// seed-user-data-empty: `how` says what the file holds ("is empty (0 bytes)").
Finding sc_user_data_empty(const std::string& file, const std::string& how, int line, const SeedCheckOptions& o) {
  return seed_finding("seed-user-data-empty", o.options_add_user_data ? Severity::Warning : Severity::Error, line, "",
                      file, how + ": cloud-init ignores an empty user-data, nothing from it is applied",
                      o.options_add_user_data ? "" : "write (or uncomment) the keys you want, or leave --user-data out",
                      kSrcFormat);
}

/// What user-data `text` is when it is another of cloud-init's user data formats than cloud-config,
/// and the fix that fits it: {"a shell script ('#!/bin/bash'), not cloud-config: ...", "..."}; nullopt when it is none
/// of them (then the '#cloud-config' header is simply missing). As cloud-init tells them: a MIME message by
/// "MIME-Version:" in its first 4096 bytes (cloudinit/user_data.py convert_string; a first line "Content-Type:" too),
/// else by the header its text starts with, any case, after leading white space (cloudinit/handlers/__init__.py
/// INCLUSION_TYPES_MAP). Source: cloud-init docs, User data formats.
std::optional<std::pair<std::string, std::string>> sc_other_user_data_format(std::string_view text) {
  const std::string lower = to_lower(text.substr(0, 4096));
  const std::size_t start = std::min(lower.find_first_not_of(" \t\r\n"), lower.size());
  const std::string first(trim(text.substr(start, text.find('\n', start) - start)));
  const std::string shown = "('" + (first.size() > 60 ? first.substr(0, 60) + "..." : first) + "')";
  auto is = [&](const char* header) { return lower.compare(start, std::strlen(header), header) == 0; };
  const std::string keep = "piprov takes cloud-config user-data only: ";
  if (lower.find("mime-version:") != std::string::npos || is("content-type:"))
    return std::pair{"a MIME multipart message " + shown + ", not cloud-config",
                     keep +
                         "give its text/cloud-config part alone (the part's text, starting with '#cloud-config') "
                         "and leave the other parts out"};
  if (is("## template: jinja")) {
    const std::size_t nl = text.find('\n', start);
    const bool of_cc =
        nl != std::string_view::npos && trim(text.substr(nl + 1, text.find('\n', nl + 1) - nl - 1)) == "#cloud-config";
    return std::pair{std::string("a Jinja template") + (of_cc ? " of cloud-config" : "") + " " + shown +
                         ", not plain cloud-config: cloud-init renders it only while '## template: jinja' is its first "
                         "line, and piprov "
                         "cannot render Jinja (its values come from the node's instance data at boot)",
                     "write each {{ ... }} value in, drop the '## template: jinja' line and start the file with "
                     "'#cloud-config'"};
  }
  if (is("#cloud-config-archive"))
    return std::pair{"a cloud-config archive " + shown + ", not cloud-config: a YAML list of parts",
                     keep + "give the 'content' of its cloud-config part alone, starting with '#cloud-config'"};
  if (is("#cloud-config-jsonp"))
    return std::pair{"a JSON patch of cloud-config " + shown + ", not cloud-config",
                     keep + "apply the patch yourself and give the resulting file, starting with '#cloud-config'"};
  if (is("#cloud-boothook"))
    return std::pair{"a boothook " + shown + ", not cloud-config: cloud-init runs it early on every boot",
                     keep +
                         "put its commands under bootcmd (run early on every boot, as a boothook) in a file "
                         "starting with '#cloud-config'"};
  if (is("#part-handler"))
    return std::pair{"a part handler " + shown + ", not cloud-config: Python code for the parts of a MIME message",
                     keep + "give a file starting with '#cloud-config'"};
  if (is("#include"))
    return std::pair{"an include file " + shown + ", not cloud-config: URLs cloud-init fetches at boot",
                     keep +
                         "fetch the files it names and give their cloud-config (starting with '#cloud-config') as "
                         "--user-data: piprov cannot check what a URL serves at boot"};
  if (is("#!"))
    return std::pair{"a shell script " + shown + ", not cloud-config: cloud-init runs it once, at first boot",
                     keep +
                         "start a file with '#cloud-config' and run the script from it: write_files (path "
                         "/usr/local/sbin/firstboot.sh, permissions '0755', content: the script) and runcmd: "
                         "[/usr/local/sbin/firstboot.sh]"};
  return std::nullopt;
}

/// What must hold before the YAML is read: UTF-8 (seed-not-utf8), something
/// set (seed-user-data-empty: 0 bytes, or only blank lines and comments),
/// '#cloud-config' first (seed-not-cloud-config). False after a finding.
bool sc_user_data_readable(std::string_view text, const std::string& file, const SeedCheckOptions& o, Findings& out) {
  if (auto f = seed_not_utf8(text, file)) {
    out.push_back(std::move(*f));
    return false;
  }
  if (text.empty()) {
    out.push_back(sc_user_data_empty(file, "is empty (0 bytes)", 0, o));
    return false;
  }
  if (blank_or_comments(text)) {
    out.push_back(sc_user_data_empty(file, "holds only comments and blank lines (every key commented out)", 1, o));
    return false;
  }
  if (std::string(trim(text.substr(0, text.find('\n')))) == "#cloud-config") return true;
  if (text.starts_with(kUtf8Bom)) {
    out.push_back(seed_finding(
        "seed-not-cloud-config", Severity::Error, 1, "", file,
        utf8_bom_words(trim(text.substr(3, text.find('\n') - 3))) +
            ": cloud-init does not see the '#cloud-config' header then and does not read the file as cloud-config",
        utf8_bom_fix(""), kSrcFormat));
    return false;
  }
  if (auto other = sc_other_user_data_format(text)) {
    out.push_back(seed_finding("seed-not-cloud-config", Severity::Error, 1, "", file, "is " + other->first,
                               other->second, kSrcFormat));
    return false;
  }
  out.push_back(seed_finding(
      "seed-not-cloud-config", Severity::Error, 1, "", file,
      "does not start with '#cloud-config': cloud-init does not read it as cloud-config (piprov takes cloud-config "
      "user-data only, not scripts, #include, Jinja templates or MIME archives)",
      "put '#cloud-config' on its first line", kSrcFormat));
  return false;
}

}  // namespace

SeedCheck check_user_data(std::string_view text, const std::string& file, const SeedCheckOptions& o) {
  std::optional<LoadedSchema> schema;
  SeedCheck c = sc_user_data_start(file, o, &schema);
  if (!sc_user_data_readable(text, file, o, c.findings)) return c;
  bool empty = false;
  auto loaded = seed_load_map(text, file,
                              {"is not a YAML map of keys (cloud-init: 'Cloud-config is not a YAML dict.')",
                               "make it a map of cloud-config keys", kSrcFormat},
                              c.findings, empty);
  if (empty)  // e.g. "#cloud-config" and a lone "---"
    c.findings.push_back(sc_user_data_empty(file, "sets nothing (the YAML document is empty)", 1, o));
  if (!loaded) return c;
  const YamlDoc& doc = *loaded;
  if (schema) {
    seed_schema_rules(*schema, doc, file, c.findings);
    if (o.image && !schema->from_image)  // --image was given but holds no schema: no --image to suggest
      for (auto& f : c.findings)
        if (f.rule == "seed-cloud-init-version")
          f.fix = "keep '" + f.key + "' only if the node's cloud-init is " + cloud_init_key_since(f.key) +
                  " or later (the image gives no schema to judge by)";
  } else
    sc_builtin_rules(doc, file, c.findings);
  seed_scan_markers(doc, file, c.findings);
  sc_passwords(doc, file, c.findings);
  return c;
}

bool force_seed_overrides(const std::string& rule) {
  static const std::set<std::string> unreadable = {"seed-not-utf8", "seed-not-cloud-config", "seed-yaml-invalid",
                                                   "seed-not-a-map"};
  return unreadable.count(rule) == 0;
}

SeedCheck check_seed(const NodeIdentity& n, const SeedCheckOptions& o) {
  SeedCheck all;
  auto merge = [&](SeedCheck c) {  // each file's findings in line order, the files in the order of the options
    std::stable_sort(c.findings.begin(), c.findings.end(),
                     [](const Finding& a, const Finding& b) { return a.line < b.line; });
    all.findings.insert(all.findings.end(), c.findings.begin(), c.findings.end());
    for (const auto& r : c.rules)
      if (std::find(all.rules.begin(), all.rules.end(), r) == all.rules.end()) all.rules.push_back(r);
  };
  all.validator = "piprov's own rules";
  all.forced = o.force;
  if (!n.user_data_file.empty()) {
    SeedCheck u = check_user_data(n.user_data_base, n.user_data_file, o);
    all.validator = u.validator;
    all.partial = u.partial;
    merge(std::move(u));
  }
  if (!n.network_config_file.empty()) {
    SeedCheck net = check_network_config(n.network_config_base, n.network_config_file);
    if (o.image) {
      detail::judge_by_image_netplan(o.image->netplan_version, net.findings);
      // The summary names what judged network-config too, as it names the schema.
      all.validator += o.image->netplan_version.empty()
                           ? " and piprov's own rules for network-config (the image names no netplan version)"
                           : " and netplan " + o.image->netplan_version + ", read from the image";
    }
    merge(std::move(net));
  }
  if (!n.meta_data_file.empty()) {
    SeedCheck md = check_meta_data(n.meta_data_base, n.meta_data_file);
    if (!n.hostname.empty())  // build_meta_data() writes --hostname's name over it
      for (auto& f : md.findings)
        if (f.rule == "seed-meta-data-hostname") {
          f.severity = Severity::Warning;
          f.message += " (--hostname " + n.hostname + " replaces it on this disk)";
        }
    merge(std::move(md));
  }
  if (o.force)
    for (auto& f : all.findings)
      if (f.severity == Severity::Error && force_seed_overrides(f.rule)) {
        f.severity = Severity::Warning;
        f.message = "(--force-seed) " + f.message;
      }
  return all;
}

std::string refusal_text(const SeedCheck& c) {
  // --force-seed is for a validator behind cloud-init (keys newer than its schema, network rules):
  // it cannot help a file it does not override, an unfilled template value or a file that sets nothing.
  static const std::set<std::string> futile = {"seed-template-marker", "seed-user-data-empty"};
  std::vector<std::string> kept;  // the error rules --force-seed does not override
  bool helps = !c.forced;
  for (const auto& f : c.findings) {
    if (f.severity != Severity::Error) continue;
    helps &= force_seed_overrides(f.rule) && !futile.count(f.rule);
    if (!force_seed_overrides(f.rule) && std::find(kept.begin(), kept.end(), f.rule) == kept.end())
      kept.push_back(f.rule);
  }
  std::string out =
      "the cloud-init seed is refused before anything is written: " + findings_summary_text(c.findings, FailOn::Error) +
      " (checked with " + c.validator + ")";
  if (helps) return out + "; fix them, or pass --force-seed to write the files anyway (its errors become warnings)";
  if (kept.empty()) return out + "; fix them";
  return out + (c.forced ? "; --force-seed does not override " : "; fix them (--force-seed does not override ") +
         join(kept, ", ") + (c.forced ? ": fix the file" : ")");
}

}  // namespace piprov::provision
