#pragma once
// Progress reporting on stderr for long byte-moving phases (write, verify).
// Modes: tty (one line redrawn in place, ~5 times a second), plain (one line
// every 2 s, for logs), json (one JSON object per line every second, for
// scripts), none. Auto picks tty when stderr is a terminal, else none.
// Shown: bytes written, MiB/s, ETA, phase; --progress tty|plain|json|none.
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace piprov {

enum class ProgressMode { Auto, Tty, Plain, Json, None };

/// "auto" | "tty" | "plain" | "json" | "none" -> mode. Throws Error{Usage} otherwise.
ProgressMode parse_progress_mode(std::string_view text);

/// The mode's name as parse_progress_mode() accepts it.
std::string to_string(ProgressMode mode);

/// Auto -> Tty when stderr is a terminal, else None; other modes unchanged.
ProgressMode resolve_progress_mode(ProgressMode mode);

/// Reports one phase at a time. Not thread-safe: call from one thread.
/// Output lines (plain): "write: 512.0 MiB of 1.9 GiB (26%), 160.2 MiB/s, ETA 9.1 s".
/// JSON lines: {"phase":"write","bytes":N,"total_bytes":N|null,"bytes_per_second":X,
///              "eta_seconds":X|null,"done":false}
class Progress {
 public:
  explicit Progress(ProgressMode mode);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  /// Starts a phase ("write", "verify"); total_bytes 0 = unknown.
  void begin(std::string phase, std::uint64_t total_bytes);
  /// Sets the total once it becomes known (0 = unknown).
  void set_total(std::uint64_t total_bytes) { total_ = total_bytes; }
  /// Bytes done so far in this phase. `fraction` (0..1, or < 0 when unknown)
  /// estimates completion when the total is unknown (e.g. compressed bytes read).
  /// Rate-limited: cheap to call for every buffer.
  void update(std::uint64_t done_bytes, double fraction = -1.0);
  /// Ends the phase: the tty line is cleared; plain/json print a last line.
  void end();

  ProgressMode mode() const { return mode_; }

 private:
  void emit(bool final);
  ProgressMode mode_;
  std::string phase_;
  std::uint64_t total_ = 0;
  std::uint64_t done_ = 0;
  double fraction_ = -1.0;
  bool active_ = false;
  std::chrono::steady_clock::time_point start_{}, last_{};
};

}  // namespace piprov
