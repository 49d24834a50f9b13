// The progress event model: what a phase and a list of steps send to a sink.
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "core/progress.hpp"

namespace piprov {
namespace {

using Kind = ProgressEvent::Kind;

struct Recorder {
  std::vector<ProgressEvent> events;
  ProgressSink sink() {
    return [this](const ProgressEvent& e) { events.push_back(e); };
  }
};

TEST(ProgressPhase, SendsBeginUpdatesAndOneEnd) {
  Recorder r;
  {
    ProgressPhase p(r.sink(), Phase::Write, 1000);
    p.update(400);
    p.update(1000, -1, 5.0, 2.0);
    p.end();
    p.end();  // once only
  }
  ASSERT_EQ(r.events.size(), 4u);
  EXPECT_EQ(r.events[0].kind, Kind::Begin);
  EXPECT_EQ(r.events[1].kind, Kind::Update);
  EXPECT_EQ(r.events[2].kind, Kind::Update);
  EXPECT_EQ(r.events[3].kind, Kind::End);
  for (const auto& e : r.events) {
    EXPECT_EQ(e.phase, Phase::Write);
    EXPECT_EQ(e.unit, ProgressUnit::Bytes);
    EXPECT_EQ(e.total, 1000);
  }
  EXPECT_EQ(r.events[0].done, 0);
  EXPECT_EQ(r.events[1].done, 400);
  EXPECT_EQ(r.events[2].rate, 5.0);
  EXPECT_EQ(r.events[2].eta_s, 2.0);
  EXPECT_EQ(r.events[3].done, 1000);
  EXPECT_EQ(r.events[3].eta_s, 0);
  EXPECT_LE(r.events[0].elapsed_s, r.events[3].elapsed_s);
}

TEST(ProgressPhase, EndsWhenAnExceptionLeavesTheScope) {
  Recorder r;
  try {
    ProgressPhase p(r.sink(), Phase::Verify, 0);
    p.update(10, 0.25);
    throw std::runtime_error("read error");
  } catch (const std::runtime_error&) {
  }
  ASSERT_EQ(r.events.size(), 3u);
  EXPECT_EQ(r.events[1].fraction, 0.25);
  EXPECT_EQ(r.events[1].total, 0);
  EXPECT_EQ(r.events.back().kind, Kind::End);
  EXPECT_EQ(r.events.back().done, 10);
}

TEST(ProgressPhase, TemplateFieldsAreRepeatedAndUnitKept) {
  Recorder r;
  ProgressEvent tmpl;
  tmpl.target = "/mnt/ssd";
  tmpl.text = "rand-read";
  tmpl.phase = Phase::Prefill;  // replaced by the argument
  ProgressPhase p(r.sink(), Phase::Job, 6.0, ProgressUnit::Seconds, tmpl);
  p.set_total(7.0);
  p.update(3.5);
  ASSERT_EQ(r.events.size(), 2u);
  EXPECT_EQ(r.events[1].phase, Phase::Job);
  EXPECT_EQ(r.events[1].target, "/mnt/ssd");
  EXPECT_EQ(r.events[1].text, "rand-read");
  EXPECT_EQ(r.events[1].unit, ProgressUnit::Seconds);
  EXPECT_EQ(r.events[0].total, 6.0);
  EXPECT_EQ(r.events[1].total, 7.0);
}

TEST(ProgressPhase, AnEmptySinkIsFine) {
  ProgressPhase p({}, Phase::Write, 10);
  p.update(5);
  p.end();
  EXPECT_GE(p.elapsed(), 0);
}

TEST(ProgressStep, SendsOneStepEventTimedFromItsStart) {
  Recorder r;
  {
    ProgressStep w(r.sink(), "write", 1, 3);
    EXPECT_EQ(w.finish("wrote 1.0 MiB", 2.5), 2.5);  // timed elsewhere
  }
  ProgressStep m(r.sink(), "mount", 2, 3, "/dev/sdb");
  double b = m.finish("/dev/loop3p1 on /tmp/x");
  m.finish("again");                                 // once only
  { ProgressStep failed(r.sink(), "patch", 3, 3); }  // no finish(): nothing sent
  ASSERT_EQ(r.events.size(), 2u);
  EXPECT_EQ(r.events[0].kind, Kind::Step);
  EXPECT_EQ(r.events[0].phase, Phase::Step);
  EXPECT_EQ(r.events[0].step, "write");
  EXPECT_EQ(r.events[0].text, "wrote 1.0 MiB");
  EXPECT_EQ(r.events[0].elapsed_s, 2.5);
  EXPECT_EQ(r.events[0].index, 1u);
  EXPECT_EQ(r.events[1].index, 2u);
  EXPECT_EQ(r.events[1].count, 3u);
  EXPECT_EQ(r.events[1].target, "/dev/sdb");
  EXPECT_EQ(r.events[1].elapsed_s, b);
  EXPECT_GE(b, 0);
}

TEST(Phase, NamesRoundTrip) {
  for (Phase p : kPhases) EXPECT_EQ(parse_phase(phase_name(p)), p) << phase_name(p);
  EXPECT_EQ(phase_name(Phase::Prefill), "prefill");
  EXPECT_EQ(parse_phase("Write"), std::nullopt);  // names are exact
  EXPECT_EQ(parse_phase("mount"), std::nullopt);  // a step's name is not a phase
}

}  // namespace
}  // namespace piprov
