#include "core/progress.hpp"

#include <memory>
#include <mutex>

#include "core/enum_names.hpp"

namespace piprov {
namespace {
double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}
}  // namespace

ProgressSink serialised_sink(const ProgressSink& sink) {
  if (!sink) return {};
  auto m = std::make_shared<std::mutex>();
  return [sink, m](const ProgressEvent& e) {
    std::lock_guard lk(*m);
    sink(e);
  };
}

namespace {
constexpr EnumName<Phase> kPhaseNames[] = {
    {Phase::Write, "write"}, {Phase::Verify, "verify"}, {Phase::Prefill, "prefill"},
    {Phase::Job, "job"},     {Phase::Step, "step"},
};
}  // namespace

std::string_view phase_name(Phase p) { return enum_name(kPhaseNames, p); }
std::optional<Phase> parse_phase(std::string_view name) { return parse_enum(kPhaseNames, name); }

ProgressPhase::ProgressPhase(ProgressSink sink, Phase phase, double total, ProgressUnit unit, ProgressEvent tmpl)
    : sink_(std::move(sink)), event_(std::move(tmpl)), start_(std::chrono::steady_clock::now()) {
  event_.phase = phase;
  event_.unit = unit;
  event_.total = total;
  event_.done = 0;
  send(ProgressEvent::Kind::Begin);
}

ProgressPhase::~ProgressPhase() {
  try {
    end();
  } catch (...) {  // a sink that throws must not end the program from a destructor
  }
}

void ProgressPhase::update(double done, double fraction, double rate, double eta_s) {
  if (!sink_) return;
  event_.done = done;
  event_.fraction = fraction;
  event_.rate = rate;
  event_.eta_s = eta_s;
  send(ProgressEvent::Kind::Update);
}

void ProgressPhase::end() {
  if (ended_) return;
  ended_ = true;
  event_.eta_s = 0;
  send(ProgressEvent::Kind::End);
}

double ProgressPhase::elapsed() const { return seconds_since(start_); }

void ProgressPhase::send(ProgressEvent::Kind kind) {
  if (!sink_) return;
  event_.kind = kind;
  event_.elapsed_s = elapsed();
  sink_(event_);
}

ProgressStep::ProgressStep(ProgressSink sink, std::string name, unsigned index, unsigned count, std::string target)
    : sink_(std::move(sink)), start_(std::chrono::steady_clock::now()) {
  event_.kind = ProgressEvent::Kind::Step;
  event_.phase = Phase::Step;
  event_.step = std::move(name);
  event_.unit = ProgressUnit::Seconds;
  event_.index = index;
  event_.count = count;
  event_.target = std::move(target);
}

double ProgressStep::finish(const std::string& text, std::optional<double> measured) {
  double secs = measured.value_or(seconds_since(start_));
  if (finished_) return secs;
  finished_ = true;
  event_.text = text;
  event_.elapsed_s = secs;
  if (sink_) sink_(event_);
  return secs;
}

}  // namespace piprov
