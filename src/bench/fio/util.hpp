#pragma once
// Small helpers shared by the fio JSON and text importers (internal).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bench/result.hpp"

namespace piprov::bench {

/// "fio-3.12" / "fio-2.1.4" / "fio-3.33-12-gabc" -> major/minor.
struct FioVersion {
  std::string text;
  int major = -1, minor = -1;
  bool known() const { return major >= 0; }
  bool before(int ma, int mi) const { return major < ma || (major == ma && minor < mi); }
  static FioVersion parse(std::string_view s);
};

/// fio job options by name (command line or JSON "job options").
struct FioOptions {
  std::string name, filename, rw, ioengine;
  std::string sync_kind;  ///< "fsync" | "fdatasync" | "sync_file_range" (non-zero option given)
  std::uint64_t bs = 0;
  unsigned iodepth = 0, numjobs = 0, fsync = 0;
  int direct = -1, dsync = -1;
  /// Sets one option ("bs", "blocksize", "rw", "readwrite", "iodepth",
  /// "numjobs", "ioengine", "direct", "sync", "fsync", "fdatasync", "sync_file_range",
  /// "filename", "name").
  void set(const std::string& key, const std::string& value);
  /// Copies what is known into `r` (does not clear what is not).
  void apply(JobResult& r) const;
};

/// The options of a fio command line in `line` ("$ sudo fio --name=x -direct=1 --bs=4k", after
/// any prompt), both `-opt=value` and `--opt=value` as fio takes them (fio HOWTO, "Command line
/// options"); nullopt when the line is not a fio command line with options.
std::optional<FioOptions> parse_fio_command_line(const std::string& line);

/// Number with fio's k/M/G suffix ("2036.7k" -> 2036700, "18.6k"); decimal
/// multipliers as fio's num2str prints them. Returns false when not a number.
bool parse_fio_number(std::string_view s, double& out);

/// `v` as a count or size: 0 for NaN or negative, saturated at 2^63 (a plain
/// cast of a larger double is undefined behaviour; only damaged files get there).
std::uint64_t to_u64(double v);

/// Bytes in `unit` (a trailing "/s" is ignored): B, KiB, MiB, GiB, TiB
/// (binary), kB/MB/GB/TB (decimal); with `legacy` (pre-2.17 text) KB/MB/GB are
/// binary as fio meant them. 0 when unknown.
double unit_bytes(std::string_view unit, bool legacy = false);

/// ns in "nsec" | "usec" | "msec" | "sec"; 0 when unknown.
double unit_ns(std::string_view unit);

/// A figure as fio's text printed it: number and unit ("13.0", "MiB/s"; "420", "MiB").
struct PrintedFigure {
  std::string num, unit;
};

/// fio before 3.26 printed some figures a whole unit low (fio commit c736b361,
/// "num2str: fix precision loss bug when the fractional part is close to 1"):
/// "BW=13.0MiB/s (14.7MB/s)" for 420MiB in 30001 ms, or "(21.0MiB/4328msec)"
/// for 22 MiB. Each printed figure stands for its value +- one unit of its last
/// digit. When the binary `bw` and `io` / `runtime_ms` disagree, the decimal
/// `dec` (printed separately) says which is wrong: a wrong BW is replaced in
/// `d` by bytes / runtime, keeping the printed one in bw_printed(_text); a
/// wrong io is left alone (the issued count gives the ios).
void check_printed_bw(DirStats& d, const PrintedFigure& bw, const PrintedFigure& dec, const PrintedFigure& io,
                      double runtime_ms);

/// [begin, end) of each brace-balanced {...} block (string-aware) that starts
/// at a line start; prose braces are filtered later by the JSON parser.
std::vector<std::pair<std::size_t, std::size_t>> find_json_objects(std::string_view text);

}  // namespace piprov::bench
