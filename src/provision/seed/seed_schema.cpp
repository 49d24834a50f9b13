// cloud-init's JSON schema for user-data, as `cloud-init schema` uses it:
// found where the installed cloud-init keeps it, parsed once with valijson
// (draft 4, what cloud-init's validator is), and the errors, unknown keys and
// deprecated keys it yields as seed findings (seed_check_detail.hpp).
// Source: cloud-init docs, "cloud-init schema" and the module reference,
// https://cloudinit.readthedocs.io/en/latest/reference/modules.html
#include "provision/seed/seed_check_detail.hpp"

// valijson's exceptions.hpp includes <stdexcept> inside its namespace: include it first.
#include <stdexcept>
// clang-format off
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validator.hpp>
// clang-format on

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <regex>
#include <set>

#include "core/file.hpp"
#include "core/strings.hpp"
#include "provision/seed/yaml_json.hpp"

namespace fs = std::filesystem;

namespace piprov::provision {

/// A cloud-init schema (the image's or the installed one), parsed once per path.
struct SchemaStore {
  std::string path, version;
  /// Who judges, in findings: "cloud-init 24.1's schema, read from the image" or "cloud-init 22.4.2's schema".
  std::string judge;
  nlohmann::json doc;  ///< valijson's adapters refer into it: it outlives `schema`
  valijson::Schema schema;
  std::set<std::string> top_keys;  ///< properties of every cc_* module
  std::set<std::string> all_keys;  ///< every property name anywhere (for "did you mean")
  bool top_level_closed = false;   ///< the schema itself refuses unknown top-level keys (cloud-init >= 23.4)
};

namespace {

constexpr const char* kSrcTopLevel =
    "cloud-init PR 4562 (`cloud-init schema` reports unknown top-level keys since 23.4; at boot they are logged): "
    "https://github.com/canonical/cloud-init/pull/4562";

void sc_collect_keys(const nlohmann::json& j, std::set<std::string>& out) {
  if (j.is_object()) {
    for (const auto& [k, v] : j.items()) {
      if ((k == "properties" || k == "patternProperties") && v.is_object())
        for (const auto& [name, _] : v.items()) out.insert(name);
      sc_collect_keys(v, out);
    }
  } else if (j.is_array()) {
    for (const auto& v : j) sc_collect_keys(v, out);
  }
}

std::string sc_cloud_init_version(const fs::path& schema) {
  // .../cloudinit/config/schemas/schema-cloud-config-v1.json -> .../cloudinit/version.py
  auto py = schema.parent_path().parent_path().parent_path() / "version.py";
  std::error_code ec;
  if (!fs::is_regular_file(py, ec)) return "";
  static const std::regex v("__VERSION__\\s*=\\s*[\"']([^\"']+)[\"']");
  std::string text = read_file_capped(py.string(), 1 << 16, "cloud-init version").value_or("");
  std::smatch m;
  return std::regex_search(text, m, v) ? m.str(1) : "";
}

std::vector<std::string> sc_schema_candidates() {
  std::vector<std::string> out = {
      "/usr/lib/python3/dist-packages/cloudinit/config/schemas/schema-cloud-config-v1.json"};
  for (const char* base : {"/usr/lib", "/usr/lib64", "/usr/local/lib"}) {
    std::error_code ec;
    for (fs::directory_iterator it(base, ec), end; !ec && it != end; it.increment(ec)) {
      auto name = it->path().filename().string();
      if (name.rfind("python3", 0) != 0) continue;
      for (const char* sub : {"site-packages", "dist-packages"})
        out.push_back((it->path() / sub / "cloudinit/config/schemas/schema-cloud-config-v1.json").string());
    }
  }
  return out;
}

/// Parses `text` (the schema at `path`, cloud-init `version`) into a store.
/// Throws what nlohmann::json and valijson throw.
std::shared_ptr<SchemaStore> sc_parse(const std::string& path, const std::string& version, const std::string& text) {
  auto s = std::make_shared<SchemaStore>();
  s->path = path;
  s->version = version;
  s->doc = nlohmann::json::parse(text);
  valijson::SchemaParser parser(valijson::SchemaParser::kDraft4);
  parser.populateSchema(valijson::adapters::NlohmannJsonAdapter(s->doc), s->schema);
  sc_collect_keys(s->doc, s->all_keys);
  if (s->doc.contains("properties") && s->doc["properties"].is_object())
    for (const auto& [k, _] : s->doc["properties"].items()) s->top_keys.insert(k);
  s->top_level_closed = s->doc.value("additionalProperties", true) == false;
  if (s->doc.contains("allOf"))
    for (const auto& ref : s->doc["allOf"]) {
      std::string r = ref.value("$ref", "");
      if (r.rfind("#/$defs/", 0) != 0) continue;
      const auto& def = s->doc["$defs"][r.substr(8)];
      if (def.contains("properties"))
        for (const auto& [k, _] : def["properties"].items()) s->top_keys.insert(k);
    }
  return s;
}

/// The schema the image carries (o.image), parsed once per image and version;
/// nullptr with *why set when it cannot be parsed.
std::shared_ptr<SchemaStore> sc_image_schema(const ImageCloudInit& image, std::string* why) {
  static std::mutex lock;
  static std::map<std::pair<std::string, std::size_t>, std::shared_ptr<SchemaStore>> cache;
  const std::lock_guard<std::mutex> held(lock);
  const auto key = std::make_pair(image.image, std::hash<std::string>{}(image.schema_text));
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  try {
    auto s = sc_parse(image.image + ":" + kImageSchemaPath, image.cloud_init_version, image.schema_text);
    s->judge =
        "cloud-init" + (s->version.empty() ? std::string() : " " + s->version) + "'s schema, read from the image";
    return cache[key] = s;
  } catch (const std::exception& e) {
    *why =
        "the cloud-init schema in " + image.image + " (" + kImageSchemaPath + ") could not be read (" + e.what() + ")";
    return nullptr;
  }
}

/// The schema to use, or nullptr with *why set (partial check).
std::shared_ptr<SchemaStore> sc_schema(const SeedCheckOptions& o, std::string* why) {
  if (o.image && o.image->has_schema())
    if (auto s = sc_image_schema(*o.image, why)) return s;
  std::string path = o.schema_path;
  if (path.empty())
    if (const char* env = std::getenv("PIPROV_CLOUD_INIT_SCHEMA")) path = env;
  std::vector<std::string> candidates = path.empty() ? sc_schema_candidates() : std::vector<std::string>{path};
  if (path == "none") {
    *why = "the cloud-init schema was switched off (PIPROV_CLOUD_INIT_SCHEMA=none)";
    return nullptr;
  }
  std::error_code ec;
  auto found = std::find_if(candidates.begin(), candidates.end(),
                            [&](const std::string& c) { return fs::is_regular_file(c, ec); });
  if (found == candidates.end()) {
    *why = "cloud-init's schema is not installed here (looked for " + candidates.front() +
           (candidates.size() > 1 ? " and " + std::to_string(candidates.size() - 1) + " other places" : "") + ")";
    return nullptr;
  }
  // Provision checks each disk's seed on its own thread: one loader at a time.
  static std::mutex lock;
  static std::map<std::string, std::shared_ptr<SchemaStore>> cache;
  static std::map<std::string, std::string> failures;
  const std::lock_guard<std::mutex> held(lock);
  if (auto it = cache.find(*found); it != cache.end()) return it->second;
  if (auto it = failures.find(*found); it != failures.end()) {
    *why = it->second;
    return nullptr;
  }
  try {
    auto s = sc_parse(*found, sc_cloud_init_version(*found),
                      read_file_capped(*found, 16u << 20, "cloud-init schema").value_or(""));
    s->judge = "cloud-init" + (s->version.empty() ? std::string() : " " + s->version) + "'s schema";
    cache[*found] = s;
    return s;
  } catch (const std::exception& e) {
    failures[*found] = *why = "cloud-init's schema " + *found + " could not be read (" + e.what() + ")";
    return nullptr;
  }
}

std::size_t sc_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

/// The key of `known` nearest to `key`, when it is close enough to be a
/// misspelling: at most a quarter of the shorter name's letters differ (at
/// least one may): 'plain_text_password' -> 'plain_text_passwd', never
/// 'rpi' -> 'apt' (two of three letters). "" when none is that close.
std::string sc_nearest(const std::string& key, const std::set<std::string>& known) {
  std::string best;
  std::size_t d = 4;
  for (const auto& k : known) {
    const std::size_t e = sc_distance(key, k);
    const std::size_t close = std::max<std::size_t>(1, std::min(key.size(), k.size()) / 4);
    if (e > 0 && e < d && e <= close) d = e, best = k;
  }
  return best;
}

std::string sc_unknown_key_fix(const std::string& key, const std::set<std::string>& known) {
  std::string near = sc_nearest(key, known);
  std::string fix = near.empty() ? "remove '" + key + "' or correct its spelling"
                                 : "did you mean '" + near + "'? rename '" + key + "' to '" + near + "'";
  if (key.find("pass") != std::string::npos)
    fix += "; better, keep passwords out of user-data: --user NAME --password-hash \"$(mkpasswd -m yescrypt)\"";
  return fix;
}

struct SchemaProblem {
  std::vector<std::string> path;
  std::string description;
  bool unknown_key = false;
};

bool sc_is_prefix(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  return a.size() <= b.size() && std::equal(a.begin(), a.end(), b.begin());
}

/// valijson's errors, reduced to the ones that say what is wrong: a
/// oneOf/anyOf branch that failed only on its type, and the summaries of a
/// failed combination, are dropped when a more precise error is under them
/// (any error at a deeper path, or one at the same path that is not a type error).
std::vector<SchemaProblem> sc_validate(const SchemaStore& s, const nlohmann::json& instance) {
  valijson::Validator v(valijson::Validator::kStrongTypes);
  valijson::ValidationResults results;
  const valijson::adapters::NlohmannJsonAdapter target(instance);
  v.validate(s.schema, target, &results);
  // valijson stops an allOf at its first failing branch, and cloud-init's schema is an allOf of
  // every module's: each branch of the top-level allOf on its own as well, so that the errors of
  // two modules are all named (as `cloud-init schema` names them); duplicates are dropped below.
  valijson::Subschema::ApplyFunction each_branch = [&](const valijson::constraints::Constraint& c) {
    if (const auto* all = dynamic_cast<const valijson::constraints::AllOfConstraint*>(&c))
      all->applyToSubschemas([&](unsigned, const valijson::Subschema* sub) {
        v.validate(*sub, target, &results);
        return true;
      });
    return true;
  };
  s.schema.apply(each_branch);
  std::vector<SchemaProblem> all;
  valijson::ValidationResults::Error e;
  static const std::regex unwanted(
      "could not be validated using 'properties' or 'additionalProperties' constraints: '(.*)'\\.$");
  while (results.popError(e)) {
    SchemaProblem p;
    for (std::size_t i = 1; i < e.context.size(); ++i)
      p.path.push_back(e.context[i].substr(1, e.context[i].size() - 2));
    p.description = e.description;
    std::smatch m;
    if (std::regex_search(p.description, m, unwanted)) {
      p.path.push_back(m.str(1));
      p.unknown_key = true;
    }
    all.push_back(std::move(p));
  }
  auto summary = [](const SchemaProblem& p) { return p.description.rfind("Failed to validate", 0) == 0; };
  auto type_only = [](const SchemaProblem& p) { return p.description.rfind("Value type not permitted", 0) == 0; };
  std::vector<SchemaProblem> out;
  std::set<std::pair<std::string, std::string>> seen;
  for (const auto& p : all) {
    // A type error under p (a deeper path) is precise too: some branch took p's type and looked
    // inside (users.0 a map with a bad lock_passwd: not also "users.0 is not a string or array").
    bool precise_below = std::any_of(all.begin(), all.end(), [&](const SchemaProblem& q) {
      return &q != &p && !summary(q) && sc_is_prefix(p.path, q.path) &&
             (!type_only(q) || q.path.size() > p.path.size());
    });
    bool any_below = std::any_of(all.begin(), all.end(), [&](const SchemaProblem& q) {
      return &q != &p && !summary(q) && sc_is_prefix(p.path, q.path);
    });
    if ((summary(p) && any_below) || (type_only(p) && precise_below)) continue;
    if (!seen.insert({join(p.path, "."), p.description}).second) continue;
    out.push_back(p);
  }
  return out;
}

const nlohmann::json& sc_resolve(const SchemaStore& s, const nlohmann::json& node) {
  if (node.is_object() && node.contains("$ref") && node["$ref"].is_string()) {
    std::string r = node["$ref"].get<std::string>();
    if (r.rfind("#/$defs/", 0) == 0 && s.doc.contains("$defs") && s.doc["$defs"].contains(r.substr(8)))
      return s.doc["$defs"][r.substr(8)];
  }
  return node;
}

/// The schema node and its allOf/oneOf/anyOf branches (what may hold `properties`).
void sc_branches(const SchemaStore& s, const nlohmann::json& node, std::vector<const nlohmann::json*>& out, int depth) {
  const nlohmann::json& n = sc_resolve(s, node);
  if (!n.is_object() || depth > 4) return;
  out.push_back(&n);
  for (const char* k : {"allOf", "oneOf", "anyOf"})
    if (n.contains(k) && n[k].is_array())
      for (const auto& b : n[k]) sc_branches(s, b, out, depth + 1);
}

/// seed-deprecated-key: keys whose schema property says `deprecated: true`
/// (cloud-init reports them as "DEPRECATED", never as errors). Deprecated
/// value forms inside a oneOf (sudo: false, uid as a string) are not reported.
void sc_deprecations(const SchemaStore& s, const nlohmann::json& schema, const nlohmann::json& inst,
                     const std::string& path, const YamlDoc& doc, const std::string& file, Findings& out, int depth) {
  if (depth > 12) return;
  std::vector<const nlohmann::json*> branches;
  sc_branches(s, schema, branches, 0);
  if (inst.is_object()) {
    for (const auto& [key, value] : inst.items()) {
      std::string at = join_path(path, key);
      bool reported = false;
      for (const auto* b : branches) {
        if (!b->contains("properties") || !(*b)["properties"].contains(key)) continue;
        const nlohmann::json& prop = sc_resolve(s, (*b)["properties"][key]);
        std::vector<const nlohmann::json*> pb;
        sc_branches(s, prop, pb, 0);
        const nlohmann::json* dep = nullptr;
        for (const auto* x : pb)
          if (x->value("deprecated", false) == true && !x->contains("enum") && !x->contains("type")) dep = x;
        if (prop.value("deprecated", false) == true) dep = &prop;
        if (dep && !reported) {
          reported = true;
          out.push_back(seed_finding("seed-deprecated-key", Severity::Warning, seed_line(doc, at), at, file,
                                     "'" + key + "' is deprecated in cloud-init: " + dep->value("description", ""),
                                     "use the key the description names", kSeedSrcSchema));
        }
        sc_deprecations(s, prop, value, at, doc, file, out, depth + 1);
      }
    }
  } else if (inst.is_array()) {
    for (const auto* b : branches)
      if (b->contains("items") && (*b)["items"].is_object())
        for (std::size_t i = 0; i < inst.size(); ++i)
          sc_deprecations(s, (*b)["items"], inst[i], join_path(path, std::to_string(i)), doc, file, out, depth + 1);
  }
}

void sc_schema_rules(const SchemaStore& s, bool from_image, const YamlDoc& doc, const std::string& file,
                     Findings& out) {
  sc_deprecations(s, s.doc, doc.value, "", doc, file, out, 0);
  const std::string& judge = s.judge;
  const std::string ci = "cloud-init" + (s.version.empty() ? std::string() : " " + s.version);
  std::vector<SchemaProblem> problems = sc_validate(s, doc.value);
  if (s.top_level_closed && doc.value.is_object()) {
    // valijson names the first unknown key of an object only: the others too, as `cloud-init schema` does.
    std::set<std::string> named;
    for (const auto& p : problems)
      if (p.unknown_key && p.path.size() == 1) named.insert(p.path.front());
    for (const auto& [k, _] : doc.value.items())
      if (!s.top_keys.count(k) && !named.count(k)) problems.push_back({{k}, "", true});
  }
  for (const auto& p : problems) {
    std::string at = join(p.path, ".");
    int line = seed_line(doc, at);
    if (p.unknown_key) {
      const std::string& key = p.path.back();
      std::string where = p.path.size() > 1
                              ? "'" + join(std::vector<std::string>(p.path.begin(), p.path.end() - 1), ".") + "'"
                              : "the document";
      // An unknown top-level key is seed-unknown-key whatever the schema (open before 23.4,
      // closed since: cloud-init PR 4562); deeper ones are the schema's errors.
      const bool top = p.path.size() == 1;
      if (auto newer = top ? seed_newer_key_finding(key, s.version, judge, from_image, line, file) : std::nullopt) {
        out.push_back(std::move(*newer));
        continue;
      }
      out.push_back(seed_finding(top ? "seed-unknown-key" : "seed-schema-error", Severity::Error, line, at, file,
                                 "'" + key + "' is not a key of " + where + " in " + judge +
                                     " (additionalProperties false): " + seed_unknown_key_effect(key),
                                 sc_unknown_key_fix(key, s.all_keys), top ? kSrcTopLevel : kSeedSrcSchema));
    } else {
      // valijson's "Value type not permitted by 'type' constraint." names no type: say it as
      // `cloud-init schema` (python-jsonschema) does, "hostname: 123 is not of type 'string'".
      std::string what = p.description;
      if (what.rfind("Value type not permitted", 0) == 0)
        if (auto typed = seed_type_mismatch(s.doc, doc.value, p.path); !typed.empty()) what = typed;
      out.push_back(
          seed_finding("seed-schema-error", Severity::Error, line, at, file,
                       "'" + (at.empty() ? std::string("<document>") : at) + "' does not match " + judge + ": " + what,
                       "see the module's documentation for the value it takes (a quoted value is a string, "
                       "yes/no/on/off are booleans, 0644 is the number 420)",
                       kSeedSrcSchema));
    }
  }
  if (s.top_level_closed || !doc.value.is_object()) return;
  for (const auto& [k, _] : doc.value.items()) {
    if (s.top_keys.count(k)) continue;
    if (auto newer = seed_newer_key_finding(k, s.version, judge, from_image, seed_line(doc, k), file)) {
      out.push_back(std::move(*newer));
      continue;
    }
    out.push_back(seed_finding("seed-unknown-key", Severity::Error, seed_line(doc, k), k, file,
                               "'" + k + "' is not a cloud-config key in " + judge + ": " + ci +
                                   " ignores it (cloud-init 23.4 and later: " + seed_unknown_key_effect(k) + ")",
                               sc_unknown_key_fix(k, s.top_keys), kSrcTopLevel));
  }
}

}  // namespace

std::optional<LoadedSchema> seed_load_schema(const SeedCheckOptions& o, std::string* why) {
  auto s = sc_schema(o, why);
  if (!s) return std::nullopt;
  return LoadedSchema{s->path, s->version, s, s->judge, o.image && s->path.rfind(o.image->image + ":", 0) == 0};
}

void seed_schema_rules(const LoadedSchema& s, const YamlDoc& doc, const std::string& file, Findings& out) {
  sc_schema_rules(*s.store, s.from_image, doc, file, out);
}

std::string seed_unknown_key_fix(const std::string& key, const std::set<std::string>& known) {
  return sc_unknown_key_fix(key, known);
}

std::string seed_unknown_key_effect(const std::string& key) {
  return "`cloud-init schema` reports it as an error; at boot cloud-init logs it as a schema warning, does not "
         "refuse the file, and never applies '" +
         key + "'";
}

}  // namespace piprov::provision
