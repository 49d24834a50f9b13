// The meta-data check of the seed check (seed_check.hpp): a map whose keys cloud-init's NoCloud
// datasource reads, and a local-hostname that is a host name.
#include <algorithm>
#include <set>
#include <string>

#include "core/finding.hpp"
#include "core/strings.hpp"
#include "provision/identity.hpp"
#include "provision/seed/seed_check.hpp"
#include "provision/seed/seed_check_detail.hpp"
#include "provision/seed/yaml_json.hpp"

namespace piprov::provision {
namespace {

constexpr const char* kSrcMetaDataNoCloud =
    "cloud-init docs, NoCloud datasource: "
    "https://cloudinit.readthedocs.io/en/latest/reference/datasources/nocloud.html";

/// seed-meta-data-hostname (error): local-hostname is not a host name (RFC 1123 section 2.1: dot-separated
/// labels of 1-63 letters, digits and '-', not starting or ending with '-', 253 characters in all), the rule
/// --hostname follows; seed-meta-data-unknown-key (warning): a key cloud-init's datasources never read;
/// seed-meta-data-instance-id (error): instance-id a list, map or null, not one string (cloud-init docs,
/// NoCloud: "instance-id" names the instance; instance data layout /var/lib/cloud/instances/<id>).
void sc_meta_data_values(const YamlDoc& doc, const std::string& file, Findings& out) {
  static const std::set<std::string> read = {"instance-id", "local-hostname",    "public-keys", "network-interfaces",
                                             "dsmode",      "availability-zone", "region",      "launch-index"};
  for (const auto& [k, v] : doc.value.items()) {
    std::string dashed = k;
    std::replace(dashed.begin(), dashed.end(), '_', '-');
    if (read.count(dashed)) continue;
    out.push_back(seed_finding("seed-meta-data-unknown-key", Severity::Warning, seed_line(doc, k), k, file,
                               "'" + k +
                                   "' is not a meta-data key cloud-init reads (NoCloud reads instance-id, "
                                   "local-hostname, public-keys, network-interfaces, dsmode): it sets nothing "
                                   "on the node",
                               "remove '" + k + "' or correct its spelling", kSrcMetaDataNoCloud));
  }
  if (doc.value.contains("instance-id") &&
      (!doc.value["instance-id"].is_primitive() || doc.value["instance-id"].is_null()))
    out.push_back(seed_finding(
        "seed-meta-data-instance-id", Severity::Error, seed_line(doc, "instance-id"), "instance-id", file,
        "instance-id " + dump_json(doc.value["instance-id"], -1) +
            " is not a string: cloud-init names the instance by it (/var/lib/cloud/instances/<instance-id>) and "
            "compares it with the last boot's to decide whether this is a new instance",
        "write one string, such as instance-id: node1-2024", kSrcMetaDataNoCloud));
  if (!doc.value.contains("local-hostname")) return;
  const nlohmann::json& v = doc.value["local-hostname"];
  const std::string name = v.is_string() ? v.get<std::string>() : dump_json(v, -1);
  bool ok = v.is_string() && !name.empty() && name.size() <= 253;
  for (const auto& label : split(name, '.')) ok = ok && is_host_label(std::string(label));
  if (!ok)
    out.push_back(seed_finding(
        "seed-meta-data-hostname", Severity::Error, seed_line(doc, "local-hostname"), "local-hostname", file,
        "local-hostname '" + name +
            "' is not a host name (labels of 1-63 letters, digits and '-', not starting or ending with '-', "
            "separated by dots): the node's hostname would be refused or mangled",
        "write a host name such as node1 (or give --hostname, which sets local-hostname per disk)",
        "RFC 1123 section 2.1 (host names); cloud-init docs, NoCloud datasource: "
        "https://cloudinit.readthedocs.io/en/latest/reference/datasources/nocloud.html"));
}

}  // namespace

SeedCheck check_meta_data(std::string_view text, const std::string& file) {
  SeedCheck c;
  c.validator = "piprov's own rules";
  c.rules = {"seed-yaml-invalid",          "seed-not-a-map",          "seed-meta-data-key-ignored",
             "seed-meta-data-unknown-key", "seed-meta-data-hostname", "seed-meta-data-instance-id",
             "seed-template-marker"};
  bool empty = false;  // an empty document: nothing to check
  auto loaded = seed_load_map(text, file,
                              {"is not a YAML map of keys (cloud-init's NoCloud reads one)",
                               "make it a map (instance-id: ..., local-hostname: ...)", kSrcMetaDataNoCloud},
                              c.findings, empty);
  if (!loaded) return c;
  const YamlDoc& doc = *loaded;
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
        kSrcMetaDataNoCloud));
  }
  sc_meta_data_values(doc, file, c.findings);
  seed_scan_markers(doc, file, c.findings);
  return c;
}

}  // namespace piprov::provision
