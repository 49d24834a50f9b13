#include "core/progress.hpp"

#include <fmt/format.h>
#include <unistd.h>
#include <cstdio>

#include "core/error.hpp"
#include "core/units.hpp"

namespace piprov {

ProgressMode parse_progress_mode(std::string_view t) {
  if (t == "auto") return ProgressMode::Auto;
  if (t == "tty") return ProgressMode::Tty;
  if (t == "plain") return ProgressMode::Plain;
  if (t == "json") return ProgressMode::Json;
  if (t == "none") return ProgressMode::None;
  throw Error(ErrorKind::Usage, fmt::format("invalid --progress '{}': use auto, tty, plain, json or none", t));
}

std::string to_string(ProgressMode m) {
  switch (m) {
    case ProgressMode::Auto: return "auto";
    case ProgressMode::Tty: return "tty";
    case ProgressMode::Plain: return "plain";
    case ProgressMode::Json: return "json";
    case ProgressMode::None: return "none";
  }
  return "none";
}

ProgressMode resolve_progress_mode(ProgressMode m) {
  if (m != ProgressMode::Auto) return m;
  return ::isatty(STDERR_FILENO) ? ProgressMode::Tty : ProgressMode::None;
}

Progress::Progress(ProgressMode mode) : mode_(resolve_progress_mode(mode)) {}

Progress::~Progress() {
  if (active_ && mode_ == ProgressMode::Tty) std::fputs("\r\033[K", stderr);
}

void Progress::begin(std::string phase, std::uint64_t total_bytes) {
  if (active_) end();
  phase_ = std::move(phase);
  total_ = total_bytes;
  done_ = 0;
  fraction_ = -1.0;
  active_ = true;
  start_ = last_ = std::chrono::steady_clock::now();
}

void Progress::update(std::uint64_t done_bytes, double fraction) {
  done_ = done_bytes;
  fraction_ = fraction;
  if (mode_ == ProgressMode::None || !active_) return;
  auto now = std::chrono::steady_clock::now();
  auto every = mode_ == ProgressMode::Tty    ? std::chrono::milliseconds(200)
               : mode_ == ProgressMode::Json ? std::chrono::milliseconds(1000)
                                             : std::chrono::milliseconds(2000);
  if (now - last_ < every) return;
  last_ = now;
  emit(false);
}

void Progress::end() {
  if (!active_) return;
  if (mode_ == ProgressMode::Tty)
    std::fputs("\r\033[K", stderr);
  else if (mode_ != ProgressMode::None)
    emit(true);
  std::fflush(stderr);
  active_ = false;
}

void Progress::emit(bool final) {
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  double rate = secs > 0 ? static_cast<double>(done_) / secs : 0.0;
  double frac = total_ > 0 ? static_cast<double>(done_) / static_cast<double>(total_) : fraction_;
  double eta = (frac > 0.001 && frac <= 1.0 && !final) ? secs * (1.0 - frac) / frac : -1.0;
  if (final) eta = 0;
  if (mode_ == ProgressMode::Json) {
    std::string total = total_ > 0 ? std::to_string(total_) : "null";
    std::string eta_s = eta >= 0 ? fmt::format("{:.1f}", eta) : "null";
    std::fprintf(stderr,
                 "{\"phase\":\"%s\",\"bytes\":%llu,\"total_bytes\":%s,\"bytes_per_second\":%.0f,"
                 "\"eta_seconds\":%s,\"done\":%s}\n",
                 phase_.c_str(), static_cast<unsigned long long>(done_), total.c_str(), rate, eta_s.c_str(),
                 final ? "true" : "false");
    std::fflush(stderr);
    return;
  }
  std::string line = phase_ + ": " + format_bytes(done_);
  if (total_ > 0) line += " of " + format_bytes(total_);
  if (frac >= 0) line += fmt::format(" ({:.0f}%)", frac * 100.0);
  line += ", " + format_mib_s(rate);
  if (final)
    line += ", " + format_duration(secs);
  else if (eta >= 0)
    line += ", ETA " + format_duration(eta);
  if (mode_ == ProgressMode::Tty)
    std::fprintf(stderr, "\r\033[K%s", line.c_str());
  else
    std::fprintf(stderr, "%s\n", line.c_str());
  std::fflush(stderr);
}

}  // namespace piprov
