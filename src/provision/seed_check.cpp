#include "provision/seed_check.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <regex>
#include <set>

#include "core/error.hpp"
#include "core/file.hpp"
#include "core/strings.hpp"
#include "provision/seed_check_detail.hpp"
#include "provision/yaml_json.hpp"

namespace fs = std::filesystem;

namespace piprov::provision {
namespace {

constexpr const char* kSrcFormat =
    "cloud-init docs, User data formats: https://cloudinit.readthedocs.io/en/latest/explanation/format.html";
constexpr const char* kSrcPasswords =
    "cloud-init docs, modules Set Passwords and Users and Groups: "
    "https://cloudinit.readthedocs.io/en/latest/reference/modules.html#set-passwords";
constexpr const char* kSrcNoCloud =
    "cloud-init docs, NoCloud datasource: "
    "https://cloudinit.readthedocs.io/en/latest/reference/datasources/nocloud.html";
constexpr const char* kSrcYaml11 =
    "YAML 1.1 timestamp type (PyYAML, cloud-init's reader): https://yaml.org/type/timestamp.html";

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

// ---- shared by seed_check.cpp and seed_network.cpp (seed_check_detail.hpp) ----

Finding seed_finding(const std::string& rule, Severity sev, int line, const std::string& key, const std::string& file,
                     const std::string& message, const std::string& fix, const std::string& source) {
  return {rule, sev, line, key, file + ": " + message, fix, source};
}

int seed_line(const YamlDoc& doc, std::string path) {
  while (true) {
    if (auto it = doc.lines.find(path); it != doc.lines.end()) return it->second;
    if (path.empty()) return 0;
    auto dot = path.rfind('.');
    path = dot == std::string::npos ? "" : path.substr(0, dot);
  }
}

std::string template_marker(const std::string& s) {
  static const std::regex whole("^<[A-Za-z][A-Za-z0-9 _.-]*>$");
  static const std::regex inside(
      "\\$\\{[A-Za-z_][A-Za-z0-9_]*(:?[-=?+][^}]*)?\\}"
      "|\\{\\{-?\\s*[A-Za-z_][A-Za-z0-9_.]*\\s*-?\\}\\}"
      "|<[A-Z][A-Z0-9]*(_[A-Z0-9]+)+>"
      "|%\\{[^}]*\\}");
  std::smatch m;
  if (std::regex_match(s, whole)) return s;
  if (std::regex_search(s, m, inside)) return m.str();
  return "";
}

namespace {

bool sc_shell_subtree(const std::string& path) {
  static const std::regex skip(
      "^(runcmd|bootcmd|ansible|chef|puppet|salt_minion|phone_home|snap\\.commands|write_files\\.[0-9]+\\.content)"
      "(\\..*)?$");
  return std::regex_match(path, skip);
}

void sc_markers(const nlohmann::json& j, const std::string& path, const YamlDoc& doc, const std::string& file,
                Findings& out) {
  if (sc_shell_subtree(path)) return;
  auto report = [&](const std::string& at, const std::string& marker) {
    int line = seed_line(doc, at);
    out.push_back(seed_finding("seed-template-marker", Severity::Error, line, at, file,
                               "line " + std::to_string(line) + " still holds the template marker '" + marker +
                                   "' (an unfilled template value)",
                               "replace it with the real value or remove the entry", ""));
  };
  if (j.is_object()) {
    for (const auto& [k, v] : j.items()) {
      std::string child = join_path(path, k);
      if (sc_shell_subtree(child)) continue;
      if (auto m = template_marker(k); !m.empty()) report(child, m);
      sc_markers(v, child, doc, file, out);
    }
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i) sc_markers(j[i], join_path(path, std::to_string(i)), doc, file, out);
  } else if (j.is_string()) {
    if (auto m = template_marker(j.get<std::string>()); !m.empty()) report(path, m);
  }
}

}  // namespace

void seed_scan_markers(const YamlDoc& doc, const std::string& file, Findings& out) {
  sc_markers(doc.value, "", doc, file, out);
}

void seed_scan_raw_markers(std::string_view text, const std::string& file, Findings& out) {
  static const std::regex token("[\"']?(<[A-Za-z][A-Za-z0-9 _.-]*>)[\"']?");
  static const std::regex key_re("^\\s*-?\\s*[\"']?([^:#\"']+)[\"']?\\s*:");
  int number = 0;
  for (const auto& raw : split(std::string(text), '\n')) {
    ++number;
    std::string line(trim(raw));
    if (line.empty() || line[0] == '#') continue;
    std::string marker = template_marker(line);
    std::smatch m;
    if (marker.empty() && std::regex_search(line, m, token) &&
        (m.str(0).front() == '"' || m.str(0).front() == '\'' || line == m.str(0) ||
         line.find(": " + m.str(0)) != std::string::npos))
      marker = m.str(1);
    if (marker.empty()) continue;
    std::string key = std::regex_search(raw, m, key_re) ? std::string(trim(m.str(1))) : "";
    out.push_back(seed_finding("seed-template-marker", Severity::Error, number, key, file,
                               "line " + std::to_string(number) + " still holds the template marker '" + marker +
                                   "' (an unfilled template value)",
                               "replace it with the real value or remove the entry", ""));
  }
}

Finding seed_yaml_invalid(const YAML::Exception& e, std::string_view text, const std::string& file) {
  int line = e.mark.line + 1;
  auto lines = split(std::string(text), '\n');
  std::string key;
  static const std::regex key_re("^\\s*-?\\s*[\"']?([^:#\"']+)[\"']?\\s*:");
  std::smatch m;
  if (line >= 1 && static_cast<std::size_t>(line) <= lines.size() && std::regex_search(lines[line - 1], m, key_re))
    key = std::string(trim(m.str(1)));
  return seed_finding("seed-yaml-invalid", Severity::Error, line, key, file,
                      "is not valid YAML (line " + std::to_string(line) + ": " + e.msg + ")",
                      "fix the YAML at line " + std::to_string(line) + " (quote values holding {, }, [, ], : or #)",
                      "YAML 1.1 (cloud-init reads seeds with PyYAML): https://yaml.org/spec/1.1/");
}

std::optional<YAML::Node> seed_load(std::string_view text, const std::string& file, Findings& out) {
  try {
    return YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    out.push_back(seed_yaml_invalid(e, text, file));
    seed_scan_raw_markers(text, file, out);
    return std::nullopt;
  }
}

void seed_yaml_notes(const YamlDoc& doc, const std::string& file, Findings& out) {
  for (const auto& p : doc.dates)
    out.push_back(seed_finding("seed-yaml-date", Severity::Error, seed_line(doc, p), p, file,
                               "'" + p + "' is read as a date by cloud-init's YAML 1.1 reader, not as a string",
                               "quote the value", kSrcYaml11));
  for (const auto& p : doc.duplicate_keys)
    out.push_back(seed_finding("seed-yaml-duplicate-key", Severity::Warning, seed_line(doc, p), p, file,
                               "'" + p + "' is given twice: cloud-init keeps the last one", "keep one of them",
                               "PyYAML SafeLoader (cloud-init's YAML reader)"));
}

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
    out.push_back(seed_finding("seed-schema-error", Severity::Error, seed_line(doc, at), at, file,
                               "'" + key + "' is not a key of " + what +
                                   " (cloud-init's schema: additionalProperties false): `cloud-init schema` fails, "
                                   "and at boot cloud-init only logs it and never applies '" +
                                   key + "'",
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

SeedCheck check_user_data(std::string_view text, const std::string& file, const SeedCheckOptions& o) {
  SeedCheck c;
  std::string why;
  auto schema = seed_load_schema(o, &why);
  c.partial = !schema;
  c.validator =
      schema ? "cloud-init" + (schema->version.empty() ? "" : " " + schema->version) + " schema (" + schema->path + ")"
             : "piprov's own rules";
  c.rules = {"seed-not-cloud-config", "seed-yaml-invalid",       "seed-not-a-map",   "seed-user-data-empty",
             "seed-yaml-date",        "seed-yaml-duplicate-key", "seed-schema-error"};
  if (schema) c.rules.insert(c.rules.end(), {"seed-unknown-key", "seed-deprecated-key"});
  c.rules.insert(c.rules.end(), {"seed-template-marker", "seed-clear-text-password"});
  if (c.partial)
    c.findings.push_back(seed_finding(
        "seed-check-partial", Severity::Warning, 0, "", file,
        why + ": user-data was checked with piprov's own rules only: #cloud-config header, YAML, a map, the keys of "
              "users[] and chpasswd entries (from cloud-init 22.4's schema), template markers, clear-text passwords",
        "install cloud-init (apt install cloud-init) for the full check against its schema", kSeedSrcSchema));
  std::string first(trim(text.substr(0, text.find('\n'))));
  if (first != "#cloud-config") {
    c.findings.push_back(seed_finding(
        "seed-not-cloud-config", Severity::Error, 1, "", file,
        "does not start with '#cloud-config': cloud-init does not read it as cloud-config (piprov takes cloud-config "
        "user-data only, not scripts, #include, Jinja templates or MIME archives)",
        "put '#cloud-config' on its first line", kSrcFormat));
    return c;
  }
  auto loaded = seed_load(text, file, c.findings);
  if (!loaded) return c;
  const YAML::Node& root = *loaded;
  if (root.IsNull()) {
    c.findings.push_back(seed_finding(
        "seed-user-data-empty", o.options_add_user_data ? Severity::Warning : Severity::Error, 1, "", file,
        "sets nothing (every key is commented out or it is empty; cloud-init: 'Cloud-config is not a YAML dict.')",
        o.options_add_user_data ? "" : "uncomment the keys you want, or leave --user-data out", kSrcFormat));
    return c;
  }
  if (!root.IsMap()) {
    c.findings.push_back(seed_finding("seed-not-a-map", Severity::Error, root.Mark().line + 1, "", file,
                                      "is not a YAML map of keys (cloud-init: 'Cloud-config is not a YAML dict.')",
                                      "make it a map of cloud-config keys", kSrcFormat));
    return c;
  }
  YamlDoc doc = yaml_to_json(root);
  seed_yaml_notes(doc, file, c.findings);
  if (schema)
    seed_schema_rules(*schema, doc, file, c.findings);
  else
    sc_builtin_rules(doc, file, c.findings);
  seed_scan_markers(doc, file, c.findings);
  sc_passwords(doc, file, c.findings);
  return c;
}

SeedCheck check_meta_data(std::string_view text, const std::string& file) {
  SeedCheck c;
  c.validator = "piprov's own rules";
  c.rules = {"seed-yaml-invalid", "seed-not-a-map", "seed-meta-data-key-ignored", "seed-template-marker"};
  auto loaded = seed_load(text, file, c.findings);
  if (!loaded) return c;
  const YAML::Node& root = *loaded;
  if (root.IsNull()) return c;
  if (!root.IsMap()) {
    c.findings.push_back(seed_finding("seed-not-a-map", Severity::Error, root.Mark().line + 1, "", file,
                                      "is not a YAML map of keys (cloud-init's NoCloud reads one)",
                                      "make it a map (instance-id: ..., local-hostname: ...)", kSrcNoCloud));
    return c;
  }
  YamlDoc doc = yaml_to_json(root);
  seed_yaml_notes(doc, file, c.findings);
  for (const auto& [k, _] : doc.value.items()) {
    std::string dashed = k;
    std::replace(dashed.begin(), dashed.end(), '_', '-');
    if (dashed == k || (dashed != "instance-id" && dashed != "local-hostname" && dashed != "public-keys")) continue;
    int line = seed_line(doc, k);
    c.findings.push_back(seed_finding(
        "seed-meta-data-key-ignored", Severity::Warning, line, k, file,
        "cloud-init reads '" + dashed + "', not '" + k + "': this line is ignored" +
            (dashed == "public-keys" ? std::string() : " (piprov sets " + dashed + " per disk anyway)"),
        "delete line " + std::to_string(line) + (dashed == "public-keys" ? " or write '" + dashed + "'" : ""),
        kSrcNoCloud));
  }
  seed_scan_markers(doc, file, c.findings);
  return c;
}

SeedCheck check_seed(const NodeIdentity& n, const SeedCheckOptions& o) {
  SeedCheck all;
  auto merge = [&](SeedCheck c) {
    all.findings.insert(all.findings.end(), c.findings.begin(), c.findings.end());
    for (const auto& r : c.rules)
      if (std::find(all.rules.begin(), all.rules.end(), r) == all.rules.end()) all.rules.push_back(r);
  };
  all.validator = "piprov's own rules";
  if (!n.user_data_file.empty()) {
    SeedCheck u = check_user_data(n.user_data_base, n.user_data_file, o);
    all.validator = u.validator;
    all.partial = u.partial;
    merge(std::move(u));
  }
  if (!n.network_config_file.empty()) merge(check_network_config(n.network_config_base, n.network_config_file));
  if (!n.meta_data_file.empty()) merge(check_meta_data(n.meta_data_base, n.meta_data_file));
  if (o.force) {
    static const std::set<std::string> unreadable = {"seed-not-cloud-config", "seed-yaml-invalid", "seed-not-a-map"};
    for (auto& f : all.findings)
      if (f.severity == Severity::Error && !unreadable.count(f.rule)) {
        f.severity = Severity::Warning;
        f.message = "(--force-seed) " + f.message;
      }
  }
  return all;
}

std::string refusal_text(const SeedCheck& c) {
  auto counts = count_findings(c.findings);
  std::string out = "the cloud-init seed is refused before anything is written (" + std::to_string(counts.errors) +
                    " error(s); checked with " + c.validator +
                    "; --force-seed writes it anyway unless a file is unreadable):";
  for (const auto& f : c.findings) {  // errors first, then what else the check found
    if (f.severity != Severity::Error) continue;
    out +=
        "\n" + (f.line ? "line " + std::to_string(f.line) : std::string("-")) + " error " + f.rule + ": " + f.message;
    if (!f.fix.empty()) out += "\n  fix: " + f.fix;
  }
  for (const auto& f : c.findings) {
    if (f.severity == Severity::Error) continue;
    out += "\n" + (f.line ? "line " + std::to_string(f.line) : std::string("-")) + " " +
           std::string(severity_name(f.severity)) + " " + f.rule + ": " + f.message;
    if (!f.fix.empty()) out += "\n  fix: " + f.fix;
  }
  return out;
}

}  // namespace piprov::provision
