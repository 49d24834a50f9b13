// fio's normal (text) output -> result model. Line-oriented: recognised lines
// update the current job, everything else (prose, status lines) is skipped.
// Layouts: fio >= 2.17 "read: IOPS=94, BW=379MiB/s (397MB/s)(22.2GiB/60078msec)";
// before "read : io=353500KB, bw=68118KB/s, iops=133, runt=  5314msec".
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <climits>
#include <map>
#include <optional>
#include <regex>

#include "bench/fio/import.hpp"
#include "bench/fio/util.hpp"
#include "core/error.hpp"

namespace piprov::bench {
namespace {

struct Patterns {
  std::regex header{R"(([\w.\-]+): \(g=\d+\): rw=(\w+), bs=(?:\(R\) )?([0-9]+[A-Za-z]*))"};
  std::regex header_rest{R"(ioengine=([\w]+), iodepth=(\d+))"};
  std::regex version{R"(^(fio-\d+\.\d+\S*)\s*$)"};
  std::regex job{R"(([\w.\-]+): \(groupid=(\d+), jobs=(\d+)\): err=\s*(\d+))"};
  std::regex setup_err{R"(^fio: pid=\d+, err=(\d+)/)"};  // a job that failed before its block
  std::regex signal{R"(fio: terminating on signal (\d+))"};
  std::regex dir_new{
      R"(^\s+(read|write|trim)\s*: IOPS=([\d.]+[kMG]?), BW=([\d.]+)([A-Za-z]+/s) \(([\d.]+)([A-Za-z]+/s)\)\(([\d.]+)([A-Za-z]+)/(\d+)msec\))"};
  std::regex dir_old{
      R"(^\s+(read|write|trim)\s*: io=([\d.]+)([A-Za-z]+), bw=([\d.]+)([A-Za-z]+/s), iops=([\d.]+[kMG]?), runt=\s*(\d+)msec)"};
  std::regex lat{
      R"(^\s+(slat|clat|lat|sync)\s*\((nsec|usec|msec|sec)\)\s*:\s*min=\s*([\d.]+[kMG]?), max=\s*([\d.]+[kMG]?), avg=\s*([\d.]+[kMG]?), stdev=\s*([\d.]+[kMG]?))"};
  std::regex pct_head{R"(^\s+(clat|lat|sync) percentiles \((nsec|usec|msec|sec)\):)"};
  std::regex pct{R"(([\d.]+)th=\[\s*(\d+)\])"};
  std::regex issued_new{R"(issued rwts?: total=(\d+),(\d+)(?:,(\d+),(\d+) short=(\d+))?)"};
  std::regex issued_old{R"(issued\s*: total=r=(\d+)/w=(\d+))"};
  std::regex disk{
      R"(^\s+([\w\-]+): ios=(\d+)/(\d+),(?: sectors=(\d+)/(\d+),)? merge=(\d+)/(\d+), ticks=(\d+)/(\d+), in_queue=(\d+), util=([\d.]+)%)"};
};

const Patterns& pat() {
  static const Patterns p;
  return p;
}

struct Header {
  std::string rw, engine;
  std::uint64_t bs = 0;
  unsigned iodepth = 0;
};

class TextParser {
 public:
  explicit TextParser(std::string source) : source_(std::move(source)) {}

  void line(std::string_view raw, std::size_t lineno) {
    lineno_ = lineno;
    std::string l(raw.size() > 2000 ? raw.substr(raw.size() - 2000) : raw);
    if (!l.empty() && l.back() == '\r') l.pop_back();
    const auto& P = pat();
    std::smatch m;
    if (l.find("(groupid=") != std::string::npos && std::regex_search(l, m, P.job)) return start_job(m);
    if (l.find(": (g=") != std::string::npos && std::regex_search(l, m, P.header)) return header(l, m, lineno);
    if (l.rfind("fio-", 0) == 0 && std::regex_search(l, m, P.version)) {
      version_ = m[1];
      return;
    }
    if (auto cmd = parse_fio_command_line(l)) return command(*cmd, lineno);
    if (l.find("terminating on signal") != std::string::npos && std::regex_search(l, m, P.signal))
      return interrupted(u32(m[1]));
    if (l.rfind("fio: pid=", 0) == 0 && std::regex_search(l, m, P.setup_err)) {
      setup_err_ = static_cast<int>(std::min<unsigned>(u32(m[1]), INT_MAX));
      return;
    }
    const bool has_ios = l.find("ios=") != std::string::npos;
    if (!cur_) {
      if (has_ios && std::regex_search(l, m, P.disk)) disk(m);
      return;
    }
    if (l.find("IOPS=") != std::string::npos && std::regex_search(l, m, P.dir_new)) return dir_new(m);
    if (l.find("iops=") != std::string::npos && std::regex_search(l, m, P.dir_old)) return dir_old(m);
    if (l.find("min=") != std::string::npos && std::regex_search(l, m, P.lat)) return lat(m);
    if (l.find("percentiles") != std::string::npos && std::regex_search(l, m, P.pct_head)) {
      pct_target_ = m[1];
      pct_scale_ = unit_ns(m[2].str());
      return;
    }
    if (l.find("th=[") != std::string::npos && l.find('|') != std::string::npos) return pct(l);
    pct_target_.clear();
    if (l.find("issued") != std::string::npos) {
      if (std::regex_search(l, m, P.issued_new) || std::regex_search(l, m, P.issued_old)) {
        if (cur().read) cur().read->ios = u64(m[1]);
        if (cur().write) cur().write->ios = u64(m[2]);
        if (m.size() > 5 && m[4].matched) sync_count(u64(m[4]), u64(m[5]));
      }
      return;
    }
    if (has_ios && std::regex_search(l, m, P.disk)) disk(m);
  }

  std::vector<ImportedJob> finish() {
    end_run();
    return std::move(out_);
  }

 private:
  JobResult& cur() { return out_[*cur_].job; }

  // Numbers of a line that matched a fio pattern. fio prints uint64 counters
  // and values far below 1e18 (an exabyte, 31 years in ns); anything else
  // (overflow, "1.2.3", inf) comes from a damaged or hand-made file and would
  // overflow the conversions below, so the import stops with the line named.
  [[noreturn]] void bad_number(const std::string& s) const {
    throw Error(ErrorKind::Usage, fmt::format("{}:{}: '{}' is not a number fio prints (out of range or malformed); "
                                              "give fio's unedited output",
                                              source_, lineno_, s.size() > 40 ? s.substr(0, 40) + "..." : s));
  }
  std::uint64_t u64(const std::string& s) const {
    std::uint64_t v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size()) bad_number(s);
    return v;
  }
  unsigned u32(const std::string& s) const {
    std::uint64_t v = u64(s);
    if (v > UINT_MAX) bad_number(s);
    return static_cast<unsigned>(v);
  }
  double real(const std::string& s) const {  // plain decimal ("99.50", "60078")
    double v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size() || !(v >= 0 && v < 1e18)) bad_number(s);
    return v;
  }
  double fio_number(const std::string& s) const {  // with fio's k/M/G suffix ("18.6k")
    double v = 0;
    if (!parse_fio_number(s, v) || !(v >= 0 && v < 1e18)) bad_number(s);
    return v;
  }

  // A run ends at the next command line or job header, or at the end of the
  // text: a job that failed before fio printed its block ("fio: pid=0,
  // err=22/file:filesetup.c...") becomes a failed job named by the run's header.
  void end_run() {
    if (setup_err_ && !last_header_.empty()) {
      bool reported = false;
      for (std::size_t i = run_start_; i < out_.size(); ++i) reported |= out_[i].job.err != 0;
      if (!reported) {
        ImportedJob j;
        j.job.name = last_header_;
        fill_from_header(j.job);
        fail(j.job, setup_err_);
        j.job.tool = ResultTool::Fio;
        j.job.source = source_label();
        j.run = run_;
        out_.push_back(std::move(j));
      }
    }
    setup_err_ = 0;
    signal_ = 0;
    last_header_.clear();
    ++run_;
  }

  void fail(JobResult& r, int err) const {
    r.err = err;
    r.error = job_failure(r.name, err);
  }

  std::string source_label() const { return (version_.empty() ? std::string("fio") : version_) + " (" + source_ + ")"; }

  void fill_from_header(JobResult& r) const {
    if (auto h = headers_.find(r.name); h != headers_.end()) {
      r.rw = h->second.rw;
      r.bs = h->second.bs;
      r.engine = h->second.engine;
      r.iodepth = h->second.iodepth;
    }
  }

  // "fio: terminating on signal 2": every job of this run is partial.
  void interrupted(unsigned sig) {
    signal_ = static_cast<int>(std::min<unsigned>(sig, INT_MAX));
    for (std::size_t i = run_start_; i < out_.size(); ++i) mark_interrupted(out_[i].job);
  }
  void mark_interrupted(JobResult& r) const {
    r.interrupted = true;
    r.interrupt_signal = signal_;
  }

  // "issued rwts: total=R,W,T,S short=R,...": S counts fsync calls. fio before
  // commit af511749 ("ioengines: record all sync io_u completions under
  // DDIR_SYNC", 2026) counted fdatasync in the slot after the array, which
  // prints as the first short= value.
  void sync_count(std::uint64_t total_sync, std::uint64_t short_read) {
    if (!cur().sync) return;
    if (total_sync) {
      cur().sync_ios = total_sync;
    } else if (short_read) {
      cur().sync_ios = short_read;
      if (cur().sync_kind.empty()) cur().sync_kind = "fdatasync";
    }
  }

  void command(const FioOptions& options, std::size_t lineno) {
    end_run();
    cmd_ = options;
    cmd_line_ = lineno;
    run_start_ = out_.size();
    cur_.reset();
  }

  void header(const std::string& l, const std::smatch& m, std::size_t lineno) {
    // jobs after this header belong to a new run, unless the header follows the
    // command line or another header of the same run (several jobs in a job file)
    if (run_start_ != out_.size() || setup_err_ || (!cmd_line_ && last_header_.empty())) end_run();
    run_start_ = out_.size();
    last_header_ = m[1];
    cur_.reset();
    Header h;
    h.rw = m[2];
    FioOptions o;
    o.set("bs", m[3]);
    h.bs = o.bs;
    std::smatch r;
    if (std::regex_search(l, r, pat().header_rest)) {
      h.engine = r[1];
      h.iodepth = u32(r[2]);
    }
    headers_[m[1]] = h;
    // A command line counts for this run only when printed just before it.
    if (cmd_line_ && lineno - cmd_line_ > 3) cmd_ = FioOptions{}, cmd_line_ = 0;
  }

  void start_job(const std::smatch& m) {
    ImportedJob j;
    JobResult& r = j.job;
    r.name = m[1];
    fill_from_header(r);
    r.numjobs = u32(m[3]);
    if (cmd_line_) cmd_.apply(r);
    if (unsigned jobs = u32(m[3]); jobs >= 1) r.numjobs = jobs;  // the block's jobs=, not the option
    if (int err = static_cast<int>(std::min<unsigned>(u32(m[4]), INT_MAX))) fail(r, err);
    if (!r.rw.empty() && !r.iodepth) r.iodepth = 1;
    r.tool = ResultTool::Fio;
    r.source = source_label();
    if (signal_) mark_interrupted(r);
    j.target = cmd_line_ && !cmd_.filename.empty() ? cmd_.filename : "";
    j.run = run_;
    out_.push_back(std::move(j));
    cur_ = out_.size() - 1;
    dir_ = nullptr;
    pct_target_.clear();
  }

  DirStats& open_dir(const std::string& which) {
    auto& o = which == "read" ? cur().read : cur().write;
    if (which == "trim") {
      trim_ = DirStats{};
      return trim_;
    }
    o = DirStats{};
    dir_ = &*o;
    return *o;
  }

  void dir_new(const std::smatch& m) {
    DirStats& d = open_dir(m[1]);
    d.iops = fio_number(m[2]);
    d.bw_bytes = fio_number(m[3]) * unit_bytes(m[4].str());
    d.bytes = to_u64(fio_number(m[7]) * unit_bytes(m[8].str()));
    d.runtime_s = real(m[9]) / 1000.0;
    if (cur().bs) d.ios = d.bytes / cur().bs;
    check_printed_bw(d, PrintedFigure{m[3], m[4]}, PrintedFigure{m[5], m[6]}, PrintedFigure{m[7], m[8]}, real(m[9]));
  }

  void dir_old(const std::smatch& m) {
    DirStats& d = open_dir(m[1]);
    d.bytes = to_u64(fio_number(m[2]) * unit_bytes(m[3].str(), true));
    d.bw_bytes = fio_number(m[4]) * unit_bytes(m[5].str(), true);
    d.iops = fio_number(m[6]);
    d.runtime_s = real(m[7]) / 1000.0;
    if (cur().bs) d.ios = d.bytes / cur().bs;
  }

  LatStats* lat_slot(const std::string& which) {
    if (which == "sync") {
      if (!cur().sync) cur().sync = LatStats{};
      return &*cur().sync;
    }
    if (!dir_) return nullptr;
    if (which == "slat") return &dir_->slat;
    if (which == "clat") return &dir_->clat;
    return &dir_->lat;
  }

  void lat(const std::smatch& m) {
    LatStats* s = lat_slot(m[1]);
    if (!s) return;
    double scale = unit_ns(m[2].str());
    s->min_ns = fio_number(m[3]) * scale;
    s->max_ns = fio_number(m[4]) * scale;
    s->mean_ns = fio_number(m[5]) * scale;
    s->stdev_ns = fio_number(m[6]) * scale;
  }

  void pct(const std::string& l) {
    if (pct_target_.empty()) return;
    LatStats* s = lat_slot(pct_target_);
    if (!s) return;
    const auto& P = pat();
    for (std::sregex_iterator it(l.begin(), l.end(), P.pct), end; it != end; ++it)
      s->percentiles.emplace_back(real((*it)[1]), real((*it)[2]) * pct_scale_);
  }

  void disk(const std::smatch& m) {
    DiskStats d;
    d.device = m[1];
    d.read_ios = u64(m[2]);
    d.write_ios = u64(m[3]);
    if (m[4].matched) d.read_sectors = u64(m[4]), d.write_sectors = u64(m[5]);
    d.read_merges = u64(m[6]);
    d.write_merges = u64(m[7]);
    d.read_ticks_ms = u64(m[8]);
    d.write_ticks_ms = u64(m[9]);
    d.time_in_queue_ms = u64(m[10]);
    for (std::size_t i = run_start_; i < out_.size(); ++i) {
      if (!out_[i].job.disk && !out_[i].job.err) out_[i].job.disk = d;
      if (out_[i].target.empty()) out_[i].target = d.device;
    }
    cur_.reset();
  }

  std::string source_, version_;
  FioOptions cmd_;
  std::size_t cmd_line_ = 0, run_start_ = 0, run_ = 0;
  std::string last_header_;  ///< job name of the run's last "NAME: (g=0): rw=..." line
  int setup_err_ = 0;        ///< errno of a "fio: pid=0, err=N/..." line in this run
  int signal_ = 0;           ///< N of "fio: terminating on signal N" in this run
  std::map<std::string, Header> headers_;
  std::vector<ImportedJob> out_;
  std::optional<std::size_t> cur_;
  DirStats* dir_ = nullptr;
  DirStats trim_;
  std::string pct_target_;
  double pct_scale_ = 1;
  std::size_t lineno_ = 0;
};

}  // namespace

std::vector<ImportedJob> parse_fio_text(std::string_view text, const std::string& source) {
  TextParser p(source);
  std::size_t lineno = 0, pos = 0;
  while (pos <= text.size()) {
    auto nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    p.line(text.substr(pos, nl - pos), ++lineno);
    pos = nl + 1;
  }
  auto out = p.finish();
  for (auto& j : out)
    if (j.target.empty()) j.target = source;
  return out;
}

}  // namespace piprov::bench
