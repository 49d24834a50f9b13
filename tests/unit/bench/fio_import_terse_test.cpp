// bench import of fio's terse output (files 12, 13 of ../shared/data/fio and
// lines of every terse version) and of agnostics' sdtest.sh report (file 17).
#include <gtest/gtest.h>

#include "bench/fio/import.hpp"
#include "bench/report.hpp"
#include "bench/verdict.hpp"
#include "support/testsupport.hpp"

using namespace piprov::bench;

namespace {
std::vector<ImportedJob> load_terse(const std::filesystem::path& p) {
  return parse_fio_output(piprov::test::read_file(p), p.filename().string());
}

// A terse line of `version` with the READ block's io KiB, bw KiB/s, IOPS and
// runtime ms given and every other field zero, laid out as fio HOWTO "Terse
// output" lists the fields.
std::string terse_line(int version, const std::string& name, int error, const std::string& read4,
                       const std::string& write4) {
  auto zeros = [](int n) {
    std::string s;
    for (int i = 0; i < n; ++i) s += ";0";
    return s;
  };
  auto block = [&](const std::string& first4) {
    std::string b = ";" + first4 + zeros(8);
    for (int i = 0; i < 20; ++i) b += ";0%=0";
    return b + zeros(4) + ";0;0;0.000000%;0;0" + (version == 5 ? zeros(6) : "");
  };
  std::string s = version == 2 ? "2;" + name + ";0;" + std::to_string(error)
                               : std::to_string(version) + ";fio-3.33;" + name + ";0;" + std::to_string(error);
  s += block(read4) + block(write4);
  if (version != 3) s += block("0;0;0;0");
  s += ";1.0%;2.0%;100;0;10" + zeros(7 + 10 + 12);
  if (version != 2) s += ";sdb;10;20;0;0;5;6;11;50.00%";
  return s + "\n";
}
}  // namespace

TEST(FioData, Terse336SingleLine) {
  PIPROV_REQUIRE_SHARED("fio/12_fio-3.36_terse_randrw_single-line.txt", f);
  auto jobs = load_terse(f);
  ASSERT_EQ(jobs.size(), 1u);
  const JobResult& j = jobs[0].job;
  EXPECT_EQ(j.name, "probe");
  EXPECT_EQ(j.source, "fio-3.36 (12_fio-3.36_terse_randrw_single-line.txt)");
  EXPECT_EQ(jobs[0].target, "nvme0n1");  // the disk utilization fields
  ASSERT_TRUE(j.read && j.write);
  EXPECT_EQ(j.read->bytes, 3976u * 1024);
  EXPECT_DOUBLE_EQ(j.read->bw_bytes, 62125.0 * 1024);
  EXPECT_DOUBLE_EQ(j.read->iops, 15531);
  EXPECT_DOUBLE_EQ(j.read->runtime_s, 0.064);
  EXPECT_EQ(j.read->ios, 994u);  // 15531 IOPS x 64 ms; 3976 KiB / 4 KiB is 994 too
  EXPECT_DOUBLE_EQ(*j.read->clat.pct(99.0), 248e3);
  EXPECT_DOUBLE_EQ(j.read->clat.mean_ns, 62.555513e3);
  EXPECT_DOUBLE_EQ(j.read->lat.max_ns, 281e3);
  EXPECT_EQ(j.read->clat.percentiles.size(), 17u);  // the three "0%=0" slots are skipped
  EXPECT_EQ(j.write->bytes, 4216u * 1024);
  EXPECT_DOUBLE_EQ(j.write->bw_bytes, 65875.0 * 1024);
  EXPECT_DOUBLE_EQ(j.write->iops, 16468);
  EXPECT_DOUBLE_EQ(j.write->runtime_s, 0.064);
  ASSERT_TRUE(j.disk);
  EXPECT_EQ(j.disk->device, "nvme0n1");
  EXPECT_EQ(j.disk->read_ios, 0u);
}

TEST(FioData, TerseAndNormalOfOneRunAgree) {
  PIPROV_REQUIRE_SHARED("fio/13_fio-3.32_terse+normal_randread_psync.txt", f);
  std::string text = piprov::test::read_file(f);
  auto terse = parse_fio_terse(text, "13.txt");
  auto normal = parse_fio_text(text, "13.txt");
  ASSERT_EQ(terse.size(), 1u);
  ASSERT_EQ(normal.size(), 1u);
  const DirStats& t = *terse[0].job.read;
  const DirStats& n = *normal[0].job.read;
  EXPECT_FALSE(terse[0].job.write);
  EXPECT_DOUBLE_EQ(t.iops, 3337);
  EXPECT_DOUBLE_EQ(n.iops, 3337);
  EXPECT_DOUBLE_EQ(t.bw_bytes, 13351.0 * 1024);
  EXPECT_DOUBLE_EQ(n.bw_bytes, 13.0 * 1048576);
  EXPECT_EQ(fmt_mib(t.bw_bytes / 1048576.0), "13.0");
  EXPECT_NEAR(t.bw_bytes, n.bw_bytes, 0.05 * 1048576);  // the text's MiB/s has one decimal
  EXPECT_DOUBLE_EQ(t.runtime_s, 10.001);
  EXPECT_DOUBLE_EQ(n.runtime_s, 10.001);
  EXPECT_NEAR(static_cast<double>(t.bytes), static_cast<double>(n.bytes), 0.5 * 1048576);  // "130MiB"
  EXPECT_NEAR(t.clat.mean_ns, n.clat.mean_ns, 10);                                         // 298.421947 vs 298.42 usec
  EXPECT_NEAR(*t.clat.pct(99.0), *n.clat.pct(99.0), 1000);                                 // terse 1351, text 1352 usec
  EXPECT_EQ(terse[0].target, "vda");
  EXPECT_EQ(normal[0].target, "vda");
  // the whole file: the job once (its normal block, which knows rw and bs)
  auto all = load_terse(f);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].job.test_label(), "rand read 4k QD1");
  EXPECT_EQ(all[0].job.read->ios, 33383u);
  EXPECT_EQ(all[0].target, "vda");
}

TEST(FioTerse, EveryVersionPlacesTheFields) {
  for (int v : {2, 3, 4, 5}) {
    std::string text = "prose\n" + terse_line(v, "a", 0, "4000;1000;250;4000", "0;0;0;0") +
                       terse_line(v, "b", 0, "0;0;0;0", "8000;2000;500;4000");
    auto jobs = parse_fio_output(text, "t.txt");
    ASSERT_EQ(jobs.size(), 2u) << "v" << v;
    EXPECT_EQ(jobs[0].job.name, "a");
    ASSERT_TRUE(jobs[0].job.read) << "v" << v;
    EXPECT_FALSE(jobs[0].job.write) << "v" << v;
    EXPECT_EQ(jobs[0].job.read->bytes, 4000u * 1024) << "v" << v;
    EXPECT_DOUBLE_EQ(jobs[0].job.read->iops, 250) << "v" << v;
    EXPECT_EQ(jobs[0].job.read->ios, 1000u) << "v" << v;
    ASSERT_TRUE(jobs[1].job.write) << "v" << v;
    EXPECT_FALSE(jobs[1].job.read) << "v" << v;
    EXPECT_DOUBLE_EQ(jobs[1].job.write->bw_bytes, 2000.0 * 1024) << "v" << v;
    EXPECT_EQ(jobs[1].target, v == 2 ? "t.txt" : "sdb") << "v" << v;  // v2 has no disk fields
    EXPECT_EQ(jobs[1].job.source, v == 2 ? "fio (t.txt)" : "fio-3.33 (t.txt)");
  }
}

TEST(FioTerse, FailedJobAndShortLines) {
  auto jobs = parse_fio_output(terse_line(3, "1m", 22, "0;0;0;0", "0;0;0;0"), "t.txt");
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].job.err, 22);
  EXPECT_EQ(jobs[0].job.error, "job 1m failed: fio error 22 (its text is not in this output)");  // terse has no text
  EXPECT_FALSE(jobs[0].job.read || jobs[0].job.write);
  // too few fields for its version, or a version fio never printed: not terse
  EXPECT_TRUE(parse_fio_terse("3;fio-3.33;x;0;0;1;2;3;4\n", "t").empty());
  std::string v7 = terse_line(3, "x", 0, "1;1;1;1", "0;0;0;0");
  v7[0] = '7';
  EXPECT_TRUE(parse_fio_terse(v7, "t").empty());
}

TEST(FioTerse, NumjobsLinesFoldIntoClonesAndASum) {
  std::string text =
      terse_line(3, "w", 0, "0;0;0;0", "4000;1000;250;4000") + terse_line(3, "w", 0, "0;0;0;0", "2000;500;125;4000");
  auto jobs = parse_fio_output(text, "t.txt");
  ASSERT_EQ(jobs.size(), 3u);
  EXPECT_EQ(jobs[0].job.test_label(), "w job 1/2");
  EXPECT_EQ(jobs[1].job.test_label(), "w job 2/2");
  EXPECT_EQ(jobs[2].job.test_label(), "w x2");
  EXPECT_TRUE(jobs[2].job.group_sum);
  EXPECT_DOUBLE_EQ(jobs[2].job.write->iops, 375);
  EXPECT_DOUBLE_EQ(jobs[2].job.write->bw_bytes, 6000.0 * 1024 / 4.0);
}

TEST(FioData, AgnosticsSdtestReport) {
  PIPROV_REQUIRE_SHARED("fio/17_agnostics-sdtest_pass_cut-terse-fields.txt", f);
  auto jobs = load_terse(f);
  ASSERT_EQ(jobs.size(), 4u);
  EXPECT_EQ(jobs[0].job.name, "prepare-file");
  const JobResult& sw = jobs[1].job;
  EXPECT_EQ(sw.test_label(), "seq-write");
  EXPECT_EQ(sw.bs, 512u << 10);  // agnostics' sd_bench.fio
  EXPECT_EQ(sw.iodepth, 4u);
  EXPECT_EQ(sw.engine, "libaio");
  EXPECT_FALSE(sw.read);
  ASSERT_TRUE(sw.write);
  EXPECT_DOUBLE_EQ(sw.write->bw_bytes, 11603.0 * 1024);
  EXPECT_DOUBLE_EQ(sw.write->iops, 22);
  const JobResult& rw = jobs[2].job;
  EXPECT_EQ(rw.name, "rand-4k-write");
  EXPECT_EQ(rw.bs, 4096u);
  EXPECT_DOUBLE_EQ(rw.write->iops, 822);
  EXPECT_DOUBLE_EQ(rw.write->bw_bytes, 3291.0 * 1024);
  const JobResult& rr = jobs[3].job;
  EXPECT_EQ(rr.name, "rand-4k-read");
  EXPECT_FALSE(rr.write);
  EXPECT_DOUBLE_EQ(rr.read->iops, 2112);
  EXPECT_DOUBLE_EQ(rr.read->bw_bytes, 8451.0 * 1024);
  // the thresholds sdtest.sh printed PASS against
  EXPECT_GE(sw.write->bw_bytes / 1024, 10000);
  EXPECT_GE(rw.write->iops, 500);
  EXPECT_GE(rr.read->iops, 1500);
  Report r = group_imported(jobs);
  ASSERT_EQ(r.targets.size(), 1u);  // one column, one row per job
  EXPECT_EQ(r.targets[0].jobs.size(), 4u);
  // The report has IOPS and KB/s but no I/O counts: still sdtest.sh's PASS.
  auto v = agnostics_verdict(r.targets[0]);
  ASSERT_TRUE(v);
  EXPECT_EQ(agnostics_result_name(v->overall), "PASS");
  EXPECT_DOUBLE_EQ(v->lines[0].measured, 11603);
  EXPECT_DOUBLE_EQ(v->lines[1].measured, 822);
  EXPECT_DOUBLE_EQ(v->lines[2].measured, 2112);
}

TEST(FioAgnostics, CutLinesAloneAreNotGuessed) {
  EXPECT_TRUE(parse_agnostics_report("alpha;1;2;3;4\nbeta;5;6;7;8\n", "x").empty());
  auto jobs = parse_agnostics_report("Run 1\nrand-4k-read;8451;2112;0;0\nRun 2\nrand-4k-read;8000;2000;0;0\n", "x");
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_NE(jobs[0].run, jobs[1].run);  // sdtest.sh retries: separate runs, not numjobs clones
  fold_numjobs_clones(jobs);
  EXPECT_EQ(jobs.size(), 2u);
}

// Issue 19: a report pasted into a forum post or an issue is indented (four
// spaces, or a tab); it is the same report.
TEST(FioData, AgnosticsSdtestReportIndented) {
  PIPROV_REQUIRE_SHARED("fio/17_agnostics-sdtest_pass_cut-terse-fields.txt", f);
  const std::string text = piprov::test::read_file(f);
  for (const char* indent : {"    ", "\t", "  \t "}) {
    std::string pasted;
    std::size_t pos = 0;
    while (pos < text.size()) {
      std::size_t nl = text.find('\n', pos);
      std::size_t end = nl == std::string::npos ? text.size() : nl + 1;
      pasted += std::string(indent) + text.substr(pos, end - pos);
      pos = end;
    }
    auto jobs = parse_fio_output(pasted, "pasted.txt");
    ASSERT_EQ(jobs.size(), 4u) << "indent '" << indent << "'";
    EXPECT_EQ(jobs[1].job.test_label(), "seq-write");
    EXPECT_DOUBLE_EQ(jobs[3].job.read->iops, 2112);
    Report r = group_imported(jobs);
    ASSERT_EQ(r.targets.size(), 1u);
    auto v = agnostics_verdict(r.targets[0]);
    ASSERT_TRUE(v);
    EXPECT_EQ(agnostics_result_name(v->overall), "PASS");
    piprov::test::TempDir dir;
    piprov::test::write_file(dir.path / "pasted.txt", pasted);
    EXPECT_NO_THROW(import_fio_files({(dir.path / "pasted.txt").string()}));
  }
}

TEST(FioData, TerseLinesIndented) {
  const std::string line = terse_line(3, "probe", 0, "4096;1024;256;4000", "0;0;0;0");
  EXPECT_EQ(parse_fio_terse("    " + line, "x").size(), 1u);
  EXPECT_EQ(parse_fio_terse("\t" + line, "x").size(), 1u);
}

// A fio command line printed before terse lines (`-direct=1` with one dash) applies to them.
TEST(FioTerse, CommandLineBeforeTerseLinesIsKept) {
  // -direct=1 (one dash) on the command line printed before terse lines.
  std::string terse_run = "$ sudo fio -name=t -rw=randread -direct=1 -bs=4k -iodepth=4 --output-format=terse\n" +
                          terse_line(3, "t", 0, "4096;1024;256;4000", "0;0;0;0");
  auto jobs = parse_fio_output(terse_run, "t.txt");
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_TRUE(jobs[0].job.direct);
  EXPECT_EQ(jobs[0].job.rw, "randread");
  EXPECT_EQ(jobs[0].job.iodepth, 4u);
}
