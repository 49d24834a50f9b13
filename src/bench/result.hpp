#pragma once
// The result model shared by `piprov bench` runs and `piprov bench import`
// (fio outputs): targets -> jobs -> read/write/sync statistics.
// Definitions follow fio (fio HOWTO: Interpreting the output): lat = issue to completion as the
// caller sees it (fio: slat + clat); IOPS = ios / runtime; bandwidth in bytes/s
// (printed as MiB/s = 2^20 and MB/s = 10^6, labelled).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bench/histogram.hpp"

namespace piprov::bench {

/// fio's rw: what a job reads or writes, sequentially or at random offsets.
enum class Rw { Read, Write, RandRead, RandWrite, ReadWrite, RandReadWrite };
inline constexpr Rw kRws[] = {Rw::Read, Rw::Write, Rw::RandRead, Rw::RandWrite, Rw::ReadWrite, Rw::RandReadWrite};

/// fio's name: "read", "write", "randread", "randwrite", "rw", "randrw".
std::string_view rw_name(Rw rw);
/// The mode fio names `name` (rw_name(), or fio's alias "readwrite" for rw); nullopt otherwise.
std::optional<Rw> parse_rw(std::string_view name);
/// The names parse_rw() takes, for messages: "read, write, randread, randwrite, rw, randrw".
std::string rw_choices();
/// Whether the mode reads (read, randread, rw, randrw), writes (write, randwrite, rw,
/// randrw) and uses random offsets (the rand* modes).
bool rw_reads(Rw rw);
bool rw_writes(Rw rw);
bool rw_random(Rw rw);

/// Latency summary in nanoseconds. `percentiles` are (percent, ns) pairs.
struct LatStats {
  std::uint64_t samples = 0;
  double min_ns = 0, max_ns = 0, mean_ns = 0, stdev_ns = 0;
  std::vector<std::pair<double, double>> percentiles;
  std::optional<Histogram> hist;  ///< piprov runs only (fio gives percentiles)

  bool present() const { return samples > 0 || mean_ns > 0 || max_ns > 0; }
  /// Percentile `p` from the histogram, else the nearest listed percentile
  /// within 0.001; nullopt when unknown.
  std::optional<double> pct(double p) const;
  /// Fills every field from a histogram (percentiles 1..99.99 as fio lists them).
  static LatStats from_histogram(const Histogram& h);
};

/// One data direction (read or write) of a job.
struct DirStats {
  std::uint64_t ios = 0;
  std::uint64_t bytes = 0;
  double runtime_s = 0;
  double iops = 0;
  double bw_bytes = 0;  ///< bytes per second
  /// fio imports: the bandwidth fio printed, when it disagreed with io / runtime
  /// beyond the rounding of the printed figures (then bw_bytes is io / runtime);
  /// 0 when they agreed. fio 3.1 to 3.7 printed e.g. "BW=13.0MiB/s (14.7MB/s)".
  double bw_printed = 0;
  std::string bw_printed_text;  ///< fio's text of it ("13.0MiB/s")
  LatStats lat;                 ///< total latency (fio "lat"); piprov: submit -> completion
  LatStats clat;                ///< fio only: completion latency
  LatStats slat;                ///< fio only: submission latency
  /// lat when present, else clat (fio sync engines before 3.x print only clat).
  const LatStats& total_lat() const { return lat.present() ? lat : clat; }
};

/// /sys/block/DEV/stat deltas over a job (Documentation/block/stat.rst; sar(1) -d's columns).
struct DiskStats {
  std::string device;  ///< "sda", "loop3", "mmcblk0"
  double elapsed_s = 0;
  std::uint64_t read_ios = 0, write_ios = 0, read_merges = 0, write_merges = 0;
  std::uint64_t read_sectors = 0, write_sectors = 0;  ///< 512-byte sectors
  std::uint64_t read_ticks_ms = 0, write_ticks_ms = 0, io_ticks_ms = 0, time_in_queue_ms = 0;
  double tps() const;         ///< (read_ios + write_ios) / elapsed
  double util_pct() const;    ///< io_ticks / elapsed * 100
  double aqu_sz() const;      ///< time_in_queue / elapsed
  double await_ms() const;    ///< (read_ticks + write_ticks) / ios
  double areq_sz_kb() const;  ///< sectors * 512 / 1024 / ios (sar's areq-sz, kB)
  double rkb_s() const;
  double wkb_s() const;
};

/// The device behind a target, as sysfs describes it (Documentation/ABI/stable/sysfs-block).
struct DeviceInfo {
  std::string name;       ///< whole disk, "sda"
  std::string stat_name;  ///< what /sys/class/block/X/stat is read for (partition or disk)
  std::string model, vendor, transport, driver, usb_speed;  ///< driver: uas | usb-storage | mmcblk | loop ...
  std::uint64_t size_bytes = 0;
  unsigned logical_block_size = 0, physical_block_size = 0;
  unsigned nr_requests = 0, max_hw_sectors_kb = 0, max_sectors_kb = 0, optimal_io_size = 0;
  bool rotational = false;
  std::string scheduler, write_cache;
  bool is_sd() const;  ///< mmc transport or mmcblk name
};

/// Who measured a job: piprov itself, or a tool whose output `bench import` read.
enum class ResultTool {
  Piprov,
  Fio,        ///< fio's json, normal text or terse output
  Agnostics,  ///< the report of Raspberry Pi's SD card test (agnostics sdtest.sh)
};

/// The tool of a `bench --json` job's "source" label ("piprov", "fio-3.36 (f)", "agnostics sdtest.sh (f)").
ResultTool tool_of_source(std::string_view source);

/// One job (one fio job or group, or one piprov test) on one target.
struct JobResult {
  std::string name;  ///< job name ("test", "seq-read")
  std::string rw;    ///< fio's rw as reported: read write randread randwrite rw randrw ("" when unknown)
  std::uint64_t bs = 0;
  unsigned iodepth = 0, numjobs = 1;
  std::string engine;  ///< psync | libaio | io_uring | fio's name
  bool direct = false;
  bool dsync = false;  ///< --sync (O_DSYNC) / fio sync=1
  unsigned fsync = 0;  ///< fsync (or fdatasync) after every N writes
  /// "fsync" | "fdatasync" | "sync_file_range" (the fio option used); "" when
  /// unknown (fio's text prints "fsync/fdatasync/sync_file_range:").
  std::string sync_kind;
  std::optional<DirStats> read, write;
  std::optional<LatStats> sync;  ///< fio's "sync" section: fsync latency
  std::uint64_t sync_ios = 0;    ///< sync calls (fio: issued sync count / latency samples)
  std::optional<DiskStats> disk;
  ResultTool tool = ResultTool::Piprov;  ///< who measured it
  std::string source;                    ///< its label: "piprov", "fio-3.12 (file.txt)", "agnostics sdtest.sh (f)"
  int err = 0;                           ///< errno when the job failed
  std::string error;                     ///< message when the job failed
  bool interrupted = false;
  int interrupt_signal = 0;  ///< fio imports: N of "fio: terminating on signal N"
  /// fio imports of numjobs=N without group_reporting: this is job `clone_index`
  /// (1-based) of `clone_count` reported separately; the group sum is a job of its
  /// own with numjobs = N and `group_sum` set. 0 / false otherwise.
  unsigned clone_index = 0, clone_count = 0;
  bool group_sum = false;

  /// `rw` as a mode; nullopt when unknown or a mode piprov does not run (fio's trim modes).
  std::optional<Rw> rw_mode() const { return parse_rw(rw); }
  /// "seq read 4M QD32", "rand write 4k QD1 sync", "seq write 4k QD1 fsync=1 x8"; the job
  /// name when rw is unknown; numjobs clones add " job 2/4".
  std::string test_label() const;
  /// The kind of sync call for messages: sync_kind, else "fsync" when fsync is
  /// set by piprov, else fio's "fsync/fdatasync/sync_file_range".
  std::string sync_label() const;
};

/// Everything measured on one target.
struct TargetResult {
  std::string label;  ///< what the user named (path, or fio's filename)
  std::string path;   ///< the file actually used
  std::optional<DeviceInfo> device;
  std::vector<JobResult> jobs;
  int err = 0;
  std::string error;  ///< set when the target failed; jobs keeps what finished
};

struct Report {
  std::vector<TargetResult> targets;
  bool interrupted = false;
};

}  // namespace piprov::bench
