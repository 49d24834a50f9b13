#pragma once
// The fleet model of `piprov report`: per host, the checks (boot check, eeprom
// check, or a run that failed before it produced a result) and the bench
// figures, read from piprov's own --json outputs. Accepted documents:
//   boot check --json     "schema": "piprov.boot.check/2" to "/5" (docs/boot.md)
//   eeprom check --json   "schema": "piprov.eeprom.check/1" (docs/eeprom.md)
//   bench --json          "schema": "piprov.bench/2", or version 1's "piprov_bench": 1 (docs/bench.md)
//   a failed run          "schema": "piprov.report.failed/1":
//                         {"check", "exit_code", "error"} (docs/fleet.md; what the
//                         fleet playbook writes when piprov could not produce a result)
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fleet/input.hpp"

namespace piprov::fleet {

/// The finding (or error line) a row shows first.
struct Problem {
  std::string rule;     ///< finding rule id; "" for a failed run
  std::string message;  ///< the finding's message, or piprov's error line
};

/// Which piprov command a check's result came from.
enum class CheckKind {
  BootCheck,    ///< "boot check"
  EepromCheck,  ///< "eeprom check"
  Bench,        ///< "bench" (a failed run: its figures are in Host::bench otherwise)
  Other,        ///< "piprov": a failed-run record that names no known check
};

/// "boot check", "eeprom check", "bench", "piprov" (the "check" of report --json).
std::string_view check_kind_name(CheckKind k);

/// One check of one host.
struct Check {
  CheckKind kind = CheckKind::Other;
  std::string path;    ///< file it was read from
  std::string schema;  ///< e.g. "piprov.boot.check/5"
  bool ran = true;     ///< false: piprov failed before it produced a result (piprov.report.failed/1)
  int exit_code = 0;   ///< piprov's exit code (0 ok, 1 findings, 2 usage, 3 I/O, ...)
  int errors = 0, warnings = 0, infos = 0;
  std::optional<Problem> first;  ///< first error; else first warning when exit_code is 1; else the error line
  // boot check (layout only from schemas /3 and /4; "" when absent)
  std::string layout, release, board;
  std::optional<bool> usb_boot;
  // eeprom check
  std::string boot_order, boot_order_words;
};

/// One bench figure of a target: IOPS for random tests, MiB/s (2^20 B/s) otherwise.
struct Figure {
  std::string test;   ///< bench's test label, "seq read 4M QD32" (+ " (read)" for mixed jobs)
  std::string unit;   ///< "IOPS" | "MiB/s"
  double value = -1;  ///< -1 when the job failed
  double iops = -1, mib_s = -1;
  std::string error;  ///< the job's (or target's) error; "" when measured
};

/// One bench target of a host.
struct BenchTarget {
  std::string label;  ///< the TARGET as given to piprov bench
  std::string path;   ///< file it was read from
  std::string error;  ///< the target failed mid-run ("" when not)
  /// The first failing line of the target's agnostics verdict (bench exits 1 on it), "" when it passed or has none.
  std::string verdict_failure;
  std::vector<Figure> figures;
};

struct Host {
  std::string name;
  std::vector<Check> checks;
  std::vector<BenchTarget> bench;
  /// True when a check did not run or found problems (exit code not 0), or a
  /// bench target or job failed, or a target failed the agnostics thresholds.
  bool failed() const;
};

/// Hosts in order of first appearance on the command line.
struct Fleet {
  std::vector<Host> hosts;
  std::size_t failed_count() const;
};

/// Adds one document (the text of `file.path`) to `fleet`. Throws
/// Error{Usage} "<path>: not JSON ..." or "<path>: unknown schema ..." naming
/// what is accepted (the list above), or "<host>: two boot check results ..."
/// when a host already has a result of that check (one row per host must not
/// mix two runs; bench files may be several: each adds its targets).
void add_document(Fleet& fleet, const InputFile& file, std::string_view text);

/// Reads and adds every file (core read_file; its Io/Usage errors pass through).
Fleet load_fleet(const std::vector<InputFile>& files);

/// 1 (ErrorKind::Check) when a host failed, else 0.
int fleet_exit_code(const Fleet& fleet);

}  // namespace piprov::fleet
