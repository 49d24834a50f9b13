#pragma once
// A YAML document as cloud-init reads it: PyYAML's SafeLoader resolves plain
// scalars by YAML 1.1 rules (yes/on/off are booleans, 0644 is octal 420,
// 2030-01-01 is a date), while yaml-cpp only tokenises. The result is the
// JSON value cloud-init validates against its schema, with the line of every
// node so findings can name it.
// Sources: PyYAML resolver.py (Resolver.add_implicit_resolver), YAML 1.1
// type repository (https://yaml.org/type/bool.html, int.html, float.html,
// null.html, timestamp.html).
#include <yaml-cpp/yaml.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace piprov::provision {

// nlohmann::json's destructor keeps a std::vector of nested values (it may
// allocate); out of memory there ends the program, as in any destructor.
// NOLINTNEXTLINE(bugprone-exception-escape)
struct YamlDoc {
  nlohmann::json value;
  /// 1-based line of every node by dotted path ("users.0.name"; "" = the
  /// document). For a map entry, the line of its key.
  std::map<std::string, int> lines;
  /// Paths of plain scalars PyYAML reads as a date or timestamp (not a string).
  std::vector<std::string> dates;
  /// Paths of keys given twice in one map (PyYAML keeps the last).
  std::vector<std::string> duplicate_keys;
};

/// The value PyYAML's SafeLoader gives the scalar `text` with yaml-cpp tag
/// `tag` ("?" = plain, "!" = quoted, "tag:yaml.org,2002:str" ...). Sets
/// *is_date for a plain timestamp (returned as the string).
nlohmann::json yaml11_scalar(const std::string& text, const std::string& tag, bool* is_date = nullptr);

/// `root` converted; map keys become strings. Never throws for a loaded node.
YamlDoc yaml_to_json(const YAML::Node& root);

/// Dotted path "a.0.b" from its parts.
std::string join_path(const std::string& parent, const std::string& child);

}  // namespace piprov::provision
