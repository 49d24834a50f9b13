// clone's summary, --json and exit code (clone.hpp).
#include <fmt/format.h>
#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/board.hpp"
#include "core/finding.hpp"
#include "core/strings.hpp"
#include "core/units.hpp"
#include "keep/clone.hpp"
#include "keep/source_disk.hpp"

namespace piprov::keep {

namespace {

std::string clone_target_lines(const CloneTarget& t) {
  if (!t.ok) return fmt::format("{}: FAILED: {}", t.target, t.error);
  const auto& w = t.write;
  std::string s;
  for (const auto& c : t.copied) s += t.target + ": " + c + "\n";
  if (t.copied.empty())
    s = fmt::format("{}: written in {}{}", t.target, format_duration(w.write_seconds),
                    w.verified ? fmt::format(", verified in {}", format_duration(w.verify_seconds))
                               : std::string(", not verified (--no-verify)"));
  else
    s += fmt::format("{}: copied in {}", t.target, format_duration(t.steps_seconds));
  if (!t.grown.empty()) s += "; " + t.grown;
  if (!t.identity.new_id.empty())
    s += fmt::format("; {} {} -> {}", t.identity.label == image::TableScheme::Dos ? "disk identifier" : "disk GUID",
                     t.identity.old_id, t.identity.new_id);
  s += t.rewritten.empty() ? std::string("; no PARTUUID= to rewrite")
                           : "; PARTUUID= rewritten in " + join(t.rewritten, ", ");
  if (!t.identity_line.empty()) s += "\n" + t.target + ": " + t.identity_line;
  s += "\n" + t.target + ": " + t.check_line;
  if (t.checked && !t.check.ok()) s += "\n" + findings_text(t.check.findings);
  return s;
}

}  // namespace

std::string clone_summary(const CloneResult& r) {
  if (r.live) {
    std::string s = fmt::format(
        "clone: {} ({}, mounted: a live copy) -> {} of {} target(s) in {}; each mounted file system made anew and "
        "copied file by file (rsync), the others block for block",
        r.source, format_bytes(r.source_bytes), r.succeeded(), r.targets.size(), format_duration(r.seconds));
    for (const auto& t : r.targets) s += "\n" + clone_target_lines(t);
    return s + "\nspeed: " + r.limit;
  }
  const std::uint64_t written = r.copy_bytes - std::min(r.copy_bytes, r.skipped_bytes);
  std::string s = fmt::format(
      "clone: {} ({}) -> {} of {} target(s) in {}; copied {} ({}): read {}, skipped {} of free space, wrote {} per "
      "target",
      r.source, format_bytes(r.source_bytes), r.succeeded(), r.targets.size(), format_duration(r.seconds),
      format_bytes(r.copy_bytes),
      r.table == image::TableScheme::None ? "no partition table: all of it" : "to the end of the last partition",
      format_bytes(r.read_bytes), format_bytes(r.skipped_bytes), format_bytes(written));
  for (const auto& p : r.partitions)
    if (!p.full_reason.empty()) s += fmt::format("\npartition {}: {}: copied in full", p.number, p.full_reason);
  if (!r.note.empty()) s += fmt::format("\n{}: copied in full", r.note);
  for (const auto& t : r.targets) s += "\n" + clone_target_lines(t);
  s += "\nspeed: " + r.limit;
  return s;
}

nlohmann::json clone_result_json(const CloneResult& r) {
  const nlohmann::json parts = source_partitions_json(r.partitions);
  nlohmann::json targets = nlohmann::json::array();
  for (const auto& t : r.targets)
    targets.push_back({{"target", t.target},
                       {"ok", t.ok},
                       {"error", t.error},
                       {"bytes_written", t.write.bytes_written},
                       {"bytes_skipped", t.write.bytes_skipped},
                       {"write_seconds", t.write.write_seconds},
                       {"verified", t.write.verified},
                       {"grown", t.grown},
                       {"disk_identity",
                        {{"label", std::string(image::scheme_name(t.identity.label))},
                         {"old_id", t.identity.old_id},
                         {"new_id", t.identity.new_id},
                         {"partuuids", t.identity.partuuids}}},
                       {"rewritten", t.rewritten},
                       {"partuuid_references", t.partuuid_references},
                       {"boot_check",
                        {{"ran", t.checked},
                         {"ok", !t.checked || t.check.ok()},
                         {"board", t.checked ? nlohmann::json(board_name(t.check.resolved.board)) : nlohmann::json()},
                         {"board_given", t.board.has_value()},
                         {"summary", t.check_line},
                         {"findings", t.checked ? findings_json(t.check.findings) : nlohmann::json::array()}}},
                       {"steps_seconds", t.steps_seconds},
                       {"copied", t.copied},
                       {"seed_files", t.seed_files},
                       {"hostname", t.seed ? t.seed->hostname : ""},
                       {"instance_id", t.seed ? t.seed->instance_id : ""}});
  return {{"schema", "piprov.clone/1"},
          {"source", r.source},
          {"source_bytes", r.source_bytes},
          {"copy_bytes", r.copy_bytes},
          {"read_bytes", r.read_bytes},
          {"skipped_bytes", r.skipped_bytes},
          {"table", std::string(image::scheme_name(r.table))},
          {"live", r.live},
          {"seconds", r.seconds},
          {"limit", r.limit},
          {"read_threads", r.write.decoder_threads},
          {"note", r.note},
          {"partitions", parts},
          {"targets", targets},
          {"exit_code", clone_exit_code(r)}};
}

nlohmann::json clone_failure_json(const CloneOptions& o, const Error& e) {
  return {{"schema", "piprov.clone/1"},
          {"source", o.source},
          {"targets", o.targets},
          {"error", {{"exit_code", static_cast<int>(e.kind())}, {"message", e.what()}}}};
}

int clone_exit_code(const CloneResult& r) {
  for (const auto& t : r.targets)
    if (!t.ok && t.error_kind == ErrorKind::Interrupted) return static_cast<int>(ErrorKind::Interrupted);
  if (r.succeeded() < r.targets.size()) return static_cast<int>(ErrorKind::Partial);
  Findings all;
  for (const auto& t : r.targets)
    if (t.checked) all.insert(all.end(), t.check.findings.begin(), t.check.findings.end());
  return findings_exit_code(all, boot::kCheckFailOn);
}

}  // namespace piprov::keep
