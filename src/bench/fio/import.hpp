#pragma once
// `piprov bench import`: fio outputs (JSON of fio 2.x/3.x, or the normal text
// format incl. the pre-2.17 layout) into the bench result model.
// Unit rules (fio HOWTO: Interpreting the output; fio JSON output): JSON lat_ns/clat_ns are ns, before fio 2.99
// lat/clat are usec; before fio 2.21 io_bytes is KiB; bw is KiB/s. Text lines
// carry their own unit ("clat (msec)"), numbers may have k/M suffixes
// ("IOPS=18.6k"), and pre-2.17 prints "io=..KB, bw=..KB/s, iops=.., runt=..msec"
// where KB means KiB (kb_base=1024).
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
};

/// Every JSON document in `text` (junk before/between/after is skipped).
/// Throws Error{Usage} on a document that is not fio JSON.
std::vector<ImportedJob> parse_fio_json(std::string_view text, const std::string& source);

/// Every job block of fio's normal output in `text`; unrelated prose, status
/// lines ("Jobs: 1 (f=1) ... [eta ..]") and terse lines are skipped.
std::vector<ImportedJob> parse_fio_text(std::string_view text, const std::string& source);

/// JSON documents when `text` has any, else the normal text format.
std::vector<ImportedJob> parse_fio_output(std::string_view text, const std::string& source);

/// Reads each file (source = its base name) and groups jobs by target in
/// order of appearance; when a target already has a job with the same test
/// label, the job goes to a new column "TARGET #2". Throws Error{Io} when a file
/// cannot be read, Error{Usage} when a file holds no fio results.
Report import_fio_files(const std::vector<std::string>& paths);

/// Groups imported jobs into targets as import_fio_files does.
Report group_imported(const std::vector<ImportedJob>& jobs);

}  // namespace piprov::bench
