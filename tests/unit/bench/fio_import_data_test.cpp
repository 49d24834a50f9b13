// bench import on the fio outputs in ../shared/data/fio (fio 2.1 .. 3.25,
// json and text): each file's parsed figures, checked against the file.
#include <gtest/gtest.h>

#include "bench/fio/import.hpp"
#include "bench/report.hpp"
#include "core/error.hpp"
#include "support/testsupport.hpp"

using namespace piprov::bench;

namespace {
std::vector<ImportedJob> load(const std::filesystem::path& p) {
  return parse_fio_output(piprov::test::read_file(p), p.filename().string());
}
}  // namespace

TEST(FioData, Json214UsecLatenciesAndKiBIoBytes) {
  PIPROV_REQUIRE_SHARED("fio/02_fio-2.1.4_json_usec-latencies_io_bytes-is-KiB.json", f);
  auto jobs = load(f);
  ASSERT_EQ(jobs.size(), 5u);
  const JobResult& w = jobs[0].job;
  EXPECT_EQ(jobs[0].target, "sdb");  // no filename option in 2.1.4 JSON: the disk_util device
  EXPECT_EQ(w.name, "sequential_write");
  EXPECT_EQ(w.test_label(), "sequential_write");  // rw unknown in 2.1.4 JSON
  EXPECT_FALSE(w.read);                           // zero read section dropped
  ASSERT_TRUE(w.write);
  EXPECT_EQ(w.write->bytes, 361984ull * 1024);  // io_bytes is KiB before 2.21
  EXPECT_DOUBLE_EQ(w.write->bw_bytes, 68118.0 * 1024);
  EXPECT_DOUBLE_EQ(w.write->iops, 133);
  EXPECT_DOUBLE_EQ(w.write->runtime_s, 5.314);
  EXPECT_DOUBLE_EQ(w.write->lat.mean_ns, 478737.47e3);  // usec -> ns
  EXPECT_DOUBLE_EQ(w.write->clat.min_ns, 189263e3);
  EXPECT_DOUBLE_EQ(*w.write->clat.pct(99.0), 823296e3);
  EXPECT_EQ(w.write->clat.percentiles.size(), 19u);  // 2.1.4 lists 19; the "0.00" placeholders are skipped
  EXPECT_EQ(jobs[1].job.name, "sequential_read");
  EXPECT_DOUBLE_EQ(jobs[1].job.read->iops, 253);
  EXPECT_EQ(jobs[4].job.name, "random_read_test_parallel");
}

TEST(FioData, Text31RandrwWithStatusNoise) {
  PIPROV_REQUIRE_SHARED("fio/05_fio-3.1_text_randrw_rwmixread40_slat-nsec-k-suffix_with-ETA-status-noise.txt", f);
  auto jobs = load(f);
  ASSERT_EQ(jobs.size(), 1u);
  const JobResult& j = jobs[0].job;
  EXPECT_EQ(jobs[0].target, "test4K-rw-aio");
  EXPECT_EQ(j.test_label(), "rand rw 4k QD4");
  EXPECT_EQ(j.source.substr(0, 8), "fio-3.1 ");
  ASSERT_TRUE(j.read && j.write);
  EXPECT_DOUBLE_EQ(j.read->iops, 1229);
  EXPECT_DOUBLE_EQ(j.read->bw_bytes, 4917.0 * 1024);
  EXPECT_EQ(j.read->bytes, 1440ull << 20);
  EXPECT_DOUBLE_EQ(j.read->runtime_s, 300.002);
  EXPECT_DOUBLE_EQ(j.read->slat.max_ns, 1495.2e3);  // "max=1495.2k" nsec
  EXPECT_DOUBLE_EQ(j.read->lat.mean_ns, 972.95e3);
  EXPECT_DOUBLE_EQ(j.write->iops, 1840);
  EXPECT_DOUBLE_EQ(j.write->slat.max_ns, 1425.3e3);
  EXPECT_DOUBLE_EQ(*j.write->clat.pct(99.99), 26084e3);
  EXPECT_EQ(j.read->ios, 368744u);
  EXPECT_EQ(j.write->ios, 552248u);
  ASSERT_TRUE(j.disk);
  EXPECT_EQ(j.disk->write_merges, 14u);
}

TEST(FioData, Text31TwoRunsInOneFile) {
  PIPROV_REQUIRE_SHARED("fio/06_fio-3.1_text_seqwrite-seqread_libaio_usec.txt", f);
  auto jobs = load(f);
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].job.test_label(), "seq write 4k QD4");
  EXPECT_DOUBLE_EQ(jobs[0].job.write->iops, 3068);
  // fio 3.1 printed BW=11.0MiB/s (12.6MB/s) for 4096MiB in 341704 ms: the
  // misrounded MiB/s figure is replaced by io / runtime (12.0 MiB/s)
  EXPECT_EQ(jobs[0].job.write->bw_printed_text, "11.0MiB/s");
  EXPECT_DOUBLE_EQ(jobs[0].job.write->bw_bytes, 4096.0 * 1048576 / 341.704);
  EXPECT_EQ(fmt_mib(jobs[0].job.write->bw_bytes / 1048576.0), "12.0");
  EXPECT_EQ(jobs[1].job.read->bw_printed_text, "11.0MiB/s");  // 3598MiB in 300002 ms, (12.6MB/s)
  EXPECT_EQ(jobs[0].job.write->ios, 1048576u);
  EXPECT_EQ(jobs[1].job.test_label(), "seq read 4k QD4");
  EXPECT_DOUBLE_EQ(jobs[1].job.read->iops, 3070);
  EXPECT_DOUBLE_EQ(jobs[1].job.read->slat.min_ns, 1430);
  EXPECT_EQ(jobs[1].job.disk->read_ios, 920720u);
  EXPECT_EQ(jobs[0].job.disk->write_ios, 1048453u);  // each run keeps its own Disk stats
  Report r = group_imported(jobs);
  ASSERT_EQ(r.targets.size(), 1u);  // same file, different tests: one column
}

TEST(FioData, Text325SyncSectionsAndKSuffix) {
  PIPROV_REQUIRE_SHARED("fio/08_fio-3.25_text_write_fdatasync1_sync-section_nsec-usec-msec_IOPS-18.6k.txt", f);
  auto jobs = load(f);
  ASSERT_EQ(jobs.size(), 15u);           // 15 "(groupid=" blocks
  const JobResult& first = jobs[0].job;  // its command line is far above (in a code block): not applied
  EXPECT_DOUBLE_EQ(first.write->iops, 4801);
  EXPECT_DOUBLE_EQ(first.write->clat.mean_ns, 13462.14);
  ASSERT_TRUE(first.sync);
  EXPECT_DOUBLE_EQ(first.sync->mean_ns, 192.48e3);
  EXPECT_DOUBLE_EQ(*first.sync->pct(99.0), 260e3);
  const JobResult& slow = jobs[1].job;
  EXPECT_EQ(jobs[1].target, "test-data");
  EXPECT_EQ(slow.fsync, 1u);                      // --fdatasync=1 from "user@host# fio ..."
  EXPECT_DOUBLE_EQ(slow.sync->mean_ns, 10.45e6);  // sync (msec)
  bool found = false;
  for (const auto& j : jobs)
    if (j.target == "/dev/nvme1n1") {
      found = true;
      EXPECT_DOUBLE_EQ(j.job.write->iops, 18600);  // "IOPS=18.6k"
      EXPECT_DOUBLE_EQ(j.job.write->bw_bytes, 72.8 * 1048576);
      EXPECT_DOUBLE_EQ(j.job.write->runtime_s, 0.302);
    }
  EXPECT_TRUE(found);
}

TEST(FioData, HowtoGroupDiskstatsTerse) {
  PIPROV_REQUIRE_SHARED("fio/11_fio-HOWTO-doc_examples_normal-group-diskstats-terse-v2.txt", f);
  auto jobs = load(f);
  ASSERT_EQ(jobs.size(), 1u);
  const JobResult& j = jobs[0].job;
  EXPECT_EQ(j.name, "Client1");
  EXPECT_EQ(jobs[0].target, "sda");
  EXPECT_DOUBLE_EQ(j.write->iops, 88);
  EXPECT_DOUBLE_EQ(j.write->bw_bytes, 623.0 * 1024);
  EXPECT_DOUBLE_EQ(j.write->slat.max_ns, 145500);
  EXPECT_EQ(j.write->ios, 4450u);
  ASSERT_TRUE(j.disk);
  EXPECT_EQ(j.disk->read_sectors, 32321u);
  EXPECT_EQ(j.disk->write_sectors, 65472u);
}

// fio before 2.17 printed "read : io=..KB, bw=..KB/s, iops=.., runt=..msec"
// (KB meaning KiB). This sample is fio 2.1's documented layout (HOWTO of that
// era); no such output is in ../shared/data.
TEST(FioText, Pre217Layout) {
  const char* text =
      "Some prose before the run.\n"
      "$ fio --name=seqw --rw=write --bs=512k --iodepth=16 --ioengine=libaio --filename=/dev/sdb --direct=1\n"
      "seqw: (g=0): rw=write, bs=512K-512K/512K-512K/512K-512K, ioengine=libaio, iodepth=16\n"
      "fio-2.1.3\n"
      "Starting 1 process\n"
      "Jobs: 1 (f=1): [W] [100.0% done] [0KB/102.4MB/0KB /s] [0/200/0 iops] [eta 00m:00s]\n"
      "seqw: (groupid=0, jobs=1): err= 0: pid=4212: Tue Oct  1 10:00:00 2013\n"
      "  write: io=6144.0MB, bw=104857KB/s, iops=204, runt= 60001msec\n"
      "    slat (usec): min=20, max=1200, avg=45.10, stdev=12.00\n"
      "    clat (msec): min=10, max=300, avg=78.10, stdev=20.00\n"
      "     lat (msec): min=10, max=300, avg=78.15, stdev=20.00\n"
      "    clat percentiles (msec):\n"
      "     |  1.00th=[   40],  5.00th=[   50], 10.00th=[   60], 20.00th=[   70],\n"
      "     | 99.00th=[  200], 99.50th=[  250], 99.90th=[  290], 99.95th=[  300],\n"
      "     | 99.99th=[  300]\n"
      "    bw (KB  /s): min=50000, max=120000, per=100.00%, avg=104000.00, stdev=9000.00\n"
      "    lat (msec) : 50=5.00%, 100=90.00%, 250=4.90%, 500=0.10%\n"
      "  cpu          : usr=1.00%, sys=2.00%, ctx=12000, majf=0, minf=20\n"
      "  IO depths    : 1=0.1%, 2=0.1%, 4=0.1%, 8=0.1%, 16=99.9%, 32=0.0%, >=64=0.0%\n"
      "     issued    : total=r=0/w=12288/d=0, short=r=0/w=0/d=0\n"
      "\n"
      "Run status group 0 (all jobs):\n"
      "  WRITE: io=6144.0MB, aggrb=104857KB/s, minb=104857KB/s, maxb=104857KB/s, mint=60001msec, maxt=60001msec\n"
      "\n"
      "Disk stats (read/write):\n"
      "  sdb: ios=0/12280, merge=0/0, ticks=0/958000, in_queue=958100, util=99.90%\n"
      "More prose after.\n";
  auto jobs = parse_fio_text(text, "old.txt");
  ASSERT_EQ(jobs.size(), 1u);
  const JobResult& j = jobs[0].job;
  EXPECT_EQ(jobs[0].target, "/dev/sdb");
  EXPECT_EQ(j.test_label(), "seq write 512k QD16");
  EXPECT_EQ(j.source, "fio-2.1.3 (old.txt)");
  EXPECT_EQ(j.write->bytes, 6144ull << 20);
  EXPECT_DOUBLE_EQ(j.write->bw_bytes, 104857.0 * 1024);
  EXPECT_DOUBLE_EQ(j.write->iops, 204);
  EXPECT_DOUBLE_EQ(j.write->runtime_s, 60.001);
  EXPECT_EQ(j.write->ios, 12288u);
  EXPECT_DOUBLE_EQ(j.write->lat.mean_ns, 78.15e6);
  EXPECT_DOUBLE_EQ(*j.write->clat.pct(99.0), 200e6);
  EXPECT_EQ(j.disk->write_ios, 12280u);
}

TEST(FioJson, JunkBeforeAndAfterIsSkipped) {
  std::string text =
      "fio: this platform does not support process shared mutexes, forcing use of threads. {not json}\n"
      "{\n  \"fio version\" : \"fio-3.33\",\n  \"jobs\" : [ { \"jobname\" : \"j\", \"error\" : 0,\n"
      "  \"job options\" : { \"rw\" : \"randread\", \"bs\" : \"4k\", \"filename\" : \"/dev/x\" },\n"
      "  \"read\" : { \"io_bytes\" : 4096000, \"io_kbytes\" : 4000, \"bw_bytes\" : 4096000, \"bw\" : 4000,"
      " \"iops\" : 1000.0, \"runtime\" : 1000, \"total_ios\" : 1000,"
      " \"lat_ns\" : { \"min\" : 1, \"max\" : 9, \"mean\" : 5000.5, \"stddev\" : 1, \"N\" : 1000 } } } ]\n}\n"
      "trailing words\n";
  auto jobs = parse_fio_output(text, "x.json");
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].target, "/dev/x");
  EXPECT_EQ(jobs[0].job.test_label(), "rand read 4k QD1");
  EXPECT_EQ(jobs[0].job.read->bytes, 4096000u);
  EXPECT_DOUBLE_EQ(jobs[0].job.read->lat.mean_ns, 5000.5);
  EXPECT_EQ(jobs[0].job.read->lat.samples, 1000u);
}

// Numbers fio never prints (found by fuzz_bench_import: a disk line with a
// 37-digit ios= made std::stoull throw out of bench import) stop the import
// with one error naming the file and line, in text and JSON alike.
TEST(FioText, OutOfRangeNumberNamesFileAndLine) {
  std::string text =
      "seqw: (groupid=0, jobs=1): err= 0: pid=1: Tue Oct  1 10:00:00 2013\n"
      "  write: IOPS=204, BW=102MiB/s (107MB/s)(6144MiB/60001msec)\n"
      "Disk stats (read/write):\n"
      "  sdb: ios=0/2555555555555555555555555555555555550, merge=0/0, ticks=0/958000, in_queue=958100, "
      "util=99.90%\n";
  try {
    (void)parse_fio_output(text, "big.txt");
    FAIL() << "no error";
  } catch (const piprov::Error& e) {
    EXPECT_EQ(e.kind(), piprov::ErrorKind::Usage);
    EXPECT_EQ(std::string(e.what()),
              "big.txt:4: '2555555555555555555555555555555555550' is not a number fio prints (out of range or "
              "malformed); give fio's unedited output");
  }
  // An io= of 1e23 MiB would overflow the byte count: refused too.
  std::string huge = text.substr(0, text.find("Disk stats"));
  huge.replace(huge.find("6144MiB"), 7, "99999999999999999999999MiB");
  EXPECT_THROW((void)parse_fio_output(huge, "huge.txt"), piprov::Error);
}

TEST(FioJson, OutOfRangeValueNamesFileAndField) {
  std::string text =
      "{\"fio version\": \"fio-3.33\", \"jobs\": [{\"jobname\": \"j\", \"error\": 0,"
      " \"job options\": {\"rw\": \"read\", \"bs\": \"1M\"},"
      " \"read\": {\"io_bytes\": 1e308, \"bw_bytes\": 1, \"iops\": 1, \"runtime\": 1}}]}\n";
  try {
    (void)parse_fio_output(text, "big.json");
    FAIL() << "no error";
  } catch (const piprov::Error& e) {
    EXPECT_EQ(e.kind(), piprov::ErrorKind::Usage);
    EXPECT_EQ(std::string(e.what()),
              "big.json: fio JSON field \"io_bytes\" = 1e+308 is not a value fio prints (out of range); give fio's "
              "unedited output");
  }
}
