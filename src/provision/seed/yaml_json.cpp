#include "provision/seed/yaml_json.hpp"

#include <algorithm>
#include <regex>
#include <set>

namespace piprov::provision {
namespace {

bool yj_matches(const std::string& s, const char* re) { return std::regex_match(s, std::regex(re)); }

std::string yj_without_underscores(std::string s) {
  s.erase(std::remove(s.begin(), s.end(), '_'), s.end());
  return s;
}

/// PyYAML construct_yaml_int: sign, 0b, 0x, 0 (octal), sexagesimal, decimal.
nlohmann::json yj_int(const std::string& text) {
  std::string s = yj_without_underscores(text);
  long long sign = 1;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    if (s[0] == '-') sign = -1;
    s.erase(0, 1);
  }
  try {
    if (s == "0") return 0;
    if (s.rfind("0b", 0) == 0) return sign * std::stoll(s.substr(2), nullptr, 2);
    if (s.rfind("0x", 0) == 0) return sign * std::stoll(s.substr(2), nullptr, 16);
    if (s[0] == '0') return sign * std::stoll(s, nullptr, 8);
    if (s.find(':') != std::string::npos) {
      long long v = 0;
      std::size_t start = 0;
      while (true) {
        auto colon = s.find(':', start);
        v = v * 60 + std::stoll(s.substr(start, colon - start));
        if (colon == std::string::npos) break;
        start = colon + 1;
      }
      return sign * v;
    }
    return sign * std::stoll(s);
  } catch (const std::exception&) {
    return text;  // out of range for JSON integers: keep the text
  }
}

void yj_walk(const YAML::Node& n, const std::string& path, YamlDoc& doc, nlohmann::json& out) {
  if (n.Mark().line >= 0 && !doc.lines.count(path)) doc.lines[path] = n.Mark().line + 1;
  switch (n.Type()) {
    case YAML::NodeType::Map: {
      out = nlohmann::json::object();
      for (const auto& kv : n) {
        std::string key = kv.first.IsScalar() ? kv.first.Scalar() : std::string("?");
        std::string child = join_path(path, key);
        if (out.contains(key)) doc.duplicate_keys.push_back(child);
        doc.lines[child] = kv.first.Mark().line + 1;
        yj_walk(kv.second, child, doc, out[key]);
      }
      break;
    }
    case YAML::NodeType::Sequence: {
      out = nlohmann::json::array();
      std::size_t i = 0;
      for (const auto& e : n) {
        nlohmann::json v;
        yj_walk(e, join_path(path, std::to_string(i++)), doc, v);
        out.push_back(std::move(v));
      }
      break;
    }
    case YAML::NodeType::Scalar: {
      bool date = false;
      out = yaml11_scalar(n.Scalar(), n.Tag(), &date);
      if (date) doc.dates.push_back(path);
      break;
    }
    default: out = nullptr;
  }
}

}  // namespace

std::string join_path(const std::string& parent, const std::string& child) {
  return parent.empty() ? child : parent + "." + child;
}

nlohmann::json yaml11_scalar(const std::string& s, const std::string& tag, bool* is_date) {
  if (is_date) *is_date = false;
  if (tag != "?") {
    if (tag == "tag:yaml.org,2002:int") return yj_int(s);
    if (tag == "tag:yaml.org,2002:bool") return yaml11_scalar(s, "?");
    if (tag == "tag:yaml.org,2002:null") return nullptr;
    return s;  // quoted, !!str, !!binary (a string for cloud-init's type checker), other tags
  }
  if (yj_matches(s, "~|null|Null|NULL|")) return nullptr;
  if (yj_matches(s, "yes|Yes|YES|true|True|TRUE|on|On|ON")) return true;
  if (yj_matches(s, "no|No|NO|false|False|FALSE|off|Off|OFF")) return false;
  if (yj_matches(s,
                 "[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|"
                 "[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+"))
    return yj_int(s);
  if (yj_matches(s, "[-+]?(?:[0-9][0-9_]*)\\.[0-9_]*(?:[eE][-+][0-9]+)?|\\.[0-9_]+(?:[eE][-+][0-9]+)?")) {
    try {
      return std::stod(yj_without_underscores(s));
    } catch (const std::exception&) {
      return s;
    }
  }
  if (yj_matches(s, "[-+]?\\.(?:inf|Inf|INF)|\\.(?:nan|NaN|NAN)")) return s;  // JSON has no inf/nan
  if (yj_matches(
          s,
          "[0-9]{4}-[0-9][0-9]-[0-9][0-9]|[0-9]{4}-[0-9][0-9]?-[0-9][0-9]?(?:[Tt]|[ \\t]+)[0-9][0-9]?:[0-9][0-9]:"
          "[0-9][0-9](?:\\.[0-9]*)?(?:[ \\t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?")) {
    if (is_date) *is_date = true;
    return s;
  }
  return s;
}

YamlDoc yaml_to_json(const YAML::Node& root) {
  YamlDoc doc;
  yj_walk(root, "", doc, doc.value);
  return doc;
}

}  // namespace piprov::provision
