// Trial 8 findings 3 and 4 at the command line: `seed check` refuses an interface netplan assigns
// to two bridges (netplan src/parse.c handle_bridge_interfaces), and names the innermost unclosed
// YAML bracket as PyYAML does; provision refuses the same files through the same seed check
// (seed_test.cpp's BadIdentityOptionsAreRefusedBeforeAnyByteIsWritten).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/testsupport.hpp"

using piprov::test::q;
using piprov::test::run;
using piprov::test::TempDir;

TEST(Trial8SeedCheck, SeedCheckRefusesTheTrialsNetworkConfigs) {
  TempDir d("piprov-t8-seed");
  const std::string br = (d.path / "br.nc").string(), f = (d.path / "f.nc").string();
  piprov::test::write_file(
      br,
      "version: 2\nethernets:\n  eth0:\n    dhcp4: true\nbridges:\n  br0:\n    interfaces: [eth0]\n"
      "    dhcp4: true\n  br1:\n    interfaces: [eth0]\n");
  piprov::test::write_file(f, "version: 2\nethernets: {eth0: {dhcp4: true, addresses: [10.0.0.5/24}}\n");
  const std::string bin = piprov::test::piprov_bin();

  auto r = run(bin + " seed check --network-config " + q(br));
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("line 10  error    seed-network-member-conflict: " + br +
                       ": br1: interface 'eth0' is already assigned to bridge br0 (netplan): netplan refuses the "
                       "whole config and the node comes up without network\n"
                       "                 fix: remove eth0 from br1's interfaces (or from br0's): an interface is a "
                       "member of one bridge only\n"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.out.find("seed check: OK"), std::string::npos) << r.out;

  auto j = run(bin + " seed check --json --network-config " + q(br));
  EXPECT_EQ(j.exit_code, 2) << j.err;
  auto doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["refused"], true);
  const auto& rules = doc["seed_check"]["rules"];
  EXPECT_NE(std::find(rules.begin(), rules.end(), "seed-network-member-conflict"), rules.end()) << rules.dump();
  ASSERT_EQ(doc["seed_check"]["findings"].size(), 1u) << j.out;
  EXPECT_EQ(doc["seed_check"]["findings"][0]["rule"], "seed-network-member-conflict");
  EXPECT_EQ(doc["seed_check"]["findings"][0]["line"], 10);

  r = run(bin + " seed check --network-config " + q(f));
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("line 2   error    seed-yaml-invalid: " + f +
                       ": is not valid YAML: the flow sequence '[' that starts "
                       "at line 2, column 44 is never closed (PyYAML: while parsing a flow sequence, expected ',' or "
                       "']', but got '}' at line 2, column 56)\n"
                       "                 fix: close it with ']' before the '}' at line 2, column 56"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("column 12"), std::string::npos) << r.err;
}
