// fio JSON output -> result model. Handles fio 2.x (usec "lat"/"clat", io_bytes
// in KiB before 2.21) and 3.x ("lat_ns", bw_bytes, "sync" section).
#include <algorithm>
#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>

#include "bench/fio/import.hpp"
#include "bench/fio/util.hpp"
#include "core/error.hpp"

namespace piprov::bench {
namespace {

using nlohmann::json;

// A field whose value fio never prints: beyond +-1e18 (an exabyte, 31 years
// in ns) or not finite. parse_fio_json() turns it into an Error naming the file.
struct BadNumber {
  std::string key, value;
};

double num(const json& j, const char* key, double dflt = 0) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return dflt;
  double v = dflt;
  if (it->is_number()) {
    v = it->get<double>();
  } else if (it->is_string()) {
    try {
      v = std::stod(it->get<std::string>());
    } catch (...) {
      return dflt;
    }
  }
  if (!std::isfinite(v) || std::fabs(v) > 1e18) throw BadNumber{key, it->dump()};
  return v;
}

std::string str(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end()) return "";
  if (it->is_string()) return it->get<std::string>();
  if (it->is_number()) return it->dump();
  return "";
}

// `scale` converts the document's unit to ns (1 for *_ns, 1000 for usec).
LatStats lat_from(const json& j, double scale) {
  LatStats s;
  if (!j.is_object()) return s;
  s.min_ns = num(j, "min") * scale;
  s.max_ns = num(j, "max") * scale;
  s.mean_ns = num(j, "mean") * scale;
  s.stdev_ns = num(j, "stddev") * scale;
  s.samples = to_u64(num(j, "N"));
  if (auto p = j.find("percentile"); p != j.end() && p->is_object())
    for (auto it = p->begin(); it != p->end(); ++it) {
      double pct = 0;
      try {
        pct = std::stod(it.key());
      } catch (...) {
        continue;
      }
      if (!(pct > 0 && pct <= 100) || !it->is_number()) continue;
      double v = it->get<double>();
      if (!std::isfinite(v) || std::fabs(v) > 1e18) throw BadNumber{"percentile " + it.key(), it->dump()};
      s.percentiles.emplace_back(pct, v * scale);
    }
  return s;
}

// Latency block `base` ("lat", "clat", "slat"): base_ns (ns) or base (usec).
LatStats lat_of(const json& dir, const std::string& base) {
  if (auto it = dir.find(base + "_ns"); it != dir.end()) return lat_from(*it, 1.0);
  if (auto it = dir.find(base); it != dir.end()) return lat_from(*it, 1000.0);
  return {};
}

std::optional<DirStats> dir_from(const json& dir, const FioVersion& v, std::uint64_t bs) {
  if (!dir.is_object()) return std::nullopt;
  DirStats d;
  d.runtime_s = num(dir, "runtime") / 1000.0;
  double io = num(dir, "io_bytes");
  bool kib = dir.contains("io_kbytes") ? false : v.known() ? v.before(2, 21) : false;
  d.bytes = to_u64(kib ? io * 1024 : io);
  d.iops = num(dir, "iops");
  d.bw_bytes = dir.contains("bw_bytes") ? num(dir, "bw_bytes") : num(dir, "bw") * 1024.0;
  if (dir.contains("total_ios"))
    d.ios = to_u64(num(dir, "total_ios"));
  else if (bs)
    d.ios = d.bytes / bs;
  else
    d.ios = to_u64(std::round(d.iops * d.runtime_s));
  d.lat = lat_of(dir, "lat");
  d.clat = lat_of(dir, "clat");
  d.slat = lat_of(dir, "slat");
  if (d.ios == 0 && d.bytes == 0 && d.iops == 0) return std::nullopt;
  return d;
}

std::vector<ImportedJob> jobs_from(const json& doc, const std::string& source) {
  if (!doc.is_object() || !doc.contains("jobs") || !doc["jobs"].is_array())
    throw Error(ErrorKind::Usage, source +
                                      ": a JSON document without \"jobs\" is not fio output; pass fio's "
                                      "--output-format=json output");
  FioVersion v = FioVersion::parse(str(doc, "fio version"));
  json global = doc.value("global options", json::object());
  std::string disk;
  if (auto du = doc.find("disk_util"); du != doc.end() && du->is_array() && !du->empty())
    disk = (*du)[0].value("name", "");
  std::vector<ImportedJob> out;
  for (const auto& j : doc["jobs"]) {
    json opts = global;
    if (auto o = j.find("job options"); o != j.end() && o->is_object()) opts.update(*o);
    FioOptions fo;
    for (auto it = opts.begin(); it != opts.end(); ++it)
      if (it->is_string()) fo.set(it.key(), it->get<std::string>());
    JobResult r;
    r.name = str(j, "jobname");
    fo.apply(r);
    r.tool = ResultTool::Fio;
    r.source = (v.text.empty() ? std::string("fio") : v.text) + " (" + source + ")";
    if (int err = static_cast<int>(std::clamp(num(j, "error"), -1e9, 1e9))) {
      r.err = err;
      r.error = job_failure(r.name, err);
    }
    if (auto it = j.find("read"); it != j.end()) r.read = dir_from(*it, v, r.bs);
    if (auto it = j.find("write"); it != j.end()) r.write = dir_from(*it, v, r.bs);
    if (auto it = j.find("sync"); it != j.end() && it->is_object()) {
      LatStats s = lat_of(*it, "lat");
      // total_ios counts fsync only before fio commit af511749 (2026): the
      // latency samples N count every sync call.
      r.sync_ios = to_u64(num(*it, "total_ios"));
      if (r.sync_ios == 0) r.sync_ios = s.samples;
      if (s.present()) r.sync = s;
    }
    if (!r.read && !r.write && !r.sync && !r.err) continue;
    std::string target = !fo.filename.empty() ? fo.filename : !disk.empty() ? disk : source;
    out.push_back({target, std::move(r)});
  }
  return out;
}

// N of a "fio: terminating on signal N" line in `text`, else 0.
int terminating_signal(std::string_view text) {
  static constexpr std::string_view kMark = "fio: terminating on signal ";
  auto p = text.find(kMark);
  if (p == std::string_view::npos) return 0;
  int sig = 0;
  const char* b = text.data() + p + kMark.size();
  std::from_chars(b, text.data() + text.size(), sig);
  return sig;
}

}  // namespace

std::vector<ImportedJob> parse_fio_json(std::string_view text, const std::string& source) {
  std::vector<ImportedJob> out;
  std::size_t prev_end = 0, run = 0;
  for (auto [begin, end] : find_json_objects(text)) {
    std::string_view before = text.substr(prev_end, begin - prev_end);
    prev_end = end;
    json doc;
    try {
      doc = json::parse(text.substr(begin, end - begin));
    } catch (const json::exception& e) {
      continue;  // a brace-balanced fragment of prose, not JSON
    }
    if (!doc.is_object() || !doc.contains("jobs")) continue;
    std::vector<ImportedJob> jobs;
    try {
      jobs = jobs_from(doc, source);
    } catch (const BadNumber& b) {
      throw Error(ErrorKind::Usage, source + ": fio JSON field \"" + b.key + "\" = " + b.value.substr(0, 40) +
                                        " is not a value fio prints (out of range); give fio's unedited output");
    }
    int sig = terminating_signal(before);
    for (auto& j : jobs) {
      j.run = run;
      if (sig) j.job.interrupted = true, j.job.interrupt_signal = sig;
    }
    ++run;
    out.insert(out.end(), jobs.begin(), jobs.end());
  }
  return out;
}

}  // namespace piprov::bench
