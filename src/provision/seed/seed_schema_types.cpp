// A schema type error said as `cloud-init schema` says it (seed_check_detail.hpp): valijson
// reports "Value type not permitted by 'type' constraint." and names no type.
// Source: cloud-init docs, "cloud-init schema" (python-jsonschema's "X is not of type 'T'"),
// https://cloudinit.readthedocs.io/en/latest/reference/cli.html#schema
#include <algorithm>
#include <string>
#include <vector>

#include "core/finding.hpp"
#include "core/strings.hpp"
#include "provision/seed/seed_check_detail.hpp"

namespace piprov::provision {
namespace {

bool st_is_index(const std::string& part) {
  return !part.empty() && std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; });
}

/// `node` and its allOf/oneOf/anyOf branches, $ref "#/$defs/NAME" resolved in `doc`.
void st_branches(const nlohmann::json& doc, const nlohmann::json& node, std::vector<const nlohmann::json*>& out,
                 int depth) {
  const nlohmann::json* n = &node;
  if (n->is_object() && n->contains("$ref") && (*n)["$ref"].is_string()) {
    const std::string r = (*n)["$ref"].get<std::string>();
    if (r.rfind("#/$defs/", 0) == 0 && doc.contains("$defs") && doc["$defs"].contains(r.substr(8)))
      n = &doc["$defs"][r.substr(8)];
  }
  if (!n->is_object() || depth > 4) return;
  out.push_back(n);
  for (const char* k : {"allOf", "oneOf", "anyOf"})
    if (n->contains(k) && (*n)[k].is_array())
      for (const auto& b : (*n)[k]) st_branches(doc, b, out, depth + 1);
}

/// `v` as Python prints it in python-jsonschema's messages: 'text', 123, True, None, [...].
std::string st_python_repr(const nlohmann::json& v) {
  if (v.is_string()) return "'" + v.get<std::string>() + "'";
  if (v.is_boolean()) return v.get<bool>() ? "True" : "False";
  if (v.is_null()) return "None";
  std::string text = dump_json(v, -1);
  return text.size() > 60 ? text.substr(0, 57) + "..." : text;
}

}  // namespace

std::string seed_type_mismatch(const nlohmann::json& schema_doc, const nlohmann::json& instance,
                               const std::vector<std::string>& path) {
  std::vector<const nlohmann::json*> nodes = {&schema_doc};
  const nlohmann::json* value = &instance;
  for (const auto& part : path) {
    std::vector<const nlohmann::json*> next;
    for (const auto* n : nodes) {
      std::vector<const nlohmann::json*> branches;
      st_branches(schema_doc, *n, branches, 0);
      for (const auto* b : branches) {
        if (b->contains("properties") && (*b)["properties"].contains(part)) next.push_back(&(*b)["properties"][part]);
        if (st_is_index(part) && b->contains("items") && (*b)["items"].is_object()) next.push_back(&(*b)["items"]);
      }
    }
    nodes = std::move(next);
    if (value && value->is_object() && value->contains(part))
      value = &(*value)[part];
    else if (value && value->is_array() && st_is_index(part) && std::stoul(part) < value->size())
      value = &(*value)[std::stoul(part)];
    else
      value = nullptr;
  }
  std::vector<std::string> types;
  for (const auto* n : nodes) {
    std::vector<const nlohmann::json*> branches;
    st_branches(schema_doc, *n, branches, 0);
    for (const auto* b : branches) {
      if (!b->contains("type")) continue;
      const auto& t = (*b)["type"];
      std::vector<nlohmann::json> list =
          t.is_array() ? std::vector<nlohmann::json>(t.begin(), t.end()) : std::vector<nlohmann::json>{t};
      for (const auto& x : list)
        if (x.is_string() && std::find(types.begin(), types.end(), "'" + x.get<std::string>() + "'") == types.end())
          types.push_back("'" + x.get<std::string>() + "'");
    }
  }
  if (types.empty() || !value) return "";
  return st_python_repr(*value) + " is not of type " + join(types, " or ");
}

}  // namespace piprov::provision
