// bench import of failed, interrupted and numjobs runs (files 14, 15, 16 of
// ../shared/data/fio) and fio's misprinted bandwidth figures.
#include <gtest/gtest.h>

#include "bench/bench.hpp"
#include "bench/fio/import.hpp"
#include "bench/report.hpp"
#include "support/testsupport.hpp"

using namespace piprov::bench;

namespace {
std::vector<ImportedJob> load_jobs(const std::filesystem::path& p) {
  return parse_fio_output(piprov::test::read_file(p), p.filename().string());
}
}  // namespace

TEST(FioData, FailedJobJsonAfterErrorLines) {
  PIPROV_REQUIRE_SHARED("fio/14_fio-3.33_json_failed-job-error22_preamble.json", f);
  auto jobs = load_jobs(f);
  ASSERT_EQ(jobs.size(), 1u);
  const JobResult& j = jobs[0].job;
  EXPECT_EQ(j.name, "1m");
  EXPECT_EQ(j.err, 22);
  EXPECT_EQ(j.error, "job 1m failed: Invalid argument (fio error 22)");
  EXPECT_FALSE(j.read);  // all-zero sections: no 0 IOPS row
  EXPECT_FALSE(j.write);
  Report r = import_fio_files({f.string()});  // a failed job is a result, not "no fio results"
  ASSERT_EQ(r.targets.size(), 1u);
  EXPECT_EQ(exit_code_of(r), 3);
  EXPECT_TRUE(table_rows(r).empty());
  std::string t = render(r, Format::Table);
  EXPECT_NE(t.find("A job 1m failed: Invalid argument (fio error 22)\n"), std::string::npos) << t;
  EXPECT_EQ(t.find("0.0"), std::string::npos) << t;
}

TEST(FioText, JobFailingBeforeItsBlockAndMidRun) {
  // fio 3.33 without size=: no job block, only the error line (installed fio's output)
  std::string setup =
      "1m: (g=0): rw=write, bs=(R) 1024KiB-1024KiB, (W) 1024KiB-1024KiB, (T) 1024KiB-1024KiB, ioengine=psync, "
      "iodepth=1\nfio-3.33\nStarting 1 process\n1m: you need to specify size=\n"
      "fio: pid=0, err=22/file:filesetup.c:1155, func=total_file_size, error=Invalid argument\n\n\n"
      "Run status group 0 (all jobs):\n";
  auto jobs = parse_fio_output(setup, "s.txt");
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].job.error, "job 1m failed: Invalid argument (fio error 22)");
  EXPECT_EQ(jobs[0].job.test_label(), "seq write 1M QD1");
  std::string mid =
      "w: (groupid=0, jobs=1): err= 5 (file:io_u.c:1845, func=io_u error, error=Input/output error): pid=7: x\n"
      "  write: IOPS=10, BW=40.0KiB/s (41.0kB/s)(400KiB/10000msec)\n";
  jobs = parse_fio_output(mid, "m.txt");
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].job.error, "job w failed: Input/output error (fio error 5)");
  EXPECT_DOUBLE_EQ(jobs[0].job.write->iops, 10);  // what finished is kept
}

TEST(FioData, NumjobsInterruptedOneTargetWithGroupSum) {
  PIPROV_REQUIRE_SHARED("fio/15_fio-3.39_text_randwrite_4jobs_no-group_sigint.txt", f);
  auto jobs = load_jobs(f);
  ASSERT_EQ(jobs.size(), 5u);
  const double iops[] = {2526, 2532, 2535, 2531};
  for (int i = 0; i < 4; ++i) {
    const JobResult& j = jobs[i].job;
    EXPECT_EQ(j.test_label(), "rand write 4k QD16 job " + std::to_string(i + 1) + "/4");
    EXPECT_DOUBLE_EQ(j.write->iops, iops[i]);
    EXPECT_TRUE(j.interrupted);
    EXPECT_EQ(j.interrupt_signal, 2);
  }
  const JobResult& sum = jobs[4].job;
  EXPECT_TRUE(sum.group_sum);
  EXPECT_EQ(sum.test_label(), "rand write 4k QD16 x4");
  EXPECT_EQ(sum.write->ios, 2226350u + 2231695 + 2233955 + 2231139);
  EXPECT_DOUBLE_EQ(sum.write->runtime_s, 881.236);  // the longest job
  // the job rows' IOPS summed, as ../shared/data/README.md names it (ios over the longest runtime would be 10125.6)
  EXPECT_DOUBLE_EQ(sum.write->iops, 2526 + 2532 + 2535 + 2531);
  EXPECT_EQ(fmt_mib(sum.write->bw_bytes / 1048576.0), "39.6");  // group WRITE: bw=39.6MiB/s (41.5MB/s)
  EXPECT_NEAR(sum.write->bw_bytes / 1e6, 41.5, 0.05);
  EXPECT_TRUE(sum.interrupted);
  Report r = group_imported(jobs);
  ASSERT_EQ(r.targets.size(), 1u);  // one target, not "file #2" columns
  EXPECT_EQ(r.targets[0].jobs.size(), 5u);
  std::string t = render(r, Format::Table);
  EXPECT_NE(t.find("rand write 4k QD16 job 4/4"), std::string::npos) << t;
  EXPECT_EQ(t.find("job 1/4: interrupted"), std::string::npos) << t;  // said once, on the sum
  EXPECT_NE(t.find("A rand write 4k QD16 x4: interrupted (fio: terminating on signal 2), partial figures"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("A rand write 4k QD16 x4: sum of the 4 jobs fio reported separately"), std::string::npos) << t;
}

TEST(FioData, NumjobsMisroundedBandwidthShownComputed) {
  PIPROV_REQUIRE_SHARED("fio/16_fio-3.7_text_randrw_4jobs_no-group_misrounded-MiB.txt", f);
  auto jobs = load_jobs(f);
  ASSERT_EQ(jobs.size(), 5u);
  const double riops[] = {3672, 3633, 3594, 3562}, wiops[] = {3662, 3647, 3582, 3577};
  for (int i = 0; i < 4; ++i) {
    const JobResult& j = jobs[i].job;
    EXPECT_EQ(jobs[i].target, "dm-0");
    EXPECT_EQ(j.test_label(), "rand rw 4k QD64 job " + std::to_string(i + 1) + "/4");
    EXPECT_DOUBLE_EQ(j.read->iops, riops[i]);
    EXPECT_DOUBLE_EQ(j.write->iops, wiops[i]);
    EXPECT_EQ(j.read->bw_printed, 0) << i;  // every read figure agrees with io / runtime
    EXPECT_EQ(j.write->bw_printed > 0, i >= 2) << i;
  }
  // jobs 3 and 4: BW=13.0MiB/s (14.7MB/s) for 420MiB and 419MiB in 30001 ms
  EXPECT_EQ(jobs[2].job.write->bw_printed_text, "13.0MiB/s");
  EXPECT_DOUBLE_EQ(jobs[2].job.write->bw_printed, 13.0 * 1048576);
  EXPECT_EQ(fmt_mib(jobs[2].job.write->bw_bytes / 1048576.0), "14.0");
  EXPECT_EQ(fmt_mib(jobs[3].job.write->bw_bytes / 1048576.0), "14.0");
  EXPECT_NEAR(jobs[2].job.write->bw_bytes / 1e6, 14.7, 0.05);  // fio's decimal figure was right
  EXPECT_NEAR(jobs[2].job.write->iops * 4096 / 1048576.0, 14.0, 0.05);
  const JobResult& sum = jobs[4].job;
  EXPECT_EQ(sum.test_label(), "rand rw 4k QD64 x4");
  EXPECT_EQ(fmt_mib(sum.read->bw_bytes / 1048576.0), "56.5");
  EXPECT_EQ(fmt_mib(sum.write->bw_bytes / 1048576.0), "56.5");
  EXPECT_EQ(sum.read->ios, 110186u + 109022 + 107825 + 106887);
  EXPECT_EQ(sum.write->ios, 109879u + 109439 + 107483 + 107319);
  Report r = group_imported(jobs);
  ASSERT_EQ(r.targets.size(), 1u);
  EXPECT_EQ(r.targets[0].label, "dm-0");
  std::string t = render(r, Format::Table);
  EXPECT_NE(t.find("A rand rw 4k QD64 job 3/4 write: fio printed BW=13.0MiB/s but its io / runtime is 14.0 MiB/s"),
            std::string::npos)
      << t;
  EXPECT_EQ(t.find("dm-0 #2"), std::string::npos) << t;
  // the correction survives a saved JSON report
  Report back = report_from_json(report_to_json(r), "r.json");
  EXPECT_EQ(back.targets[0].jobs[2].write->bw_printed_text, "13.0MiB/s");
  EXPECT_EQ(back.targets[0].jobs[4].test_label(), "rand rw 4k QD64 x4");
  EXPECT_TRUE(back.targets[0].jobs[0].interrupted == false);
}

// 08's bs=2300 run printed "BW=5205KiB/s (5330kB/s)(21.0MiB/4328msec)": the io
// is the misrounded figure (2317 IOPS x 2300 B x 4.328 s is 22 MiB), the BW agrees
// with its decimal figure and stays.
TEST(FioData, OtherFilesHaveNoBandwidthCorrection) {
  for (const char* name : {"fio/05_fio-3.1_text_randrw_rwmixread40_slat-nsec-k-suffix_with-ETA-status-noise.txt",
                           "fio/08_fio-3.25_text_write_fdatasync1_sync-section_nsec-usec-msec_IOPS-18.6k.txt",
                           "fio/13_fio-3.32_terse+normal_randread_psync.txt",
                           "fio/15_fio-3.39_text_randwrite_4jobs_no-group_sigint.txt"}) {
    PIPROV_REQUIRE_SHARED(name, f);
    for (const auto& j : load_jobs(f)) {
      if (j.job.read) EXPECT_EQ(j.job.read->bw_printed, 0) << name << " " << j.job.test_label();
      if (j.job.write) EXPECT_EQ(j.job.write->bw_printed, 0) << name << " " << j.job.test_label();
    }
  }
}

TEST(FioData, SyncSectionCountAndKind) {
  PIPROV_REQUIRE_SHARED("fio/08_fio-3.25_text_write_fdatasync1_sync-section_nsec-usec-msec_IOPS-18.6k.txt", f);
  auto jobs = load_jobs(f);
  ASSERT_GE(jobs.size(), 2u);
  // fio 3.25 counted fdatasync calls in the first short= slot: 5632 writes, 5631 syncs
  EXPECT_EQ(jobs[0].job.sync_ios, 5631u);
  EXPECT_EQ(jobs[0].job.sync_kind, "fdatasync");
  EXPECT_EQ(jobs[1].job.sync_kind, "fdatasync");  // --fdatasync=1 on its command line
  Report r = group_imported({jobs[1]});
  std::string t = render(r, Format::Table);
  EXPECT_NE(t.find(": sync (fdatasync) 5631 calls, mean 10.4 ms"), std::string::npos) << t;
}

TEST(FioJson, SyncCountFromLatencySamplesAndKindFromOptions) {
  std::string text =
      "{\"fio version\": \"fio-3.33\", \"jobs\": [{\"jobname\": \"s\", \"error\": 0,"
      " \"job options\": {\"rw\": \"write\", \"bs\": \"4k\", \"fdatasync\": \"1\"},"
      " \"write\": {\"io_bytes\": 1048576, \"bw_bytes\": 577000, \"iops\": 140.9, \"runtime\": 1816,"
      " \"total_ios\": 256},"
      " \"sync\": {\"total_ios\": 0, \"lat_ns\": {\"min\": 223768, \"max\": 39645657, \"mean\": 7094188.7,"
      " \"stddev\": 5549930.9, \"N\": 255}}}]}\n";
  auto jobs = parse_fio_output(text, "s.json");
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].job.sync_ios, 255u);
  EXPECT_EQ(jobs[0].job.sync_kind, "fdatasync");
  EXPECT_EQ(jobs[0].job.sync_label(), "fdatasync");
}

TEST(FioJson, InterruptedRunAndDuplicateKeys) {
  // fio 2.x repeats keys in percentile maps; a signal line before the document marks its jobs
  std::string text =
      "fio: terminating on signal 15\n"
      "{\"fio version\": \"fio-2.2.10\", \"jobs\": [{\"jobname\": \"r\", \"error\": 0,"
      " \"read\": {\"io_bytes\": 400, \"bw\": 40, \"iops\": 10, \"runtime\": 10000,"
      " \"clat\": {\"min\": 1, \"max\": 9, \"mean\": 5, \"stddev\": 1,"
      " \"percentile\": {\"99.000000\": 8, \"0.00\": 0, \"0.00\": 0, \"99.000000\": 8}}}}]}\n";
  auto jobs = parse_fio_output(text, "i.json");
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_TRUE(jobs[0].job.interrupted);
  EXPECT_EQ(jobs[0].job.interrupt_signal, 15);
  EXPECT_DOUBLE_EQ(*jobs[0].job.read->clat.pct(99.0), 8000);
  EXPECT_EQ(jobs[0].job.read->bytes, 400u * 1024);  // KiB before fio 2.21
}

// fio's own error text is what is shown (fio on Windows numbers EILSEQ 42, which Linux's table
// calls ENOMSG); a verify failure is named.
TEST(FioText, FiosOwnErrorTextAndVerifyFailure) {
  std::string win =
      "v: (groupid=0, jobs=1): err=42 (file:io_u.c:2224, func=io_u error, error=Illegal byte sequence): pid=9: x\n"
      "  write: IOPS=10, BW=40.0KiB/s (41.0kB/s)(400KiB/10000msec)\n";
  auto jobs = parse_fio_output(win, "w.txt");
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].job.err, 42);
  EXPECT_EQ(jobs[0].job.error, "job v failed: Illegal byte sequence (fio error 42)");
  std::string verify =
      "verify: bad magic header 0, wanted acca at file /dev/sdb offset 0, length 4096 (requested block: offset=0, "
      "length=4096)\n"
      "fio: pid=77, err=84/file:io_u.c:2224, func=io_u error, error=Invalid or incomplete multibyte or wide character\n"
      "v: (groupid=0, jobs=1): err=84 (file:io_u.c:2224, func=io_u error, error=Invalid or incomplete multibyte or "
      "wide character): pid=77: x\n"
      "  read: IOPS=10, BW=40.0KiB/s (41.0kB/s)(400KiB/10000msec)\n";
  jobs = parse_fio_output(verify, "v.txt");
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].job.error,
            "job v failed: fio's verify read back data that differs from what it wrote (verify: bad magic header 0, "
            "wanted acca at file /dev/sdb offset 0, length 4096 (requested block: offset=0, length=4096)); Invalid or "
            "incomplete multibyte or wide character (fio error 84)");
  EXPECT_EQ(fio_verify_failure("crc32c: verify failed at file /dev/sdb offset 4096, length 4096\n"),
            "crc32c: verify failed at file /dev/sdb offset 4096, length 4096");
  EXPECT_EQ(fio_verify_failure("  write: IOPS=10\n"), "");
}
