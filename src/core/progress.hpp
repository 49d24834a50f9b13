#pragma once
// Progress as events. Long operations (write, verify, bench pre-fill and jobs,
// provision steps) report what they are doing as ProgressEvent values sent to a
// ProgressSink; they never print. The command line turns events into a tty
// line, a plain line every 2 s or JSON lines (cli/progress_render.hpp).
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace piprov {

/// What ProgressEvent::done and ::total count.
enum class ProgressUnit { Bytes, Seconds };

/// What a ProgressEvent reports on: image write and verify (bytes), bench's
/// pre-fill of a test file (bytes) and a bench job (seconds), or a finished
/// step of a multi-step command (provision; the step's name is ProgressEvent::step).
enum class Phase { Write, Verify, Prefill, Job, Step };
inline constexpr Phase kPhases[] = {Phase::Write, Phase::Verify, Phase::Prefill, Phase::Job, Phase::Step};

/// Stable phase name for progress lines and JSON: "write", "verify", "prefill", "job", "step".
std::string_view phase_name(Phase p);
/// The phase named `name` (as phase_name() spells it); nullopt otherwise.
std::optional<Phase> parse_phase(std::string_view name);

/// One report from a running operation.
///   Begin  a phase starts (Write, Verify, Prefill, Job); total may be 0 (unknown).
///   Update done so far in the phase; sent as often as the work allows (every
///          buffer): sinks rate-limit what they show.
///   End    the phase is over (finished or failed); done and elapsed_s are final.
///   Step   one step of a multi-step command finished (provision): phase is
///          Phase::Step, step the step's name, text its one-line result,
///          elapsed_s its duration, index/count its place ("3 of 7").
struct ProgressEvent {
  enum class Kind { Begin, Update, End, Step };
  Kind kind = Kind::Update;
  Phase phase = Phase::Write;
  std::string step;  ///< Step: the step's name ("write", "partitions", ...); "" otherwise
  ProgressUnit unit = ProgressUnit::Bytes;
  double done = 0;       ///< bytes or seconds done in this phase
  double total = 0;      ///< bytes or seconds the phase will take; 0 = unknown
  double fraction = -1;  ///< 0..1 completion estimate when total is unknown; < 0 = none
  double elapsed_s = 0;  ///< wall-clock seconds since Begin (Step: the step's duration)
  std::string target;    ///< what the phase works on when a command has several (bench: target label)
  std::string text;      ///< bench "job": the job's name; Step: the step's one-line result
  unsigned index = 0;    ///< 1-based place of this job/step, 0 = none
  unsigned count = 0;    ///< number of jobs/steps, 0 = none
  double rate = 0;       ///< bench "job": I/Os per second over the last interval
  double eta_s = -1;     ///< seconds left when the operation knows (bench: all targets); < 0 = sinks estimate
};

/// Receives events on the thread that does the work. May be empty (no one listens).
using ProgressSink = std::function<void(const ProgressEvent&)>;

/// `sink` for several threads: one event at a time (a mutex shared by every
/// copy), so a renderer never sees two at once. Empty stays empty.
ProgressSink serialised_sink(const ProgressSink& sink);

/// One phase reported to a sink: Begin on construction, Update per update(),
/// End from end() or, if end() was not called (an exception), the destructor.
/// elapsed_s is measured from construction with std::chrono::steady_clock.
class ProgressPhase {
 public:
  /// `sink` is copied. `tmpl` carries the fields every event of
  /// the phase repeats (target, text, index, count); kind, phase, unit, total
  /// are set from the arguments.
  ProgressPhase(ProgressSink sink, Phase phase, double total, ProgressUnit unit = ProgressUnit::Bytes,
                ProgressEvent tmpl = {});
  ~ProgressPhase();
  ProgressPhase(const ProgressPhase&) = delete;
  ProgressPhase& operator=(const ProgressPhase&) = delete;

  /// Sets the total once it is known (0 = unknown).
  void set_total(double total) { event_.total = total; }
  /// Reports `done` (and, when the total is unknown, a 0..1 `fraction`).
  /// `rate` and `eta_s` are copied into the event as they are.
  void update(double done, double fraction = -1, double rate = 0, double eta_s = -1);
  /// Sends End (once).
  void end();
  /// Seconds since construction.
  double elapsed() const;

 private:
  void send(ProgressEvent::Kind kind);
  ProgressSink sink_;
  ProgressEvent event_;
  bool ended_ = false;
  std::chrono::steady_clock::time_point start_;
};

/// One step of a multi-step command (provision), scoped: its clock starts at
/// construction, finish() sends its Step event with the duration. A step
/// destroyed without finish() (it threw) sends nothing: its caller reports the
/// failure. Not copyable.
class ProgressStep {
 public:
  /// `sink` is copied; `name` is the event's step name, `index`/`count` its place
  /// (1-based, "3 of 9"); `target`, when not empty, names the disk (provision
  /// of several disks).
  ProgressStep(ProgressSink sink, std::string name, unsigned index, unsigned count, std::string target = {});
  ProgressStep(const ProgressStep&) = delete;
  ProgressStep& operator=(const ProgressStep&) = delete;

  /// Sends Step{phase=Step, step=name, text, elapsed_s = seconds since construction}
  /// once and returns that duration. `measured` (seconds) replaces it for a
  /// step timed elsewhere (provision's write, done before its disks' steps).
  double finish(const std::string& text, std::optional<double> measured = std::nullopt);

 private:
  ProgressSink sink_;
  ProgressEvent event_;
  bool finished_ = false;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace piprov
