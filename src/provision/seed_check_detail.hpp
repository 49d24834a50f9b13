#pragma once
// Helpers shared by seed_check.cpp (user-data, meta-data) and
// seed_network.cpp (network-config); not part of provision's interface.
#include <yaml-cpp/yaml.h>

#include <string>
#include <string_view>

#include "core/finding.hpp"
#include "provision/yaml_json.hpp"

namespace piprov::provision {

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

/// seed-yaml-date and seed-yaml-duplicate-key.
void seed_yaml_notes(const YamlDoc& doc, const std::string& file, Findings& out);

}  // namespace piprov::provision
