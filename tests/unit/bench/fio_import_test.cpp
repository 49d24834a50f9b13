// bench import on a Pi 4 USB SSD vs microSD blog post: its eight raw fio outputs must give
// the summary table the post shows (IOPS, BW MiB/s, mean lat ms).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <sstream>

#include "bench/fio/import.hpp"
#include "bench/report.hpp"
#include "support/testsupport.hpp"

using namespace piprov::bench;
namespace fs = std::filesystem;

namespace {

fs::path seed004() { return piprov::test::shared_dir() / "seeds" / "004-pi4-usb-ssd-boot-and-benchmark.txt"; }

struct Cell {
  std::string iops, bw, lat;  // as printed in the post
};

// The post's "Test results" table: section line, then "microSD|SSD<TAB>iops<TAB>bw<TAB>lat".
std::map<std::pair<std::string, std::string>, Cell> doc_table(const std::string& text) {
  std::map<std::pair<std::string, std::string>, Cell> out;
  auto a = text.find("Test results"), b = text.find("Raw test results");
  std::istringstream in(text.substr(a, b - a));
  std::string line, section;
  while (std::getline(in, line)) {
    if (line == "sequential reads" || line == "random reads" || line == "sequential writes" || line == "random writes")
      section = line;
    std::istringstream f(line);
    std::string dev;
    Cell c;
    if (std::getline(f, dev, '\t') && (dev == "microSD" || dev == "SSD") && std::getline(f, c.iops, '\t') &&
        std::getline(f, c.bw, '\t') && std::getline(f, c.lat, '\t'))
      out[{section, dev}] = c;
  }
  return out;
}

// One unit of the last digit printed ("43.3" -> 0.1, "2935" -> 1, "4979.09" -> 0.01).
double unit_of(const std::string& s) {
  auto dot = s.find('.');
  return dot == std::string::npos ? 1.0 : std::pow(10.0, -static_cast<double>(s.size() - dot - 1));
}

bool agrees(double ours, const std::string& doc) { return std::fabs(ours - std::stod(doc)) < unit_of(doc) + 1e-9; }

}  // namespace

TEST(Seed004, ImportReproducesTheSummaryTable) {
  if (!fs::exists(seed004())) PIPROV_SKIP(seed004() << " is not present");
  std::string text = piprov::test::read_file(seed004());
  auto doc = doc_table(text);
  ASSERT_EQ(doc.size(), 8u);

  Report rep = group_imported(parse_fio_output(text, "004.txt"));
  ASSERT_EQ(rep.targets.size(), 2u);
  EXPECT_EQ(rep.targets[0].label, "/dev/sda");
  EXPECT_EQ(rep.targets[1].label, "/dev/mmcblk0");
  const std::map<std::string, std::string> test_of = {{"sequential reads", "seq read 4M QD32"},
                                                      {"random reads", "rand read 4k QD1 sync"},
                                                      {"sequential writes", "seq write 4M QD32"},
                                                      {"random writes", "rand write 4k QD1 sync"}};
  std::vector<std::string> mismatches;
  for (const auto& [key, cell] : doc) {
    const auto& [section, dev] = key;
    const TargetResult& t = rep.targets[dev == "SSD" ? 0 : 1];
    const JobResult* job = nullptr;
    for (const auto& j : t.jobs)
      if (j.test_label() == test_of.at(section)) job = &j;
    ASSERT_NE(job, nullptr) << section << " " << dev;
    const DirStats& d = job->read ? *job->read : *job->write;
    EXPECT_TRUE(agrees(d.iops, cell.iops)) << section << " " << dev << " IOPS " << d.iops << " vs " << cell.iops;
    if (!agrees(d.bw_bytes / 1048576.0, cell.bw)) mismatches.push_back(section + " " + dev + " bw");
    if (!agrees(mean_lat_ms(d), cell.lat)) mismatches.push_back(section + " " + dev + " lat");
  }
  // The post's table has two cells its own raw outputs do not support:
  // microSD random reads "7.5" MiB/s is fio's "BW=7500KiB/s" divided by 1000
  // (7500 KiB/s = 7.32 MiB/s), and SSD sequential writes "336" ms repeats the
  // sequential-read latency (fio printed "lat (msec): ... avg=460.55").
  EXPECT_EQ(mismatches, (std::vector<std::string>{"random reads microSD bw", "sequential writes SSD lat"}));
  const JobResult& sd_rr = rep.targets[1].jobs[2];
  ASSERT_EQ(sd_rr.test_label(), "rand read 4k QD1 sync");
  EXPECT_NEAR(sd_rr.read->bw_bytes, 7500.0 * 1024, 0.5);
  EXPECT_NEAR(sd_rr.read->bw_bytes / 1048576.0, 7.32, 0.005);
  const JobResult& ssd_sw = rep.targets[0].jobs[1];
  ASSERT_EQ(ssd_sw.test_label(), "seq write 4M QD32");
  EXPECT_NEAR(mean_lat_ms(*ssd_sw.write), 460.55, 1e-9);
}

TEST(Seed004, RawFiguresAndSections) {
  if (!fs::exists(seed004())) PIPROV_SKIP(seed004() << " is not present");
  auto jobs = parse_fio_output(piprov::test::read_file(seed004()), "004.txt");
  ASSERT_EQ(jobs.size(), 8u);
  const JobResult& j = jobs[0].job;  // SSD seq read
  EXPECT_EQ(j.source, "fio-3.12 (004.txt)");
  EXPECT_EQ(j.rw, "read");
  EXPECT_EQ(j.bs, 4u << 20);
  EXPECT_EQ(j.iodepth, 32u);
  EXPECT_EQ(j.engine, "libaio");
  EXPECT_TRUE(j.direct);
  EXPECT_FALSE(j.dsync);
  ASSERT_TRUE(j.read);
  EXPECT_FALSE(j.write);
  EXPECT_EQ(j.read->ios, 5688u);
  EXPECT_DOUBLE_EQ(j.read->iops, 94);
  EXPECT_DOUBLE_EQ(j.read->runtime_s, 60.078);
  EXPECT_DOUBLE_EQ(j.read->slat.mean_ns, 10518.14e3);
  EXPECT_DOUBLE_EQ(j.read->clat.min_ns, 69e6);
  EXPECT_DOUBLE_EQ(j.read->lat.mean_ns, 336.73e6);
  EXPECT_DOUBLE_EQ(*j.read->clat.pct(99.99), 447e6);
  EXPECT_EQ(j.read->clat.percentiles.size(), 17u);
  ASSERT_TRUE(j.disk);
  EXPECT_EQ(j.disk->device, "sda");
  EXPECT_EQ(j.disk->read_ios, 45355u);
  EXPECT_EQ(j.disk->time_in_queue_ms, 3033920u);
  EXPECT_TRUE(jobs[2].job.dsync);  // -sync=1 from the command line
  EXPECT_EQ(jobs[4].target, "/dev/mmcblk0");
  EXPECT_EQ(jobs[4].job.source, "fio-3.16 (004.txt)");
  // microSD random write: clat printed in msec percentiles, lat in usec
  const JobResult& w = jobs[7].job;
  EXPECT_DOUBLE_EQ(w.write->iops, 163);
  EXPECT_DOUBLE_EQ(w.write->bw_bytes, 653.0 * 1024);
  EXPECT_DOUBLE_EQ(w.write->lat.mean_ns, 6120.11e3);
  EXPECT_DOUBLE_EQ(*w.write->clat.pct(99.5), 112e6);
}

TEST(Seed004, TableRendering) {
  if (!fs::exists(seed004())) PIPROV_SKIP(seed004() << " is not present");
  Report rep = group_imported(parse_fio_output(piprov::test::read_file(seed004()), "004.txt"));
  std::string t = render(rep, Format::Table);
  EXPECT_NE(t.find("test                    A IOPS  A MiB/s  A lat ms  A p99 ms  B IOPS  B MiB/s  B lat ms  B p99 ms  "
                   "B/A MiB/s\n"
                   "seq read 4M QD32            94      379       337       334      10     43.3      2936      3675   "
                   "    0.11\n"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("rand write 4k QD1 sync     551      2.2       1.8       2.2     163      0.6       6.1      13.0   "
                   "    0.30\n"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("/dev/mmcblk0: SD class below A1 (4k random read 1875 IOPS, 4k random write 163 IOPS, sequential "
                   "write 26.7 MB/s; write IOPS < 500"),
            std::string::npos)
      << t;
  std::string md = render(rep, Format::Markdown);
  EXPECT_NE(md.find("| seq write 4M QD32 | 69 | 277 | 461 | 1217 | 6 | 25.5 | 4979 | 7148 | 0.09 |"), std::string::npos)
      << md;
}
