// provision's step table: one enum gives the order, the names and the count.
#include <gtest/gtest.h>

#include "provision/steps.hpp"

namespace piprov::provision {
namespace {

TEST(ProvisionSteps, NamesParseBackAndNumbersFollowTheOrder) {
  EXPECT_EQ(kSteps, 9u);
  unsigned n = 0;
  for (Step s : kStepOrder) {
    EXPECT_EQ(step_number(s), ++n) << step_name(s);
    EXPECT_EQ(parse_step(step_name(s)), s) << step_name(s);
  }
  EXPECT_EQ(step_name(Step::Write), "write");
  EXPECT_EQ(step_name(Step::Partitions), "partitions");
  EXPECT_EQ(step_name(Step::Unmount), "unmount");
  EXPECT_EQ(step_number(Step::Mount), 4u);  // docs/provision.md: "[4/9] mount"
  EXPECT_FALSE(parse_step("Write"));
  EXPECT_FALSE(parse_step(""));
}

}  // namespace
}  // namespace piprov::provision
