// Reports: rows, CSV, JSON round trip (histograms kept), SD verdict.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "bench/report.hpp"
#include "bench/svg.hpp"
#include "bench/verdict.hpp"
#include "core/error.hpp"
#include "support/testsupport.hpp"

using namespace piprov::bench;

namespace {
JobResult job(const char* rw, std::uint64_t bs, double iops, double lat_us) {
  JobResult j;
  j.name = rw;
  j.rw = rw;
  j.bs = bs;
  j.iodepth = 1;
  j.source = "piprov";
  Histogram h;
  for (int i = 0; i < 100; ++i) h.record(static_cast<std::uint64_t>(lat_us * 1000 * (i < 99 ? 1 : 10)));
  DirStats d;
  d.ios = 100;
  d.iops = iops;
  d.bw_bytes = iops * static_cast<double>(bs);
  d.runtime_s = 100 / iops;
  d.lat = LatStats::from_histogram(h);
  (std::string(rw).find("read") != std::string::npos ? j.read : j.write) = d;
  return j;
}

Report two_targets() {
  Report r;
  TargetResult a, b;
  a.label = "/dev/sda";
  b.label = "/dev/mmcblk0";
  a.jobs = {job("randread", 4096, 5000, 200), job("randwrite", 4096, 550, 1800), job("write", 4u << 20, 70, 400000)};
  b.jobs = {job("randread", 4096, 1875, 500), job("randwrite", 4096, 600, 6000), job("write", 4u << 20, 6, 4000000)};
  r.targets = {a, b};
  return r;
}
}  // namespace

TEST(Report, RowsAndRatio) {
  Report r = two_targets();
  auto rows = table_rows(r);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].test, "rand read 4k QD1");
  EXPECT_EQ(rows[2].test, "seq write 4M QD1");
  std::string t = render(r, Format::Table);
  EXPECT_NE(
      t.find("rand read 4k QD1     5000     19.5      0.22      0.20    1875      7.3      0.55      0.50       0.38"),
      std::string::npos)
      << t;
}

TEST(Report, CsvHasOneLinePerTargetAndTest) {
  std::string c = render(two_targets(), Format::Csv);
  EXPECT_EQ(std::count(c.begin(), c.end(), '\n'), 7);
  EXPECT_NE(c.find("\n/dev/mmcblk0,rand read 4k "
                   "QD1,read,randread,4096,1,1,,100,0.0533333,1875,7.32422,7.68,0.545,0.5,5,0.500096,"),
            std::string::npos)
      << c;
  Report r = two_targets();
  r.targets[0].jobs[0].bs = 0, r.targets[0].jobs[0].iodepth = 0;  // an import that did not say
  c = render(r, Format::Csv);
  EXPECT_EQ(c.find(",0,0,"), std::string::npos) << c;
}

TEST(Report, JsonRoundTripKeepsHistograms) {
  Report r = two_targets();
  std::string j = report_to_json(r);
  auto doc = nlohmann::json::parse(j);
  EXPECT_EQ(doc["schema"], "piprov.bench/2");
  EXPECT_FALSE(doc.contains("piprov_bench"));
  EXPECT_EQ(doc["targets"][1]["sd_class"]["class"], "A1");  // 1875 / 600 IOPS, 25.2 MB/s
  EXPECT_EQ(doc["targets"][0]["jobs"][0]["read"]["lat"]["histogram"]["buckets"].size(), 2u);
  Report back = report_from_json(j, "x.json");
  ASSERT_EQ(back.targets.size(), 2u);
  const auto& h = back.targets[1].jobs[0].read->lat.hist;
  ASSERT_TRUE(h);
  EXPECT_EQ(h->count(), 100u);
  EXPECT_DOUBLE_EQ(h->percentile(99.5), r.targets[1].jobs[0].read->lat.hist->percentile(99.5));
  EXPECT_EQ(render(back, Format::Table), render(r, Format::Table));
}

TEST(Report, FiguresKeepTheirSignificantDigits) {
  EXPECT_EQ(fmt_ms(0.004), "0.004");  // 4 us: not 0.00
  EXPECT_EQ(fmt_ms(0.0416), "0.042");
  EXPECT_EQ(fmt_ms(0.16), "0.16");
  EXPECT_EQ(fmt_ms(3.24), "3.2");
  EXPECT_EQ(fmt_ms(250.4), "250");
  EXPECT_EQ(fmt_ms(0), "0.00");
  EXPECT_EQ(fmt_ms(-1), "-");
  EXPECT_EQ(fmt_mib(0.05), "0.050");
  EXPECT_EQ(fmt_iops(2.5), "2.5");
  EXPECT_EQ(fmt_iops(2526.7), "2527");
}

TEST(Report, BadFormatIsUsageError) {
  EXPECT_THROW(parse_format("xml"), piprov::Error);
  EXPECT_THROW(report_from_json("{\"jobs\":[]}", "f"), piprov::Error);
}

// A hand-edited saved run: a field of the wrong type is one Usage error (not
// an uncaught json exception); an absurd float is saturated, not cast (UB).
TEST(Report, DamagedSavedRunIsAUsageErrorOrSaturated) {
  try {
    (void)report_from_json(R"({"piprov_bench": 1, "targets": [{"label": 5, "jobs": []}]})", "edited.json");
    FAIL() << "no error";
  } catch (const piprov::Error& e) {
    EXPECT_EQ(e.kind(), piprov::ErrorKind::Usage);
    EXPECT_EQ(std::string(e.what()).rfind("edited.json: not a piprov bench JSON report as piprov writes it: ", 0), 0u)
        << e.what();
  }
  Report r = report_from_json(
      R"({"piprov_bench": 1, "targets": [{"label": "ssd", "jobs": [{"name": "j", "rw": "read", "bs": 1e300,)"
      R"( "iodepth": -4, "read": {"ios": 2.5, "bytes": -1, "iops": 1}}]}]})",
      "edited.json");
  ASSERT_EQ(r.targets.size(), 1u);
  ASSERT_EQ(r.targets[0].jobs.size(), 1u);
  const JobResult& j = r.targets[0].jobs[0];
  EXPECT_EQ(j.bs, std::uint64_t{1} << 63);
  EXPECT_EQ(j.iodepth, 0u);
  ASSERT_TRUE(j.read);
  EXPECT_EQ(j.read->ios, 2u);
  EXPECT_EQ(j.read->bytes, 0u);
}

TEST(Verdict, Classes) {
  TargetResult t;
  t.label = "/dev/mmcblk0";
  t.jobs = {job("randread", 4096, 4100, 200), job("randwrite", 4096, 2100, 400), job("write", 4u << 20, 3, 1e5)};
  auto v = sd_verdict(t);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->cls, SdClass::A2);  // 3 x 4 MiB/s = 12.6 MB/s >= 10
  t.jobs[1].write->iops = 1999;
  EXPECT_EQ(sd_verdict(t)->cls, SdClass::A1);
  t.jobs[2].write->bw_bytes = 9.9e6;
  EXPECT_EQ(sd_verdict(t)->cls, SdClass::BelowA1);
  t.label = "/dev/sda";
  EXPECT_FALSE(sd_verdict(t));
  EXPECT_EQ(sd_verdict(t, true)->cls, SdClass::BelowA1);
  t.jobs.pop_back();
  EXPECT_EQ(sd_verdict(t, true)->cls, SdClass::Incomplete);
}

TEST(Svg, HasBarsAndPercentilePlots) {
  std::string s = render_svg(two_targets());
  EXPECT_EQ(s.rfind("<svg", 0), 0u);
  EXPECT_NE(s.find("Latency percentiles: /dev/mmcblk0"), std::string::npos);
  EXPECT_EQ(std::count(s.begin(), s.end(), 'p') > 0, true);
  auto polylines = 0;
  for (auto p = s.find("<polyline"); p != std::string::npos; p = s.find("<polyline", p + 1)) ++polylines;
  EXPECT_EQ(polylines, 6);
  EXPECT_NE(s.find("1875 IOPS"), std::string::npos);
}

// Version 1 files ("piprov_bench": 1) are still read, by report_from_json and by `bench import`'s test.
TEST(Report, ReadsBothSchemaTags) {
  std::string v2 = report_to_json(two_targets());
  auto doc = nlohmann::json::parse(v2);
  doc.erase("schema");
  doc["piprov_bench"] = 1;
  const std::string v1 = doc.dump();
  EXPECT_TRUE(looks_like_bench_report(v1));
  EXPECT_TRUE(looks_like_bench_report(v2));
  EXPECT_FALSE(looks_like_bench_report(R"({"fio version": "fio-3.33", "jobs": []})"));
  EXPECT_EQ(report_from_json(v1, "old.json").targets.size(), 2u);
  EXPECT_EQ(report_from_json(v2, "new.json").targets.size(), 2u);
  piprov::test::expect_error(piprov::ErrorKind::Usage, "x.json: not a piprov bench JSON report", [] {
    (void)report_from_json(R"({"schema": "piprov.bench/9", "targets": []})", "x.json");
  });
}
