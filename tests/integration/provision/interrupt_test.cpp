// provision and SIGINT/SIGTERM after the write, without a timing race: the
// progress sink calls request_cancel() (what the signal handler does) when a
// step's event arrives, so the next step is the one that must fail with
// Error{Interrupted}, the disk must be unmounted and nothing called ready.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/cancel.hpp"
#include "core/error.hpp"
#include "provision/provision.hpp"
#include "support/testsupport.hpp"

namespace fs = std::filesystem;
using piprov::test::run;
using piprov::test::TempDir;

namespace piprov::provision {
namespace {

/// Clears the cancel flag however the test ends (it is process-wide).
struct CancelReset {
  CancelReset() { reset_cancel(); }
  ~CancelReset() { reset_cancel(); }
};

struct InterruptCase {
  const char* cancel_after;  ///< the step whose event "sends the signal"
  Step fails_at;             ///< the step that must fail
};

TEST(ProvisionInterrupt, ASignalAfterAStepFailsTheNextOneAndLeavesNothingMounted) {
  PIPROV_REQUIRE_LOOP();
  TempDir d("piprov-int");
  if (auto why = test::make_test_image(d.path / "ubuntu.img", 64); !why.empty()) PIPROV_SKIP(why);
  // After the write: the first step after it; after the mount: the patch, with both partitions mounted;
  // after the check: the sync, the last step a signal stops.
  for (const InterruptCase& c : {InterruptCase{"write", Step::Identity}, InterruptCase{"mount", Step::Patch},
                                 InterruptCase{"check", Step::Sync}}) {
    SCOPED_TRACE(c.cancel_after);
    CancelReset reset;
    test::LoopDevice loop(d.path / (std::string(c.cancel_after) + ".img"), 1ull << 30);
    ProvisionOptions o;
    o.write.image = (d.path / "ubuntu.img.xz").string();
    o.write.targets = {loop.path};
    o.write.assume_yes = true;
    std::vector<std::string> seen;  // the Step events, in order
    const std::string after = c.cancel_after;
    o.progress = [&seen, after](const ProgressEvent& e) {
      if (e.kind != ProgressEvent::Kind::Step) return;
      seen.push_back(e.step);
      if (e.step == after) request_cancel();
    };
    ProvisionReport rep = provision_all(o);
    ASSERT_EQ(rep.targets.size(), 1u);
    const TargetReport& t = rep.targets[0];
    EXPECT_FALSE(t.ok);
    EXPECT_EQ(t.error_kind, ErrorKind::Interrupted) << t.error;
    EXPECT_EQ(t.failed_step, c.fails_at) << t.error;
    const std::string failed = "provision failed at step '" + std::string(step_name(c.fails_at)) +
                               "': interrupted (SIGINT or SIGTERM) before this step began. Disk state: " + loop.path;
    EXPECT_EQ(t.error.rfind(failed, 0), 0u) << t.error;
    EXPECT_NE(t.error.find("nothing of it is mounted any more"), std::string::npos) << t.error;
    // No step ran after the one whose event asked to stop; no unmount step either: the failure unmounted.
    ASSERT_FALSE(seen.empty());
    EXPECT_EQ(seen.back(), after);
    ASSERT_FALSE(t.steps.empty());
    EXPECT_EQ(step_name(t.steps.back().step), after);
    // no_disk_provisioned() gives it, and the command exits 130.
    auto none = no_disk_provisioned(rep);
    ASSERT_TRUE(none);
    EXPECT_EQ(none->code(), 130);
    EXPECT_EQ(exit_code(rep), 130);
    EXPECT_EQ(run("grep -q '^" + loop.path + "p' /proc/self/mounts").exit_code, 1) << "a mount was left behind";
    if (!t.mount_dir.empty()) EXPECT_FALSE(fs::exists(t.mount_dir)) << t.mount_dir;
    if (c.fails_at != Step::Identity) EXPECT_FALSE(t.mount_dir.empty()) << "the mount step ran";
  }
}

// A signal during the last steps (sync, unmount), when no step is left to refuse it: the disk
// finished (ok, its "ready" holds), but the run says it was interrupted and exits 130 (was 0).
TEST(ProvisionInterrupt, ASignalDuringTheLastStepsExits130SayingTheDiskFinished) {
  PIPROV_REQUIRE_LOOP();
  TempDir d("piprov-int");
  if (auto why = test::make_test_image(d.path / "ubuntu.img", 64); !why.empty()) PIPROV_SKIP(why);
  for (const char* after : {"sync", "unmount"}) {
    SCOPED_TRACE(after);
    CancelReset reset;
    test::LoopDevice loop(d.path / (std::string(after) + ".img"), 1ull << 30);
    ProvisionOptions o;
    o.write.image = (d.path / "ubuntu.img.xz").string();
    o.write.targets = {loop.path};
    o.write.assume_yes = true;
    const std::string stop = after;
    o.progress = [stop](const ProgressEvent& e) {
      if (e.kind == ProgressEvent::Kind::Step && e.step == stop) request_cancel();
    };
    ProvisionReport rep = provision_all(o);
    ASSERT_EQ(rep.targets.size(), 1u);
    EXPECT_TRUE(rep.targets[0].ok) << rep.targets[0].error;
    EXPECT_TRUE(rep.interrupted);
    EXPECT_EQ(exit_code(rep), 130);
    EXPECT_EQ(interrupted_text(rep), "provision: interrupted (SIGINT or SIGTERM): " + loop.path +
                                         " finished every step (it is ready as said above)");
    EXPECT_EQ(provision_json(rep)["interrupted"], true);
    EXPECT_EQ(run("grep -q '^" + loop.path + "p' /proc/self/mounts").exit_code, 1) << "a mount was left behind";
  }
}

}  // namespace
}  // namespace piprov::provision
