// provision --json: the one builder next to ProvisionReport.
#include <gtest/gtest.h>

#include "provision/provision.hpp"

namespace piprov::provision {
namespace {

ProvisionReport sample() {
  ProvisionReport r;
  r.write.target = "/dev/loop7";
  r.write.bytes_written = 4u << 20;
  r.write.verified = true;
  r.boot_partition = "/dev/loop7p1";
  r.root_partition = "/dev/loop7p2";
  r.patch.actions = {"decompressed vmlinuz to vmlinux"};
  r.check.findings.push_back(Finding{"usb-bridge-no-quirk", Severity::Warning, 0, "", "the bridge needs a quirk",
                                     "add usb-storage.quirks=152d:0578:u", "Raspberry Pi forums"});
  r.steps = {{"write", "wrote 4.0 MiB", 1.5}, {"partitions", "boot ..., root ...", 0.25}};
  return r;
}

TEST(ProvisionJson, HasTheSchemaStepsWithSecondsAndFindingsOfTheSharedShape) {
  auto j = provision_json(sample());
  EXPECT_EQ(j["schema"], "piprov.provision/2");
  EXPECT_EQ(j["boot_partition"], "/dev/loop7p1");
  EXPECT_EQ(j["root_partition"], "/dev/loop7p2");
  EXPECT_EQ(j["write"]["bytes_written"], 4u << 20);
  EXPECT_EQ(j["patch_actions"][0], "decompressed vmlinuz to vmlinux");
  ASSERT_EQ(j["steps"].size(), 2u);
  EXPECT_EQ(j["steps"][1]["step"], "partitions");
  EXPECT_DOUBLE_EQ(j["steps"][0]["seconds"].get<double>(), 1.5);
  ASSERT_EQ(j["findings"].size(), 1u);
  EXPECT_EQ(j["findings"][0]["rule"], "usb-bridge-no-quirk");
  EXPECT_EQ(j["findings"][0]["severity"], "warning");
  EXPECT_EQ(j["findings"][0]["fix"], "add usb-storage.quirks=152d:0578:u");
  EXPECT_FALSE(j["check_ok"].get<bool>());  // a warning fails boot check
  EXPECT_EQ(j["layout"], "unknown");
  EXPECT_TRUE(j["patched"].get<bool>());
}

TEST(ProvisionJson, LayoutReleaseAndThePatchLine) {
  ProvisionReport r = sample();
  r.patch.layout.id = boot::LayoutId::UbuntuDirect;
  r.patch.layout.release = "Ubuntu 24.04 LTS";
  r.patch.summary = "nothing to do: Ubuntu 24.04 LTS boots from USB as shipped";
  r.patch.actions.clear();
  auto j = provision_json(r);
  EXPECT_EQ(j["layout"], "ubuntu-direct");
  EXPECT_EQ(j["release"], "Ubuntu 24.04 LTS");
  EXPECT_FALSE(j["patched"].get<bool>());
  EXPECT_EQ(patch_summary(r),
            "layout ubuntu-direct (Ubuntu 24.04 LTS): nothing to do: Ubuntu 24.04 LTS boots from USB as shipped");
  r.patch.layout.id = boot::LayoutId::UbuntuUboot;
  r.patch.layout.release = "Ubuntu 20.04 LTS";
  r.patch.summary = "patched for USB boot on a Pi 4 (method vmlinux)";
  r.patch.actions = {"decompressed vmlinuz to vmlinux", "updated config.txt"};
  EXPECT_EQ(patch_summary(r),
            "layout ubuntu-uboot (Ubuntu 20.04 LTS): patched for USB boot on a Pi 4 (method vmlinux): decompressed "
            "vmlinuz to vmlinux; updated config.txt");
}

}  // namespace
}  // namespace piprov::provision
