// core/finding: the exit-code policy and the one text and JSON rendering of findings.
#include "core/finding.hpp"

#include <gtest/gtest.h>

using namespace piprov;

namespace {
const Finding kError{"boot-order-missing-mode",
                     Severity::Error,
                     3,
                     "BOOT_ORDER",
                     "USB boot is never tried",
                     "set BOOT_ORDER=0xf14",
                     "Raspberry Pi documentation, eeprom-bootloader: BOOT_ORDER"};
const Finding kWarning{"hook-outdated", Severity::Warning, 0, "", "the apt hook differs", "piprov boot patch B", ""};
const Finding kInfo{"firmware", Severity::Info, 0, "", "start4.elf from 2020-09-03", "", ""};
}  // namespace

TEST(Finding, SeverityNames) {
  EXPECT_EQ(severity_name(Severity::Error), "error");
  EXPECT_EQ(severity_name(Severity::Warning), "warning");
  EXPECT_EQ(severity_name(Severity::Info), "info");
}

TEST(Finding, ExitCodeFollowsThePolicy) {
  EXPECT_EQ(findings_exit_code({}, FailOn::Error), 0);
  EXPECT_EQ(findings_exit_code({kInfo}, FailOn::Warning), 0);
  EXPECT_EQ(findings_exit_code({kWarning, kInfo}, FailOn::Error), 0);
  EXPECT_EQ(findings_exit_code({kWarning, kInfo}, FailOn::Warning), 1);
  EXPECT_EQ(findings_exit_code({kError}, FailOn::Error), 1);
  EXPECT_EQ(findings_exit_code({kError}, FailOn::Warning), 1);
  auto c = count_findings({kError, kWarning, kInfo, kInfo});
  EXPECT_EQ(c.errors, 1);
  EXPECT_EQ(c.warnings, 1);
  EXPECT_EQ(c.infos, 2);
}

TEST(Finding, TextIsOneBlockPerFinding) {
  EXPECT_EQ(findings_text({}), "");
  EXPECT_EQ(findings_text({kError, kWarning, kInfo}),
            "line 3   error    boot-order-missing-mode: USB boot is never tried\n"
            "                 fix: set BOOT_ORDER=0xf14\n"
            "                 source: Raspberry Pi documentation, eeprom-bootloader: BOOT_ORDER\n"
            "-        warning  hook-outdated: the apt hook differs\n"
            "                 fix: piprov boot patch B\n"
            "-        info     firmware: start4.elf from 2020-09-03\n");
  EXPECT_EQ(findings_summary_text({kWarning, kInfo}, FailOn::Error), "0 error(s), 1 warning(s), 1 info — OK");
  EXPECT_EQ(findings_summary_text({kWarning, kInfo}, FailOn::Warning), "0 error(s), 1 warning(s), 1 info");
}

TEST(Finding, JsonShape) {
  EXPECT_EQ(finding_json(kError), nlohmann::json::parse(R"({"rule": "boot-order-missing-mode", "severity": "error",
      "line": 3, "key": "BOOT_ORDER", "message": "USB boot is never tried", "fix": "set BOOT_ORDER=0xf14",
      "source": "Raspberry Pi documentation, eeprom-bootloader: BOOT_ORDER"})"));
  auto w = finding_json(kWarning);
  EXPECT_TRUE(w["line"].is_null());
  EXPECT_TRUE(w["key"].is_null());
  EXPECT_EQ(w["source"], "");
  auto a = findings_json({kError, kInfo});
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[1]["rule"], "firmware");
  EXPECT_EQ(findings_json({}), nlohmann::json::array());
  EXPECT_EQ(findings_summary_json({kError, kWarning}, FailOn::Error),
            nlohmann::json::parse(R"({"errors": 1, "warnings": 1, "infos": 0, "exit_code": 1})"));
}

TEST(Finding, JsonOfBytesThatAreNotUtf8) {
  Finding f = kInfo;
  f.message = "value \xb8 here";
  EXPECT_NE(dump_json(finding_json(f)).find("value \xef\xbf\xbd here"), std::string::npos);
}
