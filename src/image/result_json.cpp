// JSON of write and verify results (docs/write.md "Output").
#include <nlohmann/json.hpp>

#include "image/verify.hpp"
#include "image/write.hpp"

namespace piprov::image {
namespace {
double rate(std::uint64_t bytes, double seconds) { return seconds > 0 ? static_cast<double>(bytes) / seconds : 0; }
}  // namespace

nlohmann::json write_result_json(const WriteResult& r) {
  return {{"image", r.image},
          {"target", r.target},
          {"format", r.format},
          {"decoder_threads", r.decoder_threads},
          {"input_bytes", r.input_bytes},
          {"bytes_written", r.bytes_written},
          {"write_seconds", r.write_seconds},
          {"write_bytes_per_second", rate(r.bytes_written, r.write_seconds)},
          {"verified", r.verified},
          {"verify_seconds", r.verify_seconds},
          {"verify_bytes_per_second", r.verified ? rate(r.bytes_written, r.verify_seconds) : 0.0},
          {"xxh3_128", r.xxh3_128},
          {"sha256", r.sha256.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.sha256)},
          {"unmounted", r.unmounted},
          {"partitions", r.partitions}};
}

nlohmann::json verify_result_json(const VerifyResult& r) {
  return {{"image", r.image},       {"target", r.target},   {"format", r.format},
          {"bytes", r.bytes},       {"seconds", r.seconds}, {"bytes_per_second", rate(r.bytes, r.seconds)},
          {"xxh3_128", r.xxh3_128}, {"match", true}};
}

}  // namespace piprov::image
