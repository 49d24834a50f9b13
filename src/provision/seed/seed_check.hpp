#pragma once
// The check of the user's cloud-init seed files (`provision --user-data,
// --network-config, --meta-data`), run before anything is written: what
// cloud-init on the Pi would reject or silently ignore becomes a finding
// (core/finding.hpp) naming the file, line, key and the fix.
// - user-data: "#cloud-config" first line, YAML read as cloud-init's PyYAML
//   reads it (YAML 1.1, yaml_json.hpp), a map, then cloud-init's own JSON
//   schema (the installed cloud-init's schema-cloud-config-v1.json, draft 4,
//   validated with valijson) or, without it, piprov's own rules (a partial
//   check, said so in a finding); template markers; clear-text passwords.
// - network-config: version 1 or 2 and the addresses, routes, name servers
//   and Wi-Fi entries both netplan and cloud-init's network_state accept.
// - meta-data: a map; keys cloud-init never reads (instance_id for instance-id).
// Sources: cloud-init docs "User data formats", "Cloud config examples",
// "Networking config Version 1/2", "NoCloud"; `cloud-init schema`;
// netplan docs "YAML configuration" (https://netplan.readthedocs.io/en/stable/netplan-yaml/).
#include <string>
#include <string_view>
#include <vector>

#include "core/finding.hpp"
#include "provision/cloud_init.hpp"
#include "provision/seed/image_cloud_init.hpp"

namespace piprov::provision {

struct SeedCheckOptions {
  /// cloud-init's schema-cloud-config-v1.json. "" = the env variable
  /// PIPROV_CLOUD_INIT_SCHEMA, else the installed cloud-init's
  /// (/usr/lib/python3/dist-packages/cloudinit/config/schemas/...);
  /// "none" = piprov's own rules only.
  std::string schema_path;
  /// --force-seed: errors other than an unreadable file (force_seed_overrides():
  /// not UTF-8, no #cloud-config, not YAML, not a map) become warnings and the
  /// seed is written.
  bool force = false;
  /// The options add to user-data (--hostname, --user ...): a user-data that
  /// sets nothing is then a warning, not an error.
  bool options_add_user_data = false;
  /// The cloud-init of the image the seed goes onto (read_image_cloud_init()):
  /// its schema judges user-data, its netplan version 'to: default'. When it
  /// has no schema the installed one judges, with the warning seed-judge-host
  /// naming that version. nullptr: the installed cloud-init judges, no warning.
  std::shared_ptr<const ImageCloudInit> image;
};

struct SeedCheck {
  Findings findings;
  /// "cloud-init 22.4.2 schema (PATH)", "cloud-init 24.1 schema, read from the image (IMAGE)" or "piprov's own
  /// rules"; with an image and a network-config, then " and netplan 1.0, read from the image" (what judged it)
  std::string validator;
  bool partial = false;            ///< no usable schema: only piprov's own rules checked user-data
  std::vector<std::string> rules;  ///< the rule ids that ran
  bool forced = false;             ///< checked with --force-seed (SeedCheckOptions::force)
  bool refused() const;            ///< any error
};

/// Whether --force-seed turns an error of `rule` into a warning: every rule
/// but those of a file piprov cannot build a seed from (seed-not-utf8,
/// seed-not-cloud-config, seed-yaml-invalid, seed-not-a-map).
bool force_seed_overrides(const std::string& rule);

/// Findings for each file; `file` names it in messages.
SeedCheck check_user_data(std::string_view text, const std::string& file, const SeedCheckOptions& o);
SeedCheck check_network_config(std::string_view text, const std::string& file);
SeedCheck check_meta_data(std::string_view text, const std::string& file);

/// Every user file of `n` (those given), merged: user-data, network-config,
/// meta-data, each file's findings in line order (0 = the whole file, first);
/// --force-seed applied.
SeedCheck check_seed(const NodeIdentity& n, const SeedCheckOptions& o);

/// The one line of a refusal (the message of the Error{Usage} that carries
/// the findings): "the cloud-init seed is refused before anything is written:
/// N error(s), ... (checked with V)", then what to do: fix them; or
/// --force-seed, only when it was not given and every error is one it
/// overrides and may help with (not seed-template-marker or
/// seed-user-data-empty: it would write an unfilled value or a file that sets
/// nothing); the error rules it does not override are named.
std::string refusal_text(const SeedCheck& c);

/// Whether `scalar` holds an unfilled template value (${X}, {{ x }}, <X>,
/// "<SOME_NAME>" inside text, %{ x }); the marker found, "" when none.
std::string template_marker(const std::string& scalar);

}  // namespace piprov::provision
