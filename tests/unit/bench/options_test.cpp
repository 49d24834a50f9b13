// One table of bench option limits, read by the command line and by validate().
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <stdexcept>
#include <string>

#include "bench/job.hpp"
#include "bench/options.hpp"
#include "core/error.hpp"

using namespace piprov::bench;

namespace {

std::string usage_message(const JobSpec& s, const JobTarget& t) {
  try {
    validate(s, t);
  } catch (const piprov::Error& e) {
    EXPECT_EQ(e.kind(), piprov::ErrorKind::Usage);
    return e.what();
  }
  return "";
}

JobTarget target() {
  JobTarget t;
  t.path = "/nonexistent";
  t.size = 1 << 20;
  t.align = 512;
  return t;
}

}  // namespace

TEST(OptionLimits, TheTableHoldsEachNumericJobOption) {
  std::set<std::string> names;
  for (const auto& l : option_limits()) names.insert(std::string(l.option));
  EXPECT_EQ(names, (std::set<std::string>{"--bs", "--iodepth", "--numjobs", "--runtime", "--ramp", "--rwmixread"}));
  EXPECT_EQ(option_limit("--iodepth").min, 1);
  EXPECT_EQ(option_limit("--iodepth").max, 4096);
  EXPECT_EQ(option_limit("--numjobs").max, 256);
  EXPECT_EQ(option_limit("--runtime").min, 0.01);
  EXPECT_EQ(option_limit("--ramp").max, 3600);
  EXPECT_THROW(option_limit("--nosuch"), std::out_of_range);
}

TEST(OptionLimits, NumbersAreCheckedInclusiveAndWhole) {
  const auto& qd = option_limit("--iodepth");
  EXPECT_EQ(limit_error(qd, 1.0), "");
  EXPECT_EQ(limit_error(qd, 4096.0), "");
  EXPECT_EQ(limit_error(qd, 4097.0), "must be a whole number from 1 to 4096, got 4097");
  EXPECT_EQ(limit_error(qd, 2.5), "must be a whole number from 1 to 4096, got 2.5");
  const auto& rt = option_limit("--runtime");
  EXPECT_EQ(limit_error(rt, 0.5), "");
  EXPECT_EQ(limit_error(rt, 0.0), "must be a number of seconds from 0.01 to 86400, got 0");
}

TEST(OptionLimits, TextIsParsedAndQuoted) {
  const auto& rt = option_limit("--runtime");
  EXPECT_EQ(limit_error(rt, std::string_view("2.5")), "");
  EXPECT_EQ(limit_error(rt, std::string_view("nan")), "must be a number of seconds from 0.01 to 86400, got 'nan'");
  EXPECT_EQ(limit_error(rt, std::string_view("inf")), "must be a number of seconds from 0.01 to 86400, got 'inf'");
  EXPECT_EQ(limit_error(rt, std::string_view("5s")), "must be a number of seconds from 0.01 to 86400, got '5s'");
  EXPECT_EQ(limit_error(rt, std::string_view("")), "must be a number of seconds from 0.01 to 86400, got ''");
  EXPECT_EQ(limit_error(option_limit("--numjobs"), std::string_view("257")),
            "must be a whole number from 1 to 256, got '257'");
}

TEST(OptionLimits, ValidateRefusesWithTheSameWordsAsTheCommandLine) {
  JobSpec s;
  s.iodepth = 4097;
  EXPECT_EQ(usage_message(s, target()), "--iodepth: must be a whole number from 1 to 4096, got 4097");
  s = {};
  s.numjobs = 0;
  EXPECT_EQ(usage_message(s, target()), "--numjobs: must be a whole number from 1 to 256, got 0");
  s = {};
  s.runtime_s = std::nan("");
  EXPECT_EQ(usage_message(s, target()), "--runtime: must be a number of seconds from 0.01 to 86400, got nan");
  s = {};
  s.ramp_s = 3601;
  EXPECT_EQ(usage_message(s, target()), "--ramp: must be a number of seconds from 0 to 3600, got 3601");
  s = {};
  s.rwmixread = 101;
  EXPECT_EQ(usage_message(s, target()), "--rwmixread: must be a whole number from 0 to 100, got 101");
  s = {};
  s.bs = 0;
  EXPECT_EQ(usage_message(s, target()), "--bs: must be a whole number of bytes from 1 to 1073741824, got 0");
  s = {};
  EXPECT_EQ(usage_message(s, target()), "");
}
