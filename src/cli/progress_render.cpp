#include "cli/progress_render.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/enum_names.hpp"
#include "core/error.hpp"
#include "core/finding.hpp"
#include "core/units.hpp"

namespace piprov::cli {
namespace {

using Kind = ProgressEvent::Kind;

/// 0..1 done, from the total when known, else the event's own estimate; < 0 unknown.
double fraction_of(const ProgressEvent& e) { return e.total > 0 ? e.done / e.total : e.fraction; }

/// Seconds left estimated from the fraction done so far; < 0 when unknown.
double eta_of(const ProgressEvent& e, bool final) {
  if (final) return 0;
  if (e.eta_s >= 0) return e.eta_s;
  double frac = fraction_of(e);
  return frac > 0.001 && frac <= 1.0 ? e.elapsed_s * (1.0 - frac) / frac : -1.0;
}

double rate_of(const ProgressEvent& e) { return e.elapsed_s > 0 ? e.done / e.elapsed_s : 0.0; }

std::uint64_t bytes(double v) { return static_cast<std::uint64_t>(std::max(0.0, v)); }

std::string bench_text(const ProgressEvent& e) {
  std::string s;
  if (e.unit == ProgressUnit::Bytes)
    s = fmt::format("{}: pre-filling test file {} / {}", e.target, format_bytes(bytes(e.done)),
                    format_bytes(bytes(e.total)));
  else
    s = fmt::format("{}: [{}/{}] {} {:.1f}/{:.1f} s, {:.0f} IOPS", e.target, e.index, e.count, e.text, e.done, e.total,
                    e.rate);
  return s + ", ETA " + format_duration(std::max(0.0, e.eta_s));
}

/// A JSON string literal (quotes, escapes).
std::string json_string(const std::string& s) { return dump_json(nlohmann::json(s), -1); }

/// The JSON line of a bench job (seconds), keys as in the header comment.
std::string job_json(const ProgressEvent& e, bool final) {
  return fmt::format(
      "{{\"phase\":\"job\",\"target\":{},\"job\":{},\"index\":{},\"count\":{},\"seconds\":{:.1f},"
      "\"total_seconds\":{:.1f},\"iops\":{:.0f},\"eta_seconds\":{:.1f},\"done\":{}}}",
      json_string(e.target), json_string(e.text), e.index, e.count, e.done, e.total, e.rate,
      final ? 0.0 : std::max(0.0, e.eta_s), final ? "true" : "false");
}

}  // namespace

namespace {
constexpr EnumName<ProgressMode> kProgressModeNames[] = {{ProgressMode::Auto, "auto"},
                                                         {ProgressMode::Tty, "tty"},
                                                         {ProgressMode::Plain, "plain"},
                                                         {ProgressMode::Json, "json"},
                                                         {ProgressMode::None, "none"}};
}  // namespace

ProgressMode parse_progress_mode(std::string_view t) {
  if (auto m = parse_enum(kProgressModeNames, t)) return *m;
  throw Error(ErrorKind::Usage,
              fmt::format("invalid --progress '{}': use {}", t, enum_choices(kProgressModeNames, ", ", " or ")));
}

std::string to_string(ProgressMode m) { return std::string(enum_name(kProgressModeNames, m)); }

ProgressMode resolve_progress_mode(ProgressMode m, bool is_tty) {
  if (m != ProgressMode::Auto) return m;
  return is_tty ? ProgressMode::Tty : ProgressMode::None;
}

std::string progress_text(const ProgressEvent& e, bool final) {
  if (e.phase == Phase::Prefill || e.phase == Phase::Job) return bench_text(e);
  const double frac = fraction_of(e);
  const double eta = eta_of(e, final);
  std::string line =
      std::string(phase_name(e.phase)) + (e.target.empty() ? "" : " " + e.target) + ": " + format_bytes(bytes(e.done));
  if (e.total > 0) line += " of " + format_bytes(bytes(e.total));
  if (frac >= 0) line += fmt::format(" ({:.0f}%)", frac * 100.0);
  line += ", " + format_mib_s(rate_of(e));
  if (final)
    line += ", " + format_duration(e.elapsed_s);
  else if (eta >= 0)
    line += ", ETA " + format_duration(eta);
  return line;
}

std::string progress_json(const ProgressEvent& e, bool final) {
  if (e.phase == Phase::Job) return job_json(e, final);
  const double eta = eta_of(e, final);
  std::string total = e.total > 0 ? std::to_string(bytes(e.total)) : "null";
  std::string eta_s = eta >= 0 ? fmt::format("{:.1f}", eta) : "null";
  std::string target = e.target.empty() ? "" : fmt::format(",\"target\":\"{}\"", e.target);
  return fmt::format(
      "{{\"phase\":\"{}\"{},\"bytes\":{},\"total_bytes\":{},\"bytes_per_second\":{:.0f},\"eta_seconds\":{},\"done\":{}}"
      "}",
      phase_name(e.phase), target, bytes(e.done), total, rate_of(e), eta_s, final ? "true" : "false");
}

std::string step_text(const ProgressEvent& e) {
  if (!e.target.empty())
    return fmt::format("{}: [{}/{}] {:<10} {:>8}  {}", e.target, e.index, e.count, e.step, format_duration(e.elapsed_s),
                       e.text);
  return fmt::format("[{}/{}] {:<10} {:>8}  {}", e.index, e.count, e.step, format_duration(e.elapsed_s), e.text);
}

ProgressRenderer::ProgressRenderer(ProgressMode mode, std::FILE* out) : mode_(mode), out_(out) {}

ProgressRenderer::~ProgressRenderer() {
  if (line_shown_) std::fputs("\r\033[K", out_), std::fflush(out_);
}

void ProgressRenderer::operator()(const ProgressEvent& e) {
  if (mode_ == ProgressMode::None || mode_ == ProgressMode::Auto || e.kind == Kind::Step) return;
  if (e.kind == Kind::Begin) {  // the first line comes one interval into the phase
    last_ = 0;
    return;
  }
  const bool final = e.kind == Kind::End;
  const double every = mode_ == ProgressMode::Tty ? 0.2 : mode_ == ProgressMode::Json ? 1.0 : 2.0;
  if (!final && e.elapsed_s - last_ < every) return;
  last_ = e.elapsed_s;
  if (mode_ == ProgressMode::Tty) {
    if (final)
      std::fputs("\r\033[K", out_);
    else
      std::fprintf(out_, "\r\033[K%s", progress_text(e, false).c_str());
    line_shown_ = !final;
  } else {
    std::string line = mode_ == ProgressMode::Json ? progress_json(e, final) : progress_text(e, final);
    std::fprintf(out_, "%s\n", line.c_str());
  }
  std::fflush(out_);
}

ProgressSink ProgressRenderer::sink() {
  if (mode_ == ProgressMode::None) return {};
  return [this](const ProgressEvent& e) { (*this)(e); };
}

}  // namespace piprov::cli
