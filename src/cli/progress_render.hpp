#pragma once
// Renders ProgressEvents (core/progress.hpp) on stderr. Modes: tty (one line
// redrawn in place, at most 5 times a second), plain (one line every 2 s, for
// logs), json (one JSON object per line every second, for scripts), none.
// Auto picks tty when stderr is a terminal, else none.
// Line formats (docs/write.md "Output"):
//   text  "write /dev/sdb: 512.0 MiB of 1.9 GiB (26%), 160.2 MiB/s, ETA 9.1 s" (the target when the event has one)
//         bench: "TARGET: [2/4] rand-read 3.5/6.0 s, 812 IOPS, ETA 1m02s"
//         bench pre-fill: "TARGET: pre-filling test file 64.0 MiB / 256.0 MiB, ETA 25.0 s"
//   json  {"phase":"write","target":"/dev/sdb","bytes":N,"total_bytes":N|null,"bytes_per_second":X,
//          "eta_seconds":X|null,"done":false} (phases write, verify, prefill: bytes)
//         bench job: {"phase":"job","target":"/mnt/ssd","job":"rand-read","index":2,"count":4,"seconds":3.5,
//          "total_seconds":6.0,"iops":812,"eta_seconds":62.0,"done":false}
#include <cstdio>
#include <string>
#include <string_view>

#include "core/progress.hpp"

namespace piprov::cli {

enum class ProgressMode { Auto, Tty, Plain, Json, None };

/// "auto" | "tty" | "plain" | "json" | "none" -> mode. Throws Error{Usage} otherwise.
ProgressMode parse_progress_mode(std::string_view text);

/// The mode's name as parse_progress_mode() accepts it.
std::string to_string(ProgressMode mode);

/// Auto -> Tty when `is_tty` (stderr is a terminal), else None; other modes unchanged.
ProgressMode resolve_progress_mode(ProgressMode mode, bool is_tty);

/// The human-readable line for a Begin/Update/End event (no newline).
/// `final`: the phase is over (the line ends with the phase's duration, not an ETA).
std::string progress_text(const ProgressEvent& e, bool final);

/// The JSON line for an event (no newline), keys as in the header comment.
std::string progress_json(const ProgressEvent& e, bool final);

/// One provision step for stdout: "[3/7] mount      0.2 s  /dev/loop3p1 on /tmp/...",
/// prefixed "/dev/sdb: " when the event names a target.
std::string step_text(const ProgressEvent& e);

/// A sink that shows events on `out` in one mode. Rate limits use the events'
/// elapsed_s (tty 0.2 s, json 1 s, plain 2 s); End always prints (tty: clears
/// the line). Step events are not shown (callers print them with step_text).
/// Not thread-safe: feed it from one thread at a time.
class ProgressRenderer {
 public:
  /// `mode` must be resolved (not Auto); `out` must outlive the renderer.
  explicit ProgressRenderer(ProgressMode mode, std::FILE* out = stderr);
  ~ProgressRenderer();
  ProgressRenderer(const ProgressRenderer&) = delete;
  ProgressRenderer& operator=(const ProgressRenderer&) = delete;

  void operator()(const ProgressEvent& e);
  /// A ProgressSink calling this renderer (which must outlive it); empty for None.
  ProgressSink sink();
  ProgressMode mode() const { return mode_; }

 private:
  ProgressMode mode_;
  std::FILE* out_;
  bool line_shown_ = false;  ///< tty: a line is on screen
  double last_ = -1e9;       ///< elapsed_s of the last line shown in this phase
};

}  // namespace piprov::cli
