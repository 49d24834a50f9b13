#pragma once
// `piprov bench import`: fio outputs (JSON of fio 2.x/3.x, or the normal text
// format incl. the pre-2.17 layout) into the bench result model.
// Unit rules (fio HOWTO: Interpreting the output; fio JSON output): JSON lat_ns/clat_ns are ns, before fio 2.99
// lat/clat are usec; before fio 2.21 io_bytes is KiB; bw is KiB/s. Text lines
// carry their own unit ("clat (msec)"), numbers may have k/M suffixes
// ("IOPS=18.6k"), and pre-2.17 prints "io=..KB, bw=..KB/s, iops=.., runt=..msec"
// where KB means KiB (kb_base=1024).
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "bench/result.hpp"

namespace piprov::bench {

/// One job found in a fio output and the target it ran on: the fio
/// `filename` (from the JSON options or the command line printed just before
/// the run), else the "Disk stats" device, else `source`.
struct ImportedJob {
  std::string target;
  JobResult job;
  std::size_t run = 0;            ///< which fio run of the input (jobs of one run share it)
  bool agnostics_report = false;  ///< a row of an agnostics sdtest.sh report (parse_agnostics_report)
};

/// Every JSON document in `text` (junk before/between/after is skipped).
/// Throws Error{Usage} on a document that is not fio JSON.
std::vector<ImportedJob> parse_fio_json(std::string_view text, const std::string& source);

/// Every job block of fio's normal output in `text`; unrelated prose, status
/// lines ("Jobs: 1 (f=1) ... [eta ..]") and terse lines are skipped.
std::vector<ImportedJob> parse_fio_text(std::string_view text, const std::string& source);

/// Every terse line (`--minimal`, `--output-format=terse`; versions 2 to 5)
/// in `text`, other lines skipped. Field positions: fio HOWTO "Terse output":
/// version, [v3+: fio version], job name, group id, error, then a READ, WRITE
/// and (v2, v4, v5) TRIM block of 41 fields (v5: 47): io KiB, bw KiB/s, IOPS,
/// runtime ms, slat, clat (usec), 20 clat percentiles "P%=usec", lat, bw
/// stats; then CPU, IO depths, latency buckets and (v3+) disk utilization.
/// Terse lines carry no rw/bs: jobs are labelled by name; the target is the
/// disk of the line (v3+), else `source`.
std::vector<ImportedJob> parse_fio_terse(std::string_view text, const std::string& source);

/// The report of Raspberry Pi's SD card test (raspberrypi-ui/agnostics
/// `sdtest.sh`): lines "NAME;read bw KiB/s;read IOPS;write bw KiB/s;write IOPS"
/// (terse fields 3, 7, 8, 48, 49 of fio's terse v3 output), "Run N" lines
/// between retries. Recognised only next to sdtest's verdict lines ("... speed
/// N KB/sec (target N) - PASS") or with agnostics' job names (data/sd_bench.fio:
/// prepare-file, seq-write, rand-4k-write, rand-4k-read, seq-read), whose
/// rw, bs, iodepth 4, libaio and direct=1 are filled in. Empty when not such a report.
std::vector<ImportedJob> parse_agnostics_report(std::string_view text, const std::string& source);

/// What an agnostics sdtest.sh report `text` lacks: the rows every version of
/// sd_bench.fio prints (prepare-file, seq-write, rand-4k-write, rand-4k-read)
/// that a run is missing, e.g. "run 2 has no rand-4k-write, rand-4k-read rows"
/// ("no ... rows" without "Run N" lines; runs joined with "; "). "" when every
/// run has them all. A report cut short (a paste, a test stopped) leaves the
/// verdict INCOMPLETE: `bench import` refuses it (import_fio_files()).
std::string agnostics_missing_rows(std::string_view text);

/// numjobs=N without group_reporting: fio reports each job separately, with the
/// same name. Consecutive jobs of one run with the same name and target become
/// clones "job i/N" (numjobs 1 each) followed by their group sum (numjobs N):
/// IOPS the sum of the jobs' IOPS, ios summed, bytes over the longest runtime
/// (fio's group_reporting rule for bandwidth),
/// latency mean and stdev pooled, min/max over the jobs, no percentiles.
void fold_numjobs_clones(std::vector<ImportedJob>& jobs);

/// The message of a fio job that ended with error `err`: fio's own text when its output has it
/// ("job 1m failed: Invalid argument (fio error 22)"), never the number looked up in this
/// machine's errno table (fio on another system numbers errors its own way: 42 is EILSEQ on
/// Windows, ENOMSG on Linux); "job 1m failed: fio error 22 (its text is not in this output)"
/// without it. With `verify` (a verify failure line of fio's output, "verify: bad magic header
/// ..."), the failure is named as one: fio read back data that differs from what it wrote.
std::string job_failure(const std::string& name, int err, const std::string& fio_text = "",
                        const std::string& verify = "");

/// fio's error texts in `text`, by error number: from "fio: pid=N, err=22/file:..., error=Invalid
/// argument" lines and from job lines "err=84 (file:..., error=Illegal byte sequence)".
std::map<int, std::string> fio_error_texts(std::string_view text);
/// The first verify failure fio printed in `text` ("verify: bad magic header 0, wanted acca at
/// file /dev/sdb offset 0, length 4096", "crc32c: verify failed at file ..."), "" when none
/// (fio HOWTO: verify; fio ends such a job with EILSEQ).
std::string fio_verify_failure(std::string_view text);

/// JSON documents when `text` has any (a "fio: terminating on signal N" line
/// before a document marks its jobs interrupted); else the normal text format
/// with any terse lines (a terse line of a job the text also reports is not
/// counted twice); else terse lines alone; else an agnostics report. Then
/// fold_numjobs_clones(). Failed jobs (fio error / err= N) are kept with
/// JobResult::err and error = job_failure() with fio's own text (fio_error_texts()) and, for a
/// verify failure, the line that names it (fio_verify_failure()).
std::vector<ImportedJob> parse_fio_output(std::string_view text, const std::string& source);

/// Reads each file (source = its base name; "-" reads standard input, source
/// "stdin") and groups jobs by target in order of appearance; when a target
/// already has a job with the same test label, the job goes to a new column
/// "TARGET #2". Throws Error{Io} when a file cannot be read, Error{Usage} when
/// a file holds no fio results (a failed job is a result: see exit_code_of())
/// or is an agnostics report with rows missing (agnostics_missing_rows()).
Report import_fio_files(const std::vector<std::string>& paths);

/// Groups imported jobs into targets as import_fio_files does.
Report group_imported(const std::vector<ImportedJob>& jobs);

}  // namespace piprov::bench
