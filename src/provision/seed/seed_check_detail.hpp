#pragma once
// Helpers shared by seed_check.cpp (user-data, meta-data), seed_schema.cpp
// (cloud-init's JSON schema), seed_network.cpp (network-config) and
// seed_yaml.cpp (loading, findings, template markers); not part of
// provision's interface.
#include <yaml-cpp/yaml.h>

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "core/finding.hpp"
#include "provision/seed/seed_check.hpp"
#include "provision/seed/yaml_json.hpp"

namespace piprov::provision {

/// The public source of the schema rules (seed-schema-error, seed-deprecated-key).
inline constexpr const char* kSeedSrcSchema =
    "cloud-init's JSON schema (`cloud-init schema --config-file`): "
    "https://cloudinit.readthedocs.io/en/latest/reference/modules.html";

/// cloud-init's schema as parsed by valijson (seed_schema.cpp).
struct SchemaStore;

/// The schema in use: where it was found, the cloud-init version beside it
/// ("" when unknown), and the parsed schema.
struct LoadedSchema {
  std::string path, version;
  std::shared_ptr<const SchemaStore> store;
  std::string judge;        ///< "cloud-init 24.1's schema, read from the image" / "cloud-init 22.4.2's schema"
  bool from_image = false;  ///< the schema is the image's (SeedCheckOptions::image)
};

/// The user-data schema: the image's (options.image, when it carries one),
/// else the installed cloud-init's (options.schema_path, else
/// $PIPROV_CLOUD_INIT_SCHEMA, else where Debian and Ubuntu install it;
/// "none" = off), parsed once per path. std::nullopt with *why set when
/// there is none or it cannot be parsed: the check is then partial. Never throws.
std::optional<LoadedSchema> seed_load_schema(const SeedCheckOptions& options, std::string* why);

/// seed-schema-error (valijson's errors, reduced to the precise ones),
/// seed-unknown-key (top-level keys no module knows) and seed-deprecated-key
/// for the user-data `doc` of `file`, appended to `out`.
void seed_schema_rules(const LoadedSchema& schema, const YamlDoc& doc, const std::string& file, Findings& out);

/// A type error at instance `path` of user-data `instance` as `cloud-init schema`
/// (python-jsonschema) says it: "123 is not of type 'string'", "'echo hi' is not of type
/// 'array'", the types every branch (allOf/oneOf/anyOf, $ref into $defs) of the cloud-init
/// schema `schema_doc` allows there, joined with " or "; "" when the schema names no type there.
std::string seed_type_mismatch(const nlohmann::json& schema_doc, const nlohmann::json& instance,
                               const std::vector<std::string>& path);

/// What an unknown key does, the one wording of every rule that names one (seed-schema-error,
/// seed-unknown-key): "`cloud-init schema` reports it as an error; at boot cloud-init logs it as
/// a schema warning, does not refuse the file, and never applies 'KEY'" (cloud-init docs, "cloud-init
/// schema"; cloudinit/config/schema.py validate_cloudconfig_schema(): warnings at boot).
std::string seed_unknown_key_effect(const std::string& key);

/// The cloud-init release that first reads top-level key `key` ("25.2" for rpi), "" when piprov's
/// table of keys newer than cloud-init 22.4 has no entry (cloud-init docs, Module reference).
std::string cloud_init_key_since(const std::string& key);
/// seed-cloud-init-version for a top-level `key` the schema of cloud-init `version` ("" = unknown)
/// does not know but a newer cloud-init reads (cloud_init_key_since()): an error naming both
/// versions when the schema is the image's (`from_image`: the node's cloud-init never applies it),
/// else a warning that the node's cloud-init decides. std::nullopt when the key is in no such table
/// or `version` reads it. `judge` names the schema ("cloud-init 24.1's schema, read from the image").
std::optional<Finding> seed_newer_key_finding(const std::string& key, const std::string& version,
                                              const std::string& judge, bool from_image, int line,
                                              const std::string& file);

/// The fix for an unknown key: the nearest of `known` (edit distance < 4)
/// as "did you mean", and a pointer to --password-hash for password keys.
std::string seed_unknown_key_fix(const std::string& key, const std::set<std::string>& known);

/// A finding whose message starts with "FILE: ".
Finding seed_finding(const std::string& rule, Severity sev, int line, const std::string& key, const std::string& file,
                     const std::string& message, const std::string& fix, const std::string& source);

/// The line of `path`, else of its nearest parent with one (0 = none).
int seed_line(const YamlDoc& doc, std::string path);

/// seed-template-marker for every key and string value outside shell/file text (runcmd, bootcmd,
/// write_files[].content ...).
void seed_scan_markers(const YamlDoc& doc, const std::string& file, Findings& out);

/// seed-template-marker on the raw lines of a file that is not valid YAML (comment lines skipped).
void seed_scan_raw_markers(std::string_view text, const std::string& file, Findings& out);

/// seed-yaml-invalid at the parser's line, with the key written on that line.
Finding seed_yaml_invalid(const YAML::Exception& e, std::string_view text, const std::string& file);

/// PyYAML's error for a flow collection that is not closed: the collection it names (`sequence`
/// or a mapping, where it starts) and the token it got instead (`got`, as PyYAML names it:
/// '<scalar>', ':', '}', '<stream end>'..., where it starts); lines and columns count from 1.
/// `node`: "while parsing a flow node, expected the node content, but found" that token (a ','
/// with no entry after it; line and column are then the token's).
struct PyFlowError {
  bool sequence = false;
  int line = 0, column = 0;
  std::string got;
  int got_line = 0, got_column = 0;
  bool node = false;
};

/// PyYAML 6's error for the flow collection whose '[' or '{' is at byte `start` of `text`,
/// replaying its scanner and parser (yaml/scanner.py, yaml/parser.py); std::nullopt when it
/// finds none or reaches what the replay does not model (a tab, a directive, '|').
std::optional<PyFlowError> pyyaml_flow_error(std::string_view text, std::size_t start);

/// seed-not-utf8 at the first byte of `text` that is not UTF-8 (its line, and
/// its offset from the start of the file counted from 0, as PyYAML reports
/// the "position"); std::nullopt when all of it is UTF-8.
std::optional<Finding> seed_not_utf8(std::string_view text, const std::string& file);

/// The YAML document `text` of `file`, or std::nullopt after adding
/// seed-not-utf8 (then nothing else), or seed-yaml-invalid and the raw lines'
/// seed-template-marker findings, to `out`.
std::optional<YAML::Node> seed_load(std::string_view text, const std::string& file, Findings& out);

/// A seed file's seed-not-a-map finding: its message, fix and public source.
struct SeedNotAMap {
  std::string message, fix, source;
};

/// seed_load() of `text`, then the YAML map a seed file must be, as JSON,
/// its seed_yaml_notes() added to `out`. std::nullopt when there is none:
/// seed_load()'s findings, or seed-not-a-map (`words`, at the document's
/// line), added to `out`; an empty document (null: "---" alone) adds nothing
/// and sets `empty`.
std::optional<YamlDoc> seed_load_map(std::string_view text, const std::string& file, const SeedNotAMap& words,
                                     Findings& out, bool& empty);

/// seed-yaml-date and seed-yaml-duplicate-key.
void seed_yaml_notes(const YamlDoc& doc, const std::string& file, Findings& out);

}  // namespace piprov::provision
