// Progress renderers: the tty line, the plain line every 2 s, JSON lines, and
// the provision step line, from ProgressEvents (no clock: events carry elapsed_s).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cli/progress_render.hpp"
#include "core/error.hpp"

namespace piprov::cli {
namespace {

using Kind = ProgressEvent::Kind;

ProgressEvent ev(Kind kind, double done, double total, double elapsed, Phase phase = Phase::Write) {
  ProgressEvent e;
  e.kind = kind;
  e.phase = phase;
  e.done = done;
  e.total = total;
  e.elapsed_s = elapsed;
  return e;
}

/// What a renderer in `mode` writes for `events`.
std::string render(ProgressMode mode, const std::vector<ProgressEvent>& events) {
  char* buf = nullptr;
  std::size_t len = 0;
  std::FILE* f = ::open_memstream(&buf, &len);
  {
    ProgressRenderer r(mode, f);
    for (const auto& e : events) r(e);
  }
  std::fclose(f);
  std::string out(buf, len);
  std::free(buf);
  return out;
}

constexpr double kMiB = 1 << 20;

TEST(ProgressMode, ParsesTheDocumentedNames) {
  EXPECT_EQ(parse_progress_mode("auto"), ProgressMode::Auto);
  EXPECT_EQ(parse_progress_mode("tty"), ProgressMode::Tty);
  EXPECT_EQ(parse_progress_mode("plain"), ProgressMode::Plain);
  EXPECT_EQ(parse_progress_mode("json"), ProgressMode::Json);
  EXPECT_EQ(parse_progress_mode("none"), ProgressMode::None);
  EXPECT_EQ(to_string(ProgressMode::Json), "json");
  try {
    parse_progress_mode("fancy");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Usage);
    EXPECT_EQ(std::string(e.what()), "invalid --progress 'fancy': use auto, tty, plain, json or none");
  }
}

TEST(ProgressMode, AutoIsTtyOnlyOnATerminal) {
  EXPECT_EQ(resolve_progress_mode(ProgressMode::Auto, true), ProgressMode::Tty);
  EXPECT_EQ(resolve_progress_mode(ProgressMode::Auto, false), ProgressMode::None);
  EXPECT_EQ(resolve_progress_mode(ProgressMode::Plain, true), ProgressMode::Plain);
}

TEST(ProgressText, SizesPercentRateAndEta) {
  EXPECT_EQ(progress_text(ev(Kind::Update, 512 * kMiB, 2048 * kMiB, 4), false),
            "write: 512.0 MiB of 2.0 GiB (25%), 128.0 MiB/s, ETA 12.0 s");
  EXPECT_EQ(progress_text(ev(Kind::End, 2048 * kMiB, 2048 * kMiB, 16), true),
            "write: 2.0 GiB of 2.0 GiB (100%), 128.0 MiB/s, 16.0 s");
}

TEST(ProgressText, UnknownTotalUsesTheFraction) {
  ProgressEvent e = ev(Kind::Update, 100 * kMiB, 0, 10, Phase::Verify);
  EXPECT_EQ(progress_text(e, false), "verify: 100.0 MiB, 10.0 MiB/s");
  e.fraction = 0.5;
  EXPECT_EQ(progress_text(e, false), "verify: 100.0 MiB (50%), 10.0 MiB/s, ETA 10.0 s");
}

TEST(ProgressText, BenchJobAndPrefillLines) {
  ProgressEvent job = ev(Kind::Update, 3.5, 6, 3.5, Phase::Job);
  job.unit = ProgressUnit::Seconds;
  job.target = "/mnt/ssd";
  job.text = "rand-read";
  job.index = 2;
  job.count = 4;
  job.rate = 812.4;
  job.eta_s = 62;
  EXPECT_EQ(progress_text(job, false), "/mnt/ssd: [2/4] rand-read 3.5/6.0 s, 812 IOPS, ETA 1m02s");
  ProgressEvent fill = ev(Kind::Update, 64 * kMiB, 256 * kMiB, 1, Phase::Prefill);
  fill.target = "/mnt/ssd";
  fill.eta_s = 25;
  EXPECT_EQ(progress_text(fill, false), "/mnt/ssd: pre-filling test file 64.0 MiB / 256.0 MiB, ETA 25.0 s");
}

TEST(ProgressJson, DocumentedKeysNullWhenUnknown) {
  EXPECT_EQ(progress_json(ev(Kind::Update, 1000, 0, 2), false),
            "{\"phase\":\"write\",\"bytes\":1000,\"total_bytes\":null,\"bytes_per_second\":500,"
            "\"eta_seconds\":null,\"done\":false}");
  EXPECT_EQ(progress_json(ev(Kind::End, 1000, 1000, 2), true),
            "{\"phase\":\"write\",\"bytes\":1000,\"total_bytes\":1000,\"bytes_per_second\":500,"
            "\"eta_seconds\":0.0,\"done\":true}");
}

TEST(StepText, NumberNameDurationResult) {
  ProgressEvent e;
  e.kind = Kind::Step;
  e.phase = Phase::Step;
  e.step = "mount";
  e.text = "/dev/loop3p1 on /tmp/p/system-boot";
  e.elapsed_s = 0.25;
  e.index = 3;
  e.count = 7;
  EXPECT_EQ(step_text(e), "[3/7] mount        0.25 s  /dev/loop3p1 on /tmp/p/system-boot");
}

TEST(ProgressRenderer, PlainPrintsEveryTwoSecondsAndAtTheEnd) {
  std::string out =
      render(ProgressMode::Plain, {ev(Kind::Begin, 0, 4 * kMiB, 0), ev(Kind::Update, kMiB, 4 * kMiB, 1),
                                   ev(Kind::Update, 2 * kMiB, 4 * kMiB, 2), ev(Kind::Update, 3 * kMiB, 4 * kMiB, 3),
                                   ev(Kind::End, 4 * kMiB, 4 * kMiB, 4)});
  EXPECT_EQ(out,
            "write: 2.0 MiB of 4.0 MiB (50%), 1.0 MiB/s, ETA 2.00 s\n"
            "write: 4.0 MiB of 4.0 MiB (100%), 1.0 MiB/s, 4.00 s\n");
}

TEST(ProgressRenderer, JsonPrintsEverySecond) {
  std::string out =
      render(ProgressMode::Json, {ev(Kind::Begin, 0, 0, 0), ev(Kind::Update, 10, 0, 0.5), ev(Kind::Update, 20, 0, 1.0),
                                  ev(Kind::Update, 30, 0, 1.5), ev(Kind::End, 40, 0, 2)});
  EXPECT_EQ(out,
            "{\"phase\":\"write\",\"bytes\":20,\"total_bytes\":null,\"bytes_per_second\":20,\"eta_seconds\":null,"
            "\"done\":false}\n"
            "{\"phase\":\"write\",\"bytes\":40,\"total_bytes\":null,\"bytes_per_second\":20,\"eta_seconds\":0.0,"
            "\"done\":true}\n");
}

TEST(ProgressRenderer, TtyRedrawsOneLineAndClearsIt) {
  std::string out =
      render(ProgressMode::Tty, {ev(Kind::Begin, 0, 2 * kMiB, 0), ev(Kind::Update, kMiB, 2 * kMiB, 0.1),
                                 ev(Kind::Update, kMiB, 2 * kMiB, 0.5), ev(Kind::End, 2 * kMiB, 2 * kMiB, 1)});
  EXPECT_EQ(out, "\r\033[Kwrite: 1.0 MiB of 2.0 MiB (50%), 2.0 MiB/s, ETA 0.50 s\r\033[K");
}

TEST(ProgressRenderer, TtyLineLeftOnScreenIsClearedAtDestruction) {
  std::string out = render(ProgressMode::Tty, {ev(Kind::Begin, 0, 0, 0), ev(Kind::Update, kMiB, 0, 1)});
  EXPECT_EQ(out, "\r\033[Kwrite: 1.0 MiB, 1.0 MiB/s\r\033[K");
}

TEST(ProgressRenderer, NoneAndStepsPrintNothing) {
  EXPECT_EQ(
      render(ProgressMode::None, {ev(Kind::Begin, 0, 10, 0), ev(Kind::Update, 5, 10, 5), ev(Kind::End, 10, 10, 9)}),
      "");
  ProgressEvent step = ev(Kind::Step, 0, 0, 3, Phase::Step);
  EXPECT_EQ(render(ProgressMode::Plain, {step}), "");
  ProgressRenderer none(ProgressMode::None);
  EXPECT_FALSE(none.sink());
}

TEST(ProgressText, WriteAndVerifyOfOneOfSeveralTargetsNameTheTarget) {
  ProgressEvent e = ev(Kind::Update, 512.0 * (1 << 20), 1024.0 * (1 << 20), 4.0);
  e.target = "/dev/sdb";
  EXPECT_EQ(progress_text(e, false), "write /dev/sdb: 512.0 MiB of 1.0 GiB (50%), 128.0 MiB/s, ETA 4.00 s");
  EXPECT_EQ(progress_json(e, false),
            "{\"phase\":\"write\",\"target\":\"/dev/sdb\",\"bytes\":536870912,\"total_bytes\":1073741824,"
            "\"bytes_per_second\":134217728,\"eta_seconds\":4.0,\"done\":false}");
  ProgressEvent step;
  step.kind = Kind::Step;
  step.phase = Phase::Step;
  step.step = "mount";
  step.text = "ok";
  step.elapsed_s = 0.25;
  step.index = 3;
  step.count = 7;
  step.target = "/dev/sdc";
  EXPECT_EQ(step_text(step).rfind("/dev/sdc: [3/7] mount ", 0), 0u) << step_text(step);
}

// bench: the job line as text and JSON (--progress plain|json).
TEST(ProgressJson, BenchJobLine) {
  ProgressEvent e = ev(Kind::Update, 3.5, 6.0, 3.5, Phase::Job);
  e.unit = ProgressUnit::Seconds;
  e.target = "/mnt/ssd";
  e.text = "rand-read";
  e.index = 2;
  e.count = 4;
  e.rate = 812;
  e.eta_s = 62;
  EXPECT_EQ(progress_text(e, false), "/mnt/ssd: [2/4] rand-read 3.5/6.0 s, 812 IOPS, ETA 1m02s");
  EXPECT_EQ(progress_json(e, false),
            "{\"phase\":\"job\",\"target\":\"/mnt/ssd\",\"job\":\"rand-read\",\"index\":2,\"count\":4,"
            "\"seconds\":3.5,\"total_seconds\":6.0,\"iops\":812,\"eta_seconds\":62.0,\"done\":false}");
}

}  // namespace
}  // namespace piprov::cli
