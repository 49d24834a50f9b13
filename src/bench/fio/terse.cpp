// fio's terse output (fio HOWTO "Terse output", versions 2 to 5) and the
// report of Raspberry Pi's SD card test, which cuts five terse fields.
#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>
#include <optional>
#include <regex>

#include "bench/fio/import.hpp"
#include "bench/fio/util.hpp"
#include "core/strings.hpp"

namespace piprov::bench {
namespace {

using Fields = std::vector<std::string_view>;

Fields split(std::string_view line, char sep) {
  Fields f;
  std::size_t pos = 0;
  while (true) {
    auto p = line.find(sep, pos);
    f.push_back(line.substr(pos, p == std::string_view::npos ? std::string_view::npos : p - pos));
    if (p == std::string_view::npos) break;
    pos = p + 1;
  }
  return f;
}

// A field as a plain number ("62125", "62.555513", "99.468205%"); nullopt when
// it is not one, or not a value fio prints (negative, beyond 1e18).
std::optional<double> number(std::string_view s) {
  if (!s.empty() && s.back() == '%') s.remove_suffix(1);
  double v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || !(v >= 0 && v < 1e18)) return std::nullopt;
  return v;
}

// Layout of one terse version: where the READ block starts, how long a data
// direction block is, how many blocks (TRIM in v2, v4, v5), whether disk
// utilization follows (v3+).
struct Layout {
  int version = 0;
  std::size_t name = 0, error = 0, first = 0, block = 41, blocks = 2;
  bool disk = false;
  std::size_t fixed() const { return first + block * blocks + 5 + 7 + 10 + 12; }  // + CPU, depths, lat buckets
};

std::optional<Layout> layout_of(const Fields& f) {
  if (f.size() < 2 || f[0].size() != 1 || f[0][0] < '2' || f[0][0] > '5') return std::nullopt;
  Layout l;
  l.version = f[0][0] - '0';
  if (l.version == 2) {
    l.name = 1, l.error = 3, l.first = 4;
  } else {
    if (!f[1].starts_with("fio")) return std::nullopt;
    l.name = 2, l.error = 4, l.first = 5, l.disk = true;
  }
  l.block = l.version == 5 ? 47 : 41;
  l.blocks = l.version == 3 ? 2 : 3;
  if (f.size() < l.fixed()) return std::nullopt;
  return l;
}

// One data direction block starting at field `o`; nullopt when it is all zero
// (fio prints zeros for a direction the job did not do).
std::optional<DirStats> dir_at(const Fields& f, std::size_t o) {
  auto n = [&](std::size_t i) { return number(f[o + i]).value_or(0); };
  DirStats d;
  d.bytes = to_u64(n(0) * 1024);
  d.bw_bytes = n(1) * 1024;
  d.iops = n(2);
  d.runtime_s = n(3) / 1000;
  if (d.bytes == 0 && d.iops == 0 && d.runtime_s == 0) return std::nullopt;
  d.ios = to_u64(std::round(d.iops * d.runtime_s));
  auto lat = [&](std::size_t i) {
    LatStats s;
    s.min_ns = n(i) * 1e3, s.max_ns = n(i + 1) * 1e3, s.mean_ns = n(i + 2) * 1e3, s.stdev_ns = n(i + 3) * 1e3;
    return s;
  };
  d.slat = lat(4);
  d.clat = lat(8);
  for (std::size_t i = 12; i < 32; ++i) {  // "99.000000%=248"; unused slots print "0%=0"
    auto eq = f[o + i].find("%=");
    if (eq == std::string_view::npos) continue;
    auto p = number(f[o + i].substr(0, eq)), v = number(f[o + i].substr(eq + 2));
    if (p && v && *p > 0) d.clat.percentiles.emplace_back(*p, *v * 1e3);
  }
  d.lat = lat(32);
  return d;
}

std::optional<ImportedJob> terse_job(std::string_view line, const std::string& source) {
  Fields f = split(line, ';');
  auto l = layout_of(f);
  if (!l) return std::nullopt;
  for (std::size_t i = l->first; i < l->first + 4; ++i)
    if (!number(f[i])) return std::nullopt;  // not a terse line after all
  ImportedJob j;
  JobResult& r = j.job;
  r.name = std::string(f[l->name]);
  r.tool = ResultTool::Fio;
  r.source = (l->version == 2 ? std::string("fio") : std::string(f[1])) + " (" + source + ")";
  r.read = dir_at(f, l->first);
  r.write = dir_at(f, l->first + l->block);
  if (int err = static_cast<int>(std::min(number(f[l->error]).value_or(0), double{INT_MAX}))) {
    r.err = err;
    r.error = job_failure(r.name, err);
  }
  std::size_t d = l->fixed();
  if (l->disk && f.size() >= d + 9 && !number(f[d]) && !f[d].empty()) {
    DiskStats ds;
    ds.device = std::string(f[d]);
    auto n = [&](std::size_t i) { return to_u64(number(f[d + i]).value_or(0)); };
    ds.read_ios = n(1), ds.write_ios = n(2), ds.read_merges = n(3), ds.write_merges = n(4);
    ds.read_ticks_ms = n(5), ds.write_ticks_ms = n(6), ds.time_in_queue_ms = n(7);
    r.disk = ds;
    j.target = ds.device;
  } else {
    j.target = source;
  }
  if (!r.read && !r.write && !r.err) return std::nullopt;
  return j;
}

template <class F>
void for_each_line(std::string_view text, F&& f) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    auto nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view l = text.substr(pos, nl - pos);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    f(l);
    pos = nl + 1;
  }
}

// agnostics' data/sd_bench.fio: every job libaio, direct=1, iodepth=4.
struct AgnosticsJob {
  const char* name;
  std::uint64_t bs;
};
constexpr AgnosticsJob kAgnostics[] = {{"prepare-file", 512 << 10},
                                       {"seq-write", 512 << 10},
                                       {"rand-4k-write", 4096},
                                       {"rand-4k-read", 4096},
                                       {"seq-read", 512 << 10}};

const AgnosticsJob* agnostics_job(std::string_view name) {
  for (const auto& a : kAgnostics)
    if (name == a.name) return &a;
  return nullptr;
}

// sdtest.sh's lines: "NAME;read bw;read IOPS;write bw;write IOPS" and "Run N" before each retry.
const std::regex& agnostics_cut_line() {
  static const std::regex r(R"(^([A-Za-z][\w.\-]*);(\d+);(\d+);(\d+);(\d+)\s*$)");
  return r;
}
const std::regex& agnostics_run_line() {
  static const std::regex r(R"(^Run \d+\s*$)");
  return r;
}

}  // namespace

std::vector<ImportedJob> parse_fio_terse(std::string_view text, const std::string& source) {
  std::vector<ImportedJob> out;
  std::optional<FioOptions> cmd;  // the fio command line printed before the terse lines (-direct=1, --rw=...)
  for_each_line(text, [&](std::string_view line) {
    std::string_view l = piprov::trim(line);  // pasted into a forum post or an issue: indented
    if (auto c = parse_fio_command_line(std::string(l))) {
      cmd = c;
      return;
    }
    if (l.size() > 2 && l[1] == ';')
      if (auto j = terse_job(l, source)) {
        if (cmd) cmd->apply(j->job);
        out.push_back(std::move(*j));
      }
  });
  return out;
}

std::vector<ImportedJob> parse_agnostics_report(std::string_view text, const std::string& source) {
  static const std::regex verdict(R"(speed \d+ (KB/sec|IOPS) \(target \d+\) - (PASS|FAIL))");
  std::vector<ImportedJob> out;
  bool sdtest = false, known = false;
  std::size_t run = 0;
  for_each_line(text, [&](std::string_view sv) {
    std::string l(piprov::trim(sv));  // pasted into a forum post or an issue: indented
    std::smatch m;
    if (std::regex_search(l, verdict)) sdtest = true;
    if (std::regex_match(l, agnostics_run_line())) ++run;
    if (!std::regex_match(l, m, agnostics_cut_line())) return;
    ImportedJob j;
    JobResult& r = j.job;
    r.name = m[1];
    r.tool = ResultTool::Agnostics;
    r.source = "agnostics sdtest.sh (" + source + ")";
    if (const auto* a = agnostics_job(r.name)) {
      known = true;
      r.bs = a->bs, r.iodepth = 4, r.engine = "libaio", r.direct = true;  // rw unset: rows keep the job names
    }
    auto dir = [](const std::string& bw, const std::string& iops) -> std::optional<DirStats> {
      DirStats d;
      d.bw_bytes = number(bw).value_or(0) * 1024;  // fio's terse KiB/s, which sdtest.sh labels KB/sec
      d.iops = number(iops).value_or(0);
      if (d.bw_bytes == 0 && d.iops == 0) return std::nullopt;
      return d;
    };
    r.read = dir(m[2], m[3]);
    r.write = dir(m[4], m[5]);
    j.target = source;
    j.run = run;
    j.agnostics_report = true;
    out.push_back(std::move(j));
  });
  if (!sdtest && !known) out.clear();
  return out;
}

std::string agnostics_missing_rows(std::string_view text) {
  // Every version of agnostics' sd_bench.fio runs these (later ones add seq-read, which is not required).
  static constexpr const char* kRows[] = {"prepare-file", "seq-write", "rand-4k-write", "rand-4k-read"};
  std::vector<std::vector<std::string>> runs(1);  // [0]: rows before any "Run N" line
  for_each_line(text, [&](std::string_view sv) {
    std::string l(piprov::trim(sv));
    std::smatch m;
    if (std::regex_match(l, agnostics_run_line()))
      runs.emplace_back();
    else if (std::regex_match(l, m, agnostics_cut_line()))
      runs.back().push_back(m[1]);
  });
  const bool numbered = runs.size() > 1;
  std::vector<std::string> out;
  for (std::size_t i = numbered && runs[0].empty() ? 1 : 0; i < runs.size(); ++i) {
    std::vector<std::string> missing;
    for (const char* row : kRows)
      if (std::find(runs[i].begin(), runs[i].end(), row) == runs[i].end()) missing.emplace_back(row);
    if (missing.empty()) continue;
    out.push_back((numbered ? "run " + std::to_string(i) + " has no " : std::string("no ")) +
                  piprov::join(missing, ", ") + (missing.size() == 1 ? " row" : " rows"));
  }
  return piprov::join(out, "; ");
}

}  // namespace piprov::bench
