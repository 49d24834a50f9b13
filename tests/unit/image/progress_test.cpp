// Progress modes and their output on stderr.
#include <gtest/gtest.h>

#include <unistd.h>
#include <cstdio>

#include "core/error.hpp"
#include "core/progress.hpp"
#include "support/testsupport.hpp"

namespace piprov {
namespace {

/// Captures what is written to stderr (fd 2) while `fn` runs.
template <class Fn>
std::string capture_stderr(Fn fn) {
  test::TempDir d;
  auto path = d.path / "err";
  std::fflush(stderr);
  int saved = ::dup(2);
  FILE* f = std::fopen(path.c_str(), "w");
  ::dup2(::fileno(f), 2);
  fn();
  std::fflush(stderr);
  ::dup2(saved, 2);
  ::close(saved);
  std::fclose(f);
  return test::read_file(path);
}

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
    EXPECT_EQ(std::string(e.what()), "invalid --progress 'fancy': use auto, tty, plain, json or none");
  }
}

TEST(ProgressMode, AutoIsNoneWhenStderrIsNotATerminal) {
  std::string out = capture_stderr([] { EXPECT_EQ(resolve_progress_mode(ProgressMode::Auto), ProgressMode::None); });
  EXPECT_EQ(out, "");
}

TEST(Progress, JsonEndLineHasBytesTotalAndDone) {
  std::string out = capture_stderr([] {
    Progress p(ProgressMode::Json);
    p.begin("write", 1000);
    p.update(1000);
    p.end();
  });
  EXPECT_EQ(out.rfind("{\"phase\":\"write\",\"bytes\":1000,\"total_bytes\":1000,\"bytes_per_second\":", 0), 0u) << out;
  EXPECT_NE(out.find("\"eta_seconds\":0.0,\"done\":true}\n"), std::string::npos) << out;
}

TEST(Progress, PlainEndLineSaysSizesAndRate) {
  std::string out = capture_stderr([] {
    Progress p(ProgressMode::Plain);
    p.begin("verify", 2u << 20);
    p.update(1u << 20);
    p.end();
  });
  EXPECT_EQ(out.rfind("verify: 1.0 MiB of 2.0 MiB (50%), ", 0), 0u) << out;
  EXPECT_NE(out.find(" MiB/s, "), std::string::npos) << out;
}

TEST(Progress, NonePrintsNothing) {
  std::string out = capture_stderr([] {
    Progress p(ProgressMode::None);
    p.begin("write", 10);
    p.update(10);
    p.end();
  });
  EXPECT_EQ(out, "");
}

}  // namespace
}  // namespace piprov
