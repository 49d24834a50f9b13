// JSON of write and verify results (docs/write.md "Output").
#include <nlohmann/json.hpp>
#include <optional>

#include "image/target.hpp"
#include "image/verify.hpp"
#include "image/write.hpp"

namespace piprov::image {
namespace {
double rate(std::uint64_t bytes, double seconds) { return seconds > 0 ? static_cast<double>(bytes) / seconds : 0; }

/// A failure: {"kind", "exit_code", "message", "offset": N|null}.
nlohmann::json error_json(ErrorKind kind, const std::string& message, std::optional<std::uint64_t> offset) {
  return {{"kind", error_kind_name(kind)},
          {"exit_code", static_cast<int>(kind)},
          {"message", message},
          {"offset", offset ? nlohmann::json(*offset) : nlohmann::json(nullptr)}};
}

nlohmann::json usb_json(const UsbLink& u) {
  if (!u.usb) return nullptr;
  return {{"device", u.device},
          {"speed_mbps", u.mbps},
          {"version", u.version},
          {"expect_mb_per_second", u.expect_mb_s},
          {"note", u.note}};
}

nlohmann::json speed_json(const SpeedReport& s) {
  return {{"verdict", s.verdict},
          {"verdict_line", s.verdict_line},
          {"xz_blocks", s.xz_blocks},
          {"usable_threads", s.usable_threads},
          {"decode_note", s.decode_note},
          {"writers_waited_seconds", s.writers_waited_seconds},
          {"decoder_waited_seconds", s.decoder_waited_seconds},
          {"verify_waited_for_device_seconds", s.verify_waited_for_device_seconds},
          {"verify_waited_for_hashing_seconds", s.verify_waited_for_hashing_seconds},
          {"slowest_target", s.slowest_target}};
}
}  // namespace

nlohmann::json target_outcome_json(const TargetOutcome& t) {
  nlohmann::json error = nullptr;
  if (!t.ok) error = error_json(t.error_kind, t.error, t.failed_offset);
  return {{"target", t.target},
          {"ok", t.ok},
          {"error", error},
          {"bytes_written", t.bytes_written},
          {"bytes_skipped", t.bytes_skipped},
          {"bytes_discarded", t.bytes_discarded},
          {"write_seconds", t.write_seconds},
          {"write_bytes_per_second", rate(t.bytes_written, t.write_seconds)},
          {"verified", t.verified},
          {"verify_seconds", t.verify_seconds},
          {"verify_bytes_per_second", t.verified ? rate(t.bytes_written - t.bytes_skipped, t.verify_seconds) : 0.0},
          {"waited_for_decoder_seconds", t.waited_for_decoder_seconds},
          {"verify_waited_for_device_seconds", t.verify_waited_for_device_seconds},
          {"verify_waited_for_hashing_seconds", t.verify_waited_for_hashing_seconds},
          {"unmounted", t.unmounted},
          {"partitions", t.partitions},
          {"usb", usb_json(t.usb)}};
}

nlohmann::json write_result_json(const WriteResult& r) {
  nlohmann::json targets = nlohmann::json::array();
  for (const auto& t : r.targets) targets.push_back(target_outcome_json(t));
  nlohmann::json parts = nlohmann::json::array();
  for (const auto& p : r.partitions)
    parts.push_back(
        {{"number", p.number},
         {"type", p.type},
         {"fs", p.fs.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.fs)},
         {"label", p.label},
         {"offset", p.offset},
         {"size", p.size},
         {"skipped_bytes", p.skipped_bytes},
         {"written_in_full_because", p.full_reason.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.full_reason)}});
  return {{"schema", "piprov.write/3"},
          {"image", r.image},
          {"format", r.format},
          {"decoder_threads", r.decoder_threads},
          {"input_bytes", r.input_bytes},
          {"image_bytes", r.image_bytes},
          {"full", r.full},
          {"written_bytes", r.image_bytes - r.skipped_bytes},
          {"skipped_bytes", r.skipped_bytes},
          {"written_in_full_because", r.skip_note.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.skip_note)},
          {"partitions", parts},
          {"summary", r.skip_line},
          {"decode",
           {{"random_access", r.random_access},
            {"units", r.decode.units},
            {"units_decoded", r.decode.units_decoded},
            {"bytes_decoded", r.decode.bytes_decoded},
            {"units_not_decoded", r.decode.units_not_decoded},
            {"bytes_not_decoded", r.decode.bytes_not_decoded},
            {"summary", r.decode_line}}},
          {"write_seconds", r.write_seconds},
          {"verify_seconds", r.verify_seconds},
          {"xxh3_128", r.xxh3_128},
          {"sha256", r.sha256.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.sha256)},
          {"succeeded", r.succeeded()},
          {"failed", r.failed()},
          {"targets", targets},
          {"speed", speed_json(r.speed)}};
}

nlohmann::json verify_result_json(const VerifyResult& r) {
  return {{"schema", "piprov.verify/2"},
          {"image", r.image},
          {"target", r.target},
          {"format", r.format},
          {"bytes", r.bytes},
          {"compared_bytes", r.bytes - r.skipped_bytes},
          {"skipped_bytes", r.skipped_bytes},
          {"seconds", r.seconds},
          {"bytes_per_second", rate(r.bytes - r.skipped_bytes, r.seconds)},  // of the bytes compared
          {"xxh3_128", r.xxh3_128},
          {"match", true}};
}

nlohmann::json verify_failure_json(const std::string& image, const std::string& target, const Error& e) {
  const auto* at = dynamic_cast<const ErrorAt*>(&e);
  return {{"schema", "piprov.verify/2"},
          {"image", image},
          {"target", target},
          {"match", false},
          {"error", error_json(e.kind(), e.what(), at ? std::optional(at->offset()) : std::nullopt)}};
}

nlohmann::json write_failure_json(const WriteOptions& o, const Error& e) {
  const auto* at = dynamic_cast<const ErrorAt*>(&e);
  const nlohmann::json error = error_json(e.kind(), e.what(), at ? std::optional(at->offset()) : std::nullopt);
  nlohmann::json targets = nlohmann::json::array();
  const auto* refused = dynamic_cast<const TargetsRefused*>(&e);
  for (std::size_t i = 0; i < o.targets.size(); ++i) {
    nlohmann::json own = error;
    if (refused && i < refused->per_target().size())
      own["message"] =
          refused->per_target()[i].empty() ? "not written: another target was refused" : refused->per_target()[i];
    targets.push_back({{"target", o.targets[i]}, {"ok", false}, {"error", own}});
  }
  return {{"schema", "piprov.write/3"}, {"image", o.image}, {"succeeded", 0},
          {"failed", o.targets.size()}, {"error", error},   {"targets", targets}};
}

}  // namespace piprov::image
