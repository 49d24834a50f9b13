// piprov report's library: host names of the inputs, each accepted schema read
// into the fleet model (documents in the shapes docs/boot.md, docs/eeprom.md and
// docs/findings.md give; bench JSON written by bench's own writer), the
// failed-run record, refusals, and the three renderings.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "bench/report.hpp"
#include "fleet/fleet.hpp"
#include "fleet/input.hpp"
#include "fleet/render.hpp"
#include "support/testsupport.hpp"

namespace piprov::fleet {
namespace {
using nlohmann::json;
using piprov::test::expect_error;

json finding(const char* rule, const char* severity, const char* message) {
  return {{"rule", rule}, {"severity", severity}, {"line", nullptr}, {"key", nullptr}, {"message", message},
          {"fix", ""},    {"source", ""}};
}

json summary(int e, int w, int i, int exit_code) {
  return {{"errors", e}, {"warnings", w}, {"infos", i}, {"exit_code", exit_code}};
}

/// A boot check --json document (schema /4 unless `schema` says /3: /4 only added layout.cmdline_args).
std::string boot_doc(const char* id, const char* release, json findings, json sum,
                     const char* schema = "piprov.boot.check/5") {
  json layout = {{"id", id},
                 {"release", release},
                 {"board", "pi4"},
                 {"usb_boot", true},
                 {"kernel", "vmlinuz"},
                 {"initramfs", "initrd.img"},
                 {"cmdline", "cmdline.txt"},
                 {"cmdline_args", "console=tty1 root=LABEL=writable rootwait"},
                 {"root", "LABEL=writable"}};
  if (std::string(schema) == "piprov.boot.check/3") layout.erase("cmdline_args");
  return json{{"schema", schema}, {"boot_dir", "/b"}, {"layout", layout}, {"findings", findings}, {"summary", sum}}
      .dump();
}

std::string eeprom_v1(const char* order, json findings, json sum) {
  return json{{"schema", "piprov.eeprom.check/1"},
              {"board", "pi4"},
              {"boot_order", {{"value", order}, {"words", "SD card, then USB mass storage"}}},
              {"findings", findings},
              {"summary", sum}}
      .dump();
}

bench::JobResult job(const char* name, const char* rw, std::uint64_t bs, double iops) {
  bench::JobResult j;
  j.name = name, j.rw = rw, j.bs = bs, j.iodepth = 1, j.engine = "psync", j.source = "piprov";
  bench::DirStats d;
  d.iops = iops, d.bw_bytes = iops * static_cast<double>(bs), d.runtime_s = 1, d.ios = static_cast<std::uint64_t>(iops);
  d.bytes = d.ios * bs;
  (std::string(rw).find("write") != std::string::npos ? j.write : j.read) = d;
  return j;
}

std::string bench_json(const char* label, double seq_iops, double rand_iops, const char* error = "") {
  bench::Report r;
  bench::TargetResult t;
  t.label = label, t.path = label;
  t.jobs = {job("seq-read", "read", 4 << 20, seq_iops), job("rand-write", "randwrite", 4096, rand_iops)};
  t.error = error;
  r.targets.push_back(t);
  return bench::report_to_json(r);
}

TEST(InputFiles, HostFromNameFromEqualsOrFromTheFileStem) {
  auto f = input_files({"node1=/r/a.json", "/r/node2.boot.json", "node3.json"}, {});
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[0].host, "node1");
  EXPECT_EQ(f[0].path, "/r/a.json");
  EXPECT_EQ(f[1].host, "node2");
  EXPECT_EQ(f[1].path, "/r/node2.boot.json");
  EXPECT_EQ(f[2].host, "node3");
  auto n = input_files({"x.json", "y=z.json"}, {"a", "b"});
  EXPECT_EQ(n[0].host, "a");
  EXPECT_EQ(n[1].host, "b");
  EXPECT_EQ(n[1].path, "y=z.json");
}

TEST(InputFiles, AnExistingFileWithAnEqualsSignIsAFile) {
  piprov::test::TempDir t;
  auto p = t.path / "a=b.json";
  piprov::test::write_file(p, "{}");
  auto f = input_files({p.string()}, {});
  EXPECT_EQ(f[0].path, p.string());
  EXPECT_EQ(f[0].host, "a=b");
}

TEST(InputFiles, RefusesAMismatchedNameCountAndEmptyHosts) {
  expect_error(ErrorKind::Usage, "1 --name for 2 FILE(s)", [] { input_files({"a.json", "b.json"}, {"n"}); });
  expect_error(ErrorKind::Usage, "=x.json: no host name", [] { input_files({"=x.json"}, {}); });
  expect_error(ErrorKind::Usage, ".json: no host name", [] { input_files({".json"}, {}); });
}

TEST(Fleet, ReadsBootCheckV3AndV4WithTheirLayout) {
  for (const char* schema : {"piprov.boot.check/3", "piprov.boot.check/4", "piprov.boot.check/5"}) {
    SCOPED_TRACE(schema);
    Fleet f;
    add_document(f, {"n1", "n1.boot.json"},
                 boot_doc("ubuntu-ab", "25.10", json::array({finding("firmware", "info", "start4.elf of 2022-08-26")}),
                          summary(0, 0, 1, 0), schema));
    ASSERT_EQ(f.hosts.size(), 1u);
    const Check& c = f.hosts[0].checks.at(0);
    EXPECT_EQ(c.kind, CheckKind::BootCheck);
    EXPECT_EQ(c.schema, schema);
    EXPECT_EQ(c.layout, "ubuntu-ab");
    EXPECT_EQ(c.release, "25.10");
    EXPECT_EQ(c.usb_boot, true);
    EXPECT_EQ(c.infos, 1);
    EXPECT_FALSE(c.first);
    EXPECT_FALSE(f.hosts[0].failed());
    EXPECT_EQ(fleet_exit_code(f), 0);
  }
}

TEST(Fleet, BootCheckV2HasNoLayoutAndAFirstErrorFails) {
  Fleet f;
  json doc = {{"schema", "piprov.boot.check/2"},
              {"findings", json::array({finding("config-duplicate", "warning", "gpu_mem twice"),
                                        finding("kernel-missing", "error", "vmlinux does not exist"),
                                        finding("initramfs-missing", "error", "no initramfs line")})},
              {"summary", summary(2, 1, 0, 1)}};
  add_document(f, {"n2", "n2.json"}, doc.dump());
  const Check& c = f.hosts[0].checks.at(0);
  EXPECT_EQ(c.layout, "");
  EXPECT_FALSE(c.usb_boot);
  EXPECT_EQ(c.errors, 2);
  EXPECT_EQ(c.warnings, 1);
  ASSERT_TRUE(c.first);
  EXPECT_EQ(c.first->rule, "kernel-missing");
  EXPECT_TRUE(f.hosts[0].failed());
  EXPECT_EQ(fleet_exit_code(f), 1);
}

TEST(Fleet, AWarningFailsBootCheckAndIsTheFirstProblemWhenNoError) {
  Fleet f;
  add_document(f, {"n", "n.json"},
               boot_doc("ubuntu-direct", "24.04", json::array({finding("kernel-compressed", "warning", "gzip kernel")}),
                        summary(0, 1, 0, 1)));
  ASSERT_TRUE(f.hosts[0].checks[0].first);
  EXPECT_EQ(f.hosts[0].checks[0].first->rule, "kernel-compressed");
  EXPECT_TRUE(f.hosts[0].failed());
}

TEST(Fleet, ReadsEepromCheckAndGroupsDocumentsByHost) {
  Fleet f;
  add_document(f, {"n1", "a"}, boot_doc("piprov", "20.04", json::array(), summary(0, 0, 0, 0)));
  add_document(f, {"n2", "b"}, boot_doc("raspios", "bookworm", json::array(), summary(0, 0, 0, 0)));
  add_document(f, {"n1", "c"}, eeprom_v1("0xf41", json::array(), summary(0, 0, 0, 0)));
  ASSERT_EQ(f.hosts.size(), 2u);
  EXPECT_EQ(f.hosts[0].name, "n1");
  ASSERT_EQ(f.hosts[0].checks.size(), 2u);
  EXPECT_EQ(f.hosts[0].checks[1].kind, CheckKind::EepromCheck);
  EXPECT_EQ(f.hosts[0].checks[1].boot_order, "0xf41");
  EXPECT_EQ(f.hosts[0].checks[1].boot_order_words, "SD card, then USB mass storage");
}

TEST(Fleet, ReadsBenchFiguresIopsForRandomTestsMibForTheRest) {
  Fleet f;
  add_document(f, {"n1", "n1.bench.json"}, bench_json("/dev/sda", 90, 5000));
  ASSERT_EQ(f.hosts[0].bench.size(), 1u);
  const BenchTarget& b = f.hosts[0].bench[0];
  EXPECT_EQ(b.label, "/dev/sda");
  ASSERT_EQ(b.figures.size(), 2u);
  EXPECT_EQ(b.figures[0].unit, "MiB/s");
  EXPECT_DOUBLE_EQ(b.figures[0].value, 360.0);  // 90 IOPS x 4 MiB
  EXPECT_EQ(b.figures[0].test, job("seq-read", "read", 4 << 20, 90).test_label());
  EXPECT_EQ(b.figures[1].unit, "IOPS");
  EXPECT_DOUBLE_EQ(b.figures[1].value, 5000.0);
  EXPECT_NEAR(b.figures[1].mib_s, 5000 * 4096 / 1048576.0, 1e-9);
  EXPECT_FALSE(f.hosts[0].failed());
}

TEST(Fleet, AFailedBenchTargetFailsTheHost) {
  Fleet f;
  add_document(f, {"n1", "x"}, bench_json("/dev/sdb", 10, 10, "read: Input/output error (EIO)"));
  EXPECT_TRUE(f.hosts[0].failed());
  EXPECT_NE(render(f, Format::Text).find("bench /dev/sdb: read: Input/output error (EIO)"), std::string::npos);
}

TEST(Fleet, AFailedJobOrAFailedAgnosticsThresholdFailsTheHost) {
  bench::Report r;
  bench::TargetResult t;
  t.label = t.path = "/dev/sdc";
  t.jobs = {job("seq-read", "read", 4 << 20, 90), job("rand-write", "randwrite", 4096, 0)};
  t.jobs[1].err = 5;  // failed, no message
  t.jobs[1].write.reset();
  r.targets.push_back(t);
  Fleet f;
  add_document(f, {"n1", "n1.bench.json"}, bench::report_to_json(r));
  EXPECT_TRUE(f.hosts[0].failed());
  EXPECT_EQ(f.hosts[0].bench[0].figures.at(1).error, "failed: EIO");
  // sd_bench.fio's jobs, random write under 500 IOPS: bench exited 1 (FAIL).
  t.label = t.path = "/dev/mmcblk0";
  t.jobs = {job("prepare-file", "write", 512 << 10, 30), job("seq-write", "write", 512 << 10, 40),
            job("rand-4k-write", "randwrite", 4096, 499), job("rand-4k-read", "randread", 4096, 2000)};
  r.targets = {t};
  add_document(f, {"n2", "n2.bench.json"}, bench::report_to_json(r));
  ASSERT_TRUE(f.hosts[1].failed());
  EXPECT_EQ(f.hosts[1].bench[0].verdict_failure, "agnostics: Random write speed 499 IOPS (target 500) - FAIL");
  EXPECT_NE(render(f, Format::Text).find("bench /dev/mmcblk0: agnostics: Random write speed 499 IOPS"),
            std::string::npos);
  r.targets[0].jobs[2] = job("rand-4k-write", "randwrite", 4096, 800);  // PASS: the host is ok
  add_document(f, {"n3", "n3.bench.json"}, bench::report_to_json(r));
  EXPECT_FALSE(f.hosts[2].failed());
}

// A bench report saved before the schema tag (version 1: "piprov_bench": 1) is still read.
TEST(Fleet, ReadsVersion1BenchReports) {
  bench::Report r;
  bench::TargetResult t;
  t.label = t.path = "/dev/sdb";
  t.jobs = {job("seq-read", "read", 4 << 20, 90)};
  r.targets.push_back(t);
  json doc = json::parse(bench::report_to_json(r));
  doc.erase("schema");
  doc["piprov_bench"] = 1;
  Fleet f;
  add_document(f, {"n1", "n1.bench.json"}, doc.dump());
  ASSERT_EQ(f.hosts[0].bench.size(), 1u);
  EXPECT_EQ(f.hosts[0].bench[0].label, "/dev/sdb");
  doc["schema"] = "piprov.bench/9";  // an unknown version is not read as a bench report
  doc.erase("piprov_bench");
  expect_error(ErrorKind::Usage, "n2.bench.json: unknown schema 'piprov.bench/9'", [&] {
    add_document(f, {"n2", "n2.bench.json"}, doc.dump());
  });
}

TEST(Fleet, TwoResultsOfOneCheckForOneHostAreRefused) {
  Fleet f;
  add_document(f, {"n1", "a.json"}, boot_doc("piprov", "20.04", json::array(), summary(0, 0, 0, 0)));
  expect_error(piprov::ErrorKind::Usage, "n1: two boot check results (a.json and b.json): give one per host", [&] {
    add_document(f, {"n1", "b.json"},
                 boot_doc("unknown", "", json::array({finding("kernel-missing", "error", "x")}), summary(1, 0, 0, 1)));
  });
  add_document(f, {"n1", "c.json"}, bench_json("/dev/sda", 90, 5000));  // bench files add targets
  add_document(f, {"n1", "d.json"}, bench_json("/dev/sdb", 90, 5000));
  EXPECT_EQ(f.hosts[0].bench.size(), 2u);
  EXPECT_EQ(f.hosts[0].checks.size(), 1u);
}

TEST(Fleet, AFailedRunRecord) {
  Fleet f;
  json doc = {{"schema", "piprov.report.failed/1"},
              {"check", "boot check"},
              {"exit_code", 2},
              {"error", "piprov boot check failed (exit 2): piprov: error: /b: no config.txt"}};
  add_document(f, {"n3", "n3.boot.json"}, doc.dump());
  const Check& c = f.hosts[0].checks.at(0);
  EXPECT_FALSE(c.ran);
  EXPECT_EQ(c.kind, CheckKind::BootCheck);
  EXPECT_EQ(c.exit_code, 2);
  ASSERT_TRUE(c.first);
  EXPECT_EQ(c.first->message, "piprov boot check failed (exit 2): piprov: error: /b: no config.txt");
  EXPECT_TRUE(f.hosts[0].failed());
  std::string text = render(f, Format::Text);
  EXPECT_NE(text.find("n3    FAILED  -       -         failed      -           -             boot check: piprov boot "
                      "check failed (exit 2)"),
            std::string::npos)
      << text;
}

TEST(Fleet, RefusesUnknownSchemasAndNonJson) {
  Fleet f;
  expect_error(ErrorKind::Usage, "x.json: unknown schema 'piprov.boot.patch/1' (piprov report reads", [&] {
    add_document(f, {"n", "x.json"}, R"({"schema": "piprov.boot.patch/1", "changed": true})");
  });
  expect_error(ErrorKind::Usage, "y.json: unknown schema 'piprov.boot.check/9'", [&] {
    add_document(f, {"n", "y.json"}, R"({"schema": "piprov.boot.check/9"})");
  });
  expect_error(ErrorKind::Usage, "z.json: unknown schema 'none'", [&] { add_document(f, {"n", "z.json"}, "{}"); });
  expect_error(ErrorKind::Usage, "w.txt: not a JSON object", [&] {
    add_document(f, {"n", "w.txt"}, "boot check: OK (0 errors)");
  });
  expect_error(ErrorKind::Usage, "v.json: not a JSON object", [&] { add_document(f, {"n", "v.json"}, "[1, 2]"); });
}

TEST(Fleet, LoadReportsAMissingFile) {
  expect_error(ErrorKind::Usage, "/nonexistent/n1.json does not exist: give the path of the piprov JSON result file",
               [] {
                 load_fleet({{"n1", "/nonexistent/n1.json"}});
               });
}

Fleet three_nodes() {
  Fleet f;
  add_document(f, {"node1", "1"}, boot_doc("piprov", "20.04", json::array(), summary(0, 0, 2, 0)));
  add_document(f, {"node1", "2"}, eeprom_v1("0xf41", json::array(), summary(0, 0, 1, 0)));
  add_document(f, {"node1", "3"}, bench_json("/dev/loop1", 100, 2000));
  add_document(f, {"node2", "4"},
               boot_doc("ubuntu-direct", "24.04",
                        json::array({finding("kernel-missing", "error", "vmlinuz is missing")}), summary(1, 0, 0, 1)));
  add_document(f, {"node2", "5"}, bench_json("/dev/loop2", 50, 1000));
  return f;
}

TEST(Render, TextRowsPerHostThenBenchRows) {
  std::string t = render(three_nodes(), Format::Text);
  const std::string label_seq = job("seq-read", "read", 4 << 20, 1).test_label();
  const std::string label_rand = job("rand-write", "randwrite", 4096, 1).test_label();
  std::string want =
      "host   status  layout               USB boot  boot E/W/I  BOOT_ORDER  eeprom E/W/I  first error\n"
      "node1  ok      piprov 20.04         yes       0/0/2       0xf41       0/0/1         -\n"
      "node2  FAILED  ubuntu-direct 24.04  yes       1/0/0       -           -             boot check: kernel-missing: "
      "vmlinuz is missing\n"
      "\n";
  EXPECT_EQ(t.substr(0, want.size()), want) << t;
  EXPECT_NE(t.find("host   target      " + label_seq + " MiB/s  " + label_rand + " IOPS\n"), std::string::npos) << t;
  EXPECT_NE(t.find("node1  /dev/loop1  400"), std::string::npos) << t;
  EXPECT_NE(t.find("node2  /dev/loop2  200"), std::string::npos) << t;
  EXPECT_NE(t.find("  2000\n"), std::string::npos) << t;
  EXPECT_NE(t.find("\nreport: 2 host(s), 1 failed: node2\n"), std::string::npos) << t;
}

TEST(Render, Markdown) {
  std::string m = render(three_nodes(), Format::Markdown);
  EXPECT_NE(m.find("| host | status | layout | USB boot | boot E/W/I | BOOT_ORDER | eeprom E/W/I | first error |\n"
                   "|---|---|---|---|---|---|---|---|\n"
                   "| node1 | ok | piprov 20.04 | yes | 0/0/2 | 0xf41 | 0/0/1 | - |\n"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("| node2 | /dev/loop2 | 200 | 1000 |"), std::string::npos) << m;
}

TEST(Render, Json) {
  json j = json::parse(render(three_nodes(), Format::Json));
  EXPECT_EQ(j["schema"], "piprov.report/1");
  ASSERT_EQ(j["hosts"].size(), 2u);
  EXPECT_EQ(j["hosts"][0]["status"], "ok");
  EXPECT_EQ(j["hosts"][0]["first_error"], nullptr);
  EXPECT_EQ(j["hosts"][0]["checks"][0]["layout"]["id"], "piprov");
  EXPECT_EQ(j["hosts"][0]["checks"][1]["boot_order"]["value"], "0xf41");
  EXPECT_EQ(j["hosts"][0]["bench"][0]["figures"][1]["unit"], "IOPS");
  EXPECT_DOUBLE_EQ(j["hosts"][0]["bench"][0]["figures"][1]["value"].get<double>(), 2000.0);
  EXPECT_EQ(j["hosts"][1]["status"], "failed");
  EXPECT_EQ(j["hosts"][1]["first_error"], "boot check: kernel-missing: vmlinuz is missing");
  EXPECT_EQ(j["hosts"][1]["checks"][0]["first_problem"]["rule"], "kernel-missing");
  EXPECT_EQ(j["summary"], json({{"hosts", 2}, {"failed", 1}, {"exit_code", 1}}));
}

TEST(Render, Formats) {
  EXPECT_EQ(parse_format("text"), Format::Text);
  EXPECT_EQ(parse_format("markdown"), Format::Markdown);
  EXPECT_EQ(parse_format("json"), Format::Json);
  expect_error(ErrorKind::Usage, "unknown --format 'csv': use text, markdown or json", [] { parse_format("csv"); });
}

}  // namespace
}  // namespace piprov::fleet
