// Trial 8's seed check findings 3 and 4 (issue 29): an interface netplan assigns to two bridges or
// bonds (netplan src/parse.c handle_bridge_interfaces, handle_bond_interfaces), and the YAML error
// naming the innermost unclosed flow collection, as PyYAML's parser does.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "provision/seed/seed_check.hpp"
#include "support/testsupport.hpp"

namespace piprov::provision {
namespace {

std::vector<Finding> t8_of(const SeedCheck& c, const std::string& rule) {
  std::vector<Finding> out;
  for (const auto& f : c.findings)
    if (f.rule == rule) out.push_back(f);
  return out;
}

// The trial's br.nc: netplan refuses it with "br1: interface 'eth0' is already assigned to bridge br0".
TEST(Trial8Seed, AnInterfaceInTwoBridgesIsAnError) {
  auto c = check_network_config(
      "version: 2\nethernets: {eth0: {dhcp4: true}}\nbridges:\n  br0: {interfaces: [eth0], dhcp4: true}\n"
      "  br1: {interfaces: [eth0]}\n",
      "br.nc");
  ASSERT_EQ(c.findings.size(), 1u) << findings_text(c.findings);
  const Finding& f = c.findings[0];
  EXPECT_EQ(f.rule, "seed-network-member-conflict");
  EXPECT_EQ(f.severity, Severity::Error);
  EXPECT_EQ(f.line, 5);
  EXPECT_EQ(f.key, "bridges.br1.interfaces.0");
  EXPECT_EQ(f.message,
            "br.nc: br1: interface 'eth0' is already assigned to bridge br0 (netplan): netplan refuses the whole "
            "config and the node comes up without network");
  EXPECT_EQ(f.fix, "remove eth0 from br1's interfaces (or from br0's): an interface is a member of one bridge only");
  EXPECT_NE(f.source.find("handle_bridge_interfaces"), std::string::npos) << f.source;
  EXPECT_TRUE(c.refused());
}

// netplan's own cases (tests/generator/test_bonds.py): the listing parsed second, in document
// order, gets the error; a bond member cannot be a bridge member, either way round.
TEST(Trial8Seed, BridgeAndBondMembershipsFollowNetplansOrder) {
  struct Case {
    std::string yaml, key, message, fix;
  } cases[] = {
      {"version: 2\nethernets:\n  eno1: {}\nbonds:\n  bond0:\n    interfaces: [eno1]\n  bond1:\n"
       "    interfaces: [eno1]\n",
       "bonds.bond1.interfaces.0", "bond1: interface 'eno1' is already assigned to bond bond0",
       "remove eno1 from bond1's interfaces (or from bond0's): an interface is a member of one bond only"},
      {"version: 2\nethernets:\n  eno1: {}\nbonds:\n  bond0:\n    interfaces: [eno1]\nbridges:\n  br1:\n"
       "    interfaces: [eno1]\n",
       "bridges.br1.interfaces.0", "br1: interface 'eno1' is already assigned to bond bond0",
       "remove eno1 from br1's interfaces and list bond0 there instead (the bridge then carries the bond, and eno1 "
       "through it), or remove eno1 from bond0's interfaces"},
      {"version: 2\nethernets:\n  eno1: {}\nbridges:\n  br0:\n    interfaces: [eno1]\nbonds:\n  bond1:\n"
       "    interfaces: [eno1]\n",
       "bonds.bond1.interfaces.0", "bond1: interface 'eno1' is already assigned to bridge br0",
       "remove eno1 from br0's interfaces and list bond1 there instead (the bridge then carries the bond, and eno1 "
       "through it), or remove eno1 from bond1's interfaces"},
      // eno1 defined below bond0: netplan assigns it to br0 on its first pass, bond0 on the second.
      {"version: 2\nbonds:\n  bond0:\n    interfaces: [eno1]\nethernets:\n  eno1: {}\nbridges:\n  br0:\n"
       "    interfaces: [eno1]\n",
       "bonds.bond0.interfaces.0", "bond0: interface 'eno1' is already assigned to bridge br0", ""},
      // br0 listed first but eth0 defined below it: bond0 assigns eth0 on the first pass.
      {"version: 2\nbridges:\n  br0: {interfaces: [eth0]}\nethernets: {eth0: {}}\nbonds:\n"
       "  bond0: {interfaces: [eth0]}\n",
       "bridges.br0.interfaces.0", "br0: interface 'eth0' is already assigned to bond bond0", ""},
  };
  for (const auto& k : cases) {
    auto c = check_network_config(k.yaml, "nc");
    auto f = t8_of(c, "seed-network-member-conflict");
    ASSERT_EQ(f.size(), 1u) << k.yaml << findings_text(c.findings);
    EXPECT_EQ(f[0].key, k.key) << k.yaml;
    EXPECT_EQ(f[0].message.rfind("nc: " + k.message + " (netplan)", 0), 0u) << f[0].message;
    if (!k.fix.empty()) EXPECT_EQ(f[0].fix, k.fix);
  }
  // Wrapped under network: the key and line still name the listing.
  auto w = check_network_config(
      "network:\n  version: 2\n  ethernets: {eth0: {}}\n  bridges:\n    br0: {interfaces: [eth0]}\n"
      "    br1: {interfaces: [eth0]}\n",
      "nc");
  auto wf = t8_of(w, "seed-network-member-conflict");
  ASSERT_EQ(wf.size(), 1u) << findings_text(w.findings);
  EXPECT_EQ(wf[0].key, "network.bridges.br1.interfaces.0");
  EXPECT_EQ(wf[0].line, 6);
}

// What netplan takes: a bridge over a bond, a member listed twice by one bridge; a member the config
// does not define is seed-network-reference only.
TEST(Trial8Seed, NestedAndRepeatedMembersPass) {
  auto ok = check_network_config(
      "version: 2\nethernets: {eth0: {}, eth1: {}}\nbonds:\n  bond0: {interfaces: [eth0, eth1]}\n"
      "bridges:\n  br0: {interfaces: [bond0, bond0], dhcp4: true}\n",
      "nc");
  EXPECT_TRUE(ok.findings.empty()) << findings_text(ok.findings);
  auto undef =
      check_network_config("version: 2\nbridges:\n  br0: {interfaces: [eth9]}\n  br1: {interfaces: [eth9]}\n", "nc");
  EXPECT_TRUE(t8_of(undef, "seed-network-member-conflict").empty()) << findings_text(undef.findings);
  EXPECT_EQ(t8_of(undef, "seed-network-reference").size(), 2u) << findings_text(undef.findings);
}

// Version 1, as cloud-init 22.4's network_state and netplan renderer turn it into netplan's YAML:
// bridges in name order, bonds before bridges, one bond-master per interface (the last bond).
TEST(Trial8Seed, Version1MembershipsAsCloudInitRendersThem) {
  const std::string head = "version: 1\nconfig:\n  - {type: physical, name: eth0}\n";
  auto two = check_network_config(head +
                                      "  - {type: bridge, name: br1, bridge_interfaces: [eth0]}\n"
                                      "  - {type: bridge, name: br0, bridge_interfaces: [eth0]}\n",
                                  "v1");
  auto f = t8_of(two, "seed-network-member-conflict");
  ASSERT_EQ(f.size(), 1u) << findings_text(two.findings);
  EXPECT_EQ(f[0].severity, Severity::Error);
  EXPECT_EQ(f[0].key, "config.1.bridge_interfaces.0");
  EXPECT_EQ(f[0].line, 4);
  EXPECT_NE(f[0].message.find("br1: bridge_interfaces lists 'eth0', which bridge br0 also lists: rendered for "
                              "netplan, the config is refused (\"br1: interface 'eth0' is already assigned to bridge "
                              "br0\")"),
            std::string::npos)
      << f[0].message;
  EXPECT_EQ(f[0].fix,
            "remove eth0 from br1's bridge_interfaces (or from br0's): an interface is a port of one bridge only");
  auto cross = check_network_config(head +
                                        "  - {type: bridge, name: br0, bridge_interfaces: [eth0]}\n"
                                        "  - {type: bond, name: bond0, bond_interfaces: [eth0], params: {}}\n",
                                    "v1");
  f = t8_of(cross, "seed-network-member-conflict");
  ASSERT_EQ(f.size(), 1u) << findings_text(cross.findings);
  EXPECT_EQ(f[0].severity, Severity::Error);
  EXPECT_EQ(f[0].key, "config.1.bridge_interfaces.0");
  EXPECT_NE(f[0].message.find("(\"br0: interface 'eth0' is already assigned to bond bond0\")"), std::string::npos)
      << f[0].message;
  EXPECT_EQ(f[0].fix.rfind("remove eth0 from br0's bridge_interfaces and list bond0 there instead", 0), 0u) << f[0].fix;
  auto bonds = check_network_config(head +
                                        "  - {type: bond, name: bond1, bond_interfaces: [eth0], params: {}}\n"
                                        "  - {type: bond, name: bond0, bond_interfaces: [eth0], params: {}}\n",
                                    "v1");
  f = t8_of(bonds, "seed-network-member-conflict");
  ASSERT_EQ(f.size(), 1u) << findings_text(bonds.findings);
  EXPECT_EQ(f[0].severity, Severity::Warning);
  EXPECT_EQ(f[0].key, "config.1.bond_interfaces.0");
  EXPECT_NE(f[0].message.find("the last bond listing it (bond0), so bond1 has no eth0"), std::string::npos)
      << f[0].message;
  // A bridge over a bond, and one bridge listing a port twice, pass.
  auto ok = check_network_config(head +
                                     "  - {type: bond, name: bond0, bond_interfaces: [eth0], params: {}}\n"
                                     "  - {type: bridge, name: br0, bridge_interfaces: [bond0, bond0]}\n",
                                 "v1");
  EXPECT_TRUE(t8_of(ok, "seed-network-member-conflict").empty()) << findings_text(ok.findings);
}

/// The one seed-yaml-invalid finding of `text`.
Finding t8_yaml(const std::string& text) {
  auto c = check_network_config(text, "f.nc");
  auto f = t8_of(c, "seed-yaml-invalid");
  EXPECT_EQ(f.size(), 1u) << text << findings_text(c.findings);
  return f.empty() ? Finding{} : f[0];
}

// The trial's f.nc: the unclosed bracket is the flow sequence at column 44, closed by a '}' at
// column 56 (PyYAML: "while parsing a flow sequence ... line 2, column 44 / expected ',' or ']', but
// got '}' ... line 2, column 56"), not the flow mapping at column 12.
TEST(Trial8Seed, YamlErrorNamesTheInnermostUnclosedBracket) {
  Finding f = t8_yaml("version: 2\nethernets: {eth0: {dhcp4: true, addresses: [10.0.0.5/24}}\n");
  EXPECT_EQ(f.line, 2);
  EXPECT_EQ(f.key, "ethernets");
  EXPECT_EQ(f.message,
            "f.nc: is not valid YAML: the flow sequence '[' that starts at line "
            "2, column 44 is never closed (PyYAML: while parsing a flow sequence, expected ',' or ']', but got '}' at "
            "line 2, column 56)");
  EXPECT_EQ(f.fix, "close it with ']' before the '}' at line 2, column 56 (or quote a value holding {, }, [ or ])");
  // [{]]: the flow mapping is the one left open (PyYAML: line 1, column 8; got ']' at column 13).
  f = t8_yaml("a: [b, {c: d]]\n");
  EXPECT_NE(f.message.find("the flow mapping '{' that starts at line 1, column 8 is never closed (PyYAML: while "
                           "parsing a flow mapping, expected ',' or '}', but got ']' at line 1, column 13)"),
            std::string::npos)
      << f.message;
  EXPECT_EQ(f.fix.rfind("close it with '}' before the ']' at line 1, column 13", 0), 0u) << f.fix;
  // Nested collections closed, the outer one not: the file ends.
  f = t8_yaml("a: [1, {b: [2, 3]}, [4]\n");
  EXPECT_NE(f.message.find("the flow sequence '[' that starts at line 1, column 4 is never closed (PyYAML: while "
                           "parsing a flow sequence, expected ',' or ']', but got '<stream end>' at the end of the "
                           "file)"),
            std::string::npos)
      << f.message;
  EXPECT_EQ(f.fix, "close it with ']' after its last entry (or quote a value holding {, }, [ or ])");
  // Brackets inside quotes (with escapes) and inside a block plain scalar are text.
  struct Quoted {
    std::string text;
    int line, column;
  };
  for (const auto& k : std::vector<Quoted>{{"a: {b: \"x]\", c: [1}\n", 1, 17},
                                           {"a: [\"x\\\"]\", [1}\n", 1, 13},
                                           {"a: ['it''s]', [1}\n", 1, 15},
                                           {"a: {b: '}'} # }\nc: [1}\n", 2, 4}}) {
    f = t8_yaml(k.text);
    EXPECT_NE(f.message.find(fmt::format("the flow sequence '[' that starts at line {}, column {} is never closed",
                                         k.line, k.column)),
              std::string::npos)
        << k.text << f.message;
  }
  f = t8_yaml("a: foo[1\nb: [1, 2\n");
  EXPECT_NE(f.message.find("the flow sequence '[' that starts at line 2, column 4 is never closed"), std::string::npos)
      << f.message;
  // Every collection closed: no bracket is named, the parser's own position is.
  f = t8_yaml("a: [1]]\n");
  EXPECT_EQ(f.message.find("never closed"), std::string::npos) << f.message;
  EXPECT_EQ(f.fix, "fix the YAML at line 1, column 7 (quote values holding {, }, [, ], : or #)");
}

// An unclosed quote inside a flow collection is the quoted scalar, named where it starts, as
// PyYAML 6 does ("while scanning a quoted scalar / in "y6.nc", line 1, column 15 / found
// unexpected end of stream"); the positions below are PyYAML's own for these texts.
TEST(Trial9Seed, YamlErrorNamesTheUnclosedQuotedScalar) {
  Finding f = t8_yaml("match: {name: \"en*}\ndhcp4: true\n");
  EXPECT_EQ(f.line, 1);
  EXPECT_EQ(f.key, "match");
  EXPECT_NE(f.message.find("the quoted scalar '\"' that starts at line 1, column 15 is never closed (PyYAML: while "
                           "scanning a quoted scalar, found unexpected end of stream)"),
            std::string::npos)
      << f.message;
  EXPECT_EQ(f.message.find("flow mapping"), std::string::npos) << f.message;
  EXPECT_EQ(f.fix, "close the quote: end the value that starts at line 1, column 15 with '\"'");
  f = t8_yaml("a: ['10.0.0.2/24', 'x''y]\n");
  EXPECT_NE(f.message.find("the quoted scalar \"'\" that starts at line 1, column 20 is never closed"),
            std::string::npos)
      << f.message;
  f = t8_yaml("a:\n  b: [\"10.0.0.2/24]\n");
  EXPECT_NE(f.message.find("the quoted scalar '\"' that starts at line 2, column 7 is never closed"), std::string::npos)
      << f.message;
  // At block level yaml-cpp takes the rest of the file as the scalar; PyYAML refuses it.
  f = t8_yaml("a: 'abc\nb: 1\n");
  EXPECT_EQ(f.message,
            "f.nc: is not valid YAML: the quoted scalar \"'\" that starts at line 1, column 4 is never "
            "closed (PyYAML: while scanning a quoted scalar, found unexpected end of stream)");
}

// Valid quoted scalars spanning lines, and quotes inside block scalars and plain scalars, are not
// flagged (PyYAML loads each of these texts).
TEST(Trial9Seed, MultiLineQuotesAndBlockScalarsAreNotUnclosed) {
  for (const std::string text : {"version: 2\na: \"abc\n  def\"\n", "version: 2\na: [x, \"abc\n   def\", y]\n",
                                 "version: 2\na: 'it''s\n  here'\n", "version: 2\na: \"x\\\n  y\"\n",
                                 "version: 2\nc: |\n  echo \"hello\n  \"foo\n\n  done\nb: [1]\n",
                                 "version: 2\nc: >- # note\n  'foo\nb: 1\n", "version: 2\nx: don 't\n"}) {
    auto c = check_network_config(text, "f.nc");
    for (const auto& f : c.findings) EXPECT_EQ(f.message.find("quoted scalar"), std::string::npos) << text << f.message;
  }
}

// Trial 10, finding 4: where more lines follow an unclosed flow collection, PyYAML does not reach
// the end of the file: it names the next token and its place. Every expected text below is PyYAML
// 6.0's own for the same file (python3-yaml, yaml.safe_load), and yaml-cpp's place (line 6,
// column 1 past a 5-line file) is no longer shown.
TEST(Trial10Seed, YamlErrorQuotesPyYamlsNextToken) {
  const std::string head = "network:\n  version: 2\n  ethernets:\n    eth0:\n";
  struct Case {
    std::string body, quoted;
    int line;
  };
  for (const auto& k : std::vector<Case>{
           // m3.nc: a scalar on the next line
           {"    addresses: [\"10.0.0.2/24\"\n    dhcp4: true\n",
            "the flow sequence '[' that starts at line 5, column 16 is never closed (PyYAML: while parsing a flow "
            "sequence, expected ',' or ']', but got '<scalar>' at line 6, column 5)",
            5},
           // a plain last entry runs on into the next line, up to ': '
           {"      addresses: [10.0.0.2/24\n      dhcp4: true\n",
            "the flow sequence '[' that starts at line 5, column 18 is never closed (PyYAML: while parsing a flow "
            "sequence, expected ',' or ']', but got ':' at line 6, column 12)",
            5},
           // a flow mapping followed by a mapping key
           {"      nameservers: {addresses: [1.1.1.1]\n      dhcp4: true\n",
            "the flow mapping '{' that starts at line 5, column 20 is never closed (PyYAML: while parsing a flow "
            "mapping, expected ',' or '}', but got '<scalar>' at line 6, column 7)",
            5},
           // a '-' item
           {"      addresses: [\"10.0.0.2/24\"\n      - 10.0.0.3/24\n",
            "the flow sequence '[' that starts at line 5, column 18 is never closed (PyYAML: while parsing a flow "
            "sequence, expected ',' or ']', but got '-' at line 6, column 7)",
            5},
           // a comment, then the end of the file
           {"      nameservers: {search: [lan]\n      # comment\n",
            "the flow mapping '{' that starts at line 5, column 20 is never closed (PyYAML: while parsing a flow "
            "mapping, expected ',' or '}', but got '<stream end>' at the end of the file)",
            5},
           // a ',' and then the end of the file: PyYAML's flow node error
           {"      addresses: [\"10.0.0.2/24\",\n",
            "the flow sequence '[' that starts at line 5, column 18 is never closed (PyYAML: while parsing a flow "
            "node, expected the node content, but found '<stream end>' at the end of the file)",
            5},
           // a mapping's plain value runs on into the next line
           {"      nameservers: {a: 1\n        b: 2\n",
            "the flow mapping '{' that starts at line 5, column 20 is never closed (PyYAML: while parsing a flow "
            "mapping, expected ',' or '}', but got ':' at line 6, column 10)",
            5},
       }) {
    Finding f = t8_yaml(head + k.body);
    EXPECT_EQ(f.line, k.line) << k.body;
    EXPECT_EQ(f.message, "f.nc: is not valid YAML: " + k.quoted) << k.body;
    EXPECT_EQ(f.message.find("line 6, column 1:"), std::string::npos) << f.message;
  }
  // An unclosed quote: PyYAML's scanner words only, not yaml-cpp's "end of map flow not found" at
  // line 6, column 1 of a 5-line file.
  Finding f = t8_yaml(head + "      nameservers: {addresses: [\"1.1.1.1]}\n");
  EXPECT_EQ(f.message,
            "f.nc: is not valid YAML: the quoted scalar '\"' that starts at line 5, column 33 is never closed (PyYAML: "
            "while scanning a quoted scalar, found unexpected end of stream)");
}

}  // namespace
}  // namespace piprov::provision
