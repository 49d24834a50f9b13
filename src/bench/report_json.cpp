// Report <-> JSON ("schema": "piprov.bench/2", docs/bench.md; the old
// `"piprov_bench": 1` tag is still read). Everything is
// kept, histograms included (sparse buckets), so runs can be compared later
// with `piprov bench import a.json b.json`.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "bench/fio/util.hpp"
#include "bench/report.hpp"
#include "bench/verdict.hpp"
#include "core/error.hpp"
#include "core/finding.hpp"

namespace piprov::bench {
namespace {

using nlohmann::json;

// Unsigned fields of a (possibly hand-edited) saved run: an integer as it is,
// a float saturated by to_u64() (a plain cast of 1e300 is undefined
// behaviour), anything else `dflt`. Found by fuzz_bench_import.
std::uint64_t u64(const json& v, std::uint64_t dflt = 0) {
  if (v.is_number_unsigned()) return v.get<std::uint64_t>();
  if (v.is_number_integer()) return v.get<std::int64_t>() < 0 ? 0 : v.get<std::uint64_t>();
  if (v.is_number_float()) return to_u64(v.get<double>());
  return dflt;
}
std::uint64_t u64_of(const json& j, const char* key, std::uint64_t dflt = 0) {
  auto it = j.find(key);
  return it == j.end() ? dflt : u64(*it, dflt);
}
unsigned u32_of(const json& j, const char* key, unsigned dflt = 0) {
  return static_cast<unsigned>(std::min<std::uint64_t>(u64_of(j, key, dflt), UINT32_MAX));
}

json lat_json(const LatStats& l) {
  json j{{"samples", l.samples},
         {"min_ns", l.min_ns},
         {"max_ns", l.max_ns},
         {"mean_ns", l.mean_ns},
         {"stdev_ns", l.stdev_ns}};
  json p = json::object();
  for (const auto& [q, v] : l.percentiles) p[fmt::format("{:.6f}", q)] = v;
  j["percentiles_ns"] = p;
  if (l.hist) {
    json b = json::array();
    for (const auto& [low, n] : l.hist->buckets()) b.push_back({low, n});
    j["histogram"] = {{"scheme", "log-linear, 2048 sub-buckets (HdrHistogram 3 significant digits)"},
                      {"unit", "ns"},
                      {"min", l.hist->min()},
                      {"max", l.hist->max()},
                      {"sum", l.hist->sum()},
                      {"sum_sq", l.hist->sum_sq()},
                      {"buckets", b}};
  }
  return j;
}

LatStats lat_from(const json& j) {
  LatStats l;
  if (!j.is_object()) return l;
  l.samples = u64_of(j, "samples");
  l.min_ns = j.value("min_ns", 0.0);
  l.max_ns = j.value("max_ns", 0.0);
  l.mean_ns = j.value("mean_ns", 0.0);
  l.stdev_ns = j.value("stdev_ns", 0.0);
  if (auto p = j.find("percentiles_ns"); p != j.end())
    for (auto it = p->begin(); it != p->end(); ++it) l.percentiles.emplace_back(std::stod(it.key()), it->get<double>());
  if (auto h = j.find("histogram"); h != j.end() && h->is_object()) {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> b;
    for (const auto& e : (*h)["buckets"]) b.emplace_back(u64(e.at(0)), u64(e.at(1)));
    l.hist =
        Histogram::from_buckets(b, u64_of(*h, "min"), u64_of(*h, "max"), h->value("sum", 0.0), h->value("sum_sq", 0.0));
  }
  return l;
}

json dir_json(const DirStats& d) {
  json j{{"ios", d.ios},
         {"bytes", d.bytes},
         {"runtime_s", d.runtime_s},
         {"iops", d.iops},
         {"bw_bytes", d.bw_bytes},
         {"bw_mib_s", d.bw_bytes / 1048576.0},
         {"bw_mb_s", d.bw_bytes / 1e6},
         {"lat", lat_json(d.lat)}};
  if (d.bw_printed > 0) j["bw_printed"] = {{"bw_bytes", d.bw_printed}, {"text", d.bw_printed_text}};
  if (d.clat.present()) j["clat"] = lat_json(d.clat);
  if (d.slat.present()) j["slat"] = lat_json(d.slat);
  return j;
}

DirStats dir_from(const json& j) {
  DirStats d;
  d.ios = u64_of(j, "ios");
  d.bytes = u64_of(j, "bytes");
  d.runtime_s = j.value("runtime_s", 0.0);
  d.iops = j.value("iops", 0.0);
  d.bw_bytes = j.value("bw_bytes", 0.0);
  if (auto p = j.find("bw_printed"); p != j.end() && p->is_object()) {
    d.bw_printed = p->value("bw_bytes", 0.0);
    d.bw_printed_text = p->value("text", "");
  }
  if (j.contains("lat")) d.lat = lat_from(j["lat"]);
  if (j.contains("clat")) d.clat = lat_from(j["clat"]);
  if (j.contains("slat")) d.slat = lat_from(j["slat"]);
  return d;
}

json disk_json(const DiskStats& d) {
  return {{"device", d.device},
          {"elapsed_s", d.elapsed_s},
          {"read_ios", d.read_ios},
          {"write_ios", d.write_ios},
          {"read_merges", d.read_merges},
          {"write_merges", d.write_merges},
          {"read_sectors", d.read_sectors},
          {"write_sectors", d.write_sectors},
          {"read_ticks_ms", d.read_ticks_ms},
          {"write_ticks_ms", d.write_ticks_ms},
          {"io_ticks_ms", d.io_ticks_ms},
          {"time_in_queue_ms", d.time_in_queue_ms},
          {"tps", d.tps()},
          {"rkB_s", d.rkb_s()},
          {"wkB_s", d.wkb_s()},
          {"areq_sz_kB", d.areq_sz_kb()},
          {"aqu_sz", d.aqu_sz()},
          {"await_ms", d.await_ms()},
          {"util_pct", d.util_pct()}};
}

DiskStats disk_from(const json& j) {
  DiskStats d;
  d.device = j.value("device", "");
  d.elapsed_s = j.value("elapsed_s", 0.0);
#define F(x) d.x = u64_of(j, #x)
  F(read_ios);
  F(write_ios);
  F(read_merges);
  F(write_merges);
  F(read_sectors);
  F(write_sectors);
  F(read_ticks_ms);
  F(write_ticks_ms);
  F(io_ticks_ms);
  F(time_in_queue_ms);
#undef F
  return d;
}

json device_json(const DeviceInfo& d) {
  return {{"name", d.name},
          {"stat_name", d.stat_name},
          {"model", d.model},
          {"vendor", d.vendor},
          {"transport", d.transport},
          {"driver", d.driver},
          {"usb_speed_mbps", d.usb_speed},
          {"size_bytes", d.size_bytes},
          {"logical_block_size", d.logical_block_size},
          {"physical_block_size", d.physical_block_size},
          {"nr_requests", d.nr_requests},
          {"max_hw_sectors_kb", d.max_hw_sectors_kb},
          {"max_sectors_kb", d.max_sectors_kb},
          {"optimal_io_size", d.optimal_io_size},
          {"rotational", d.rotational},
          {"scheduler", d.scheduler},
          {"write_cache", d.write_cache}};
}

DeviceInfo device_from(const json& j) {
  DeviceInfo d;
  d.name = j.value("name", "");
  d.stat_name = j.value("stat_name", "");
  d.model = j.value("model", "");
  d.vendor = j.value("vendor", "");
  d.transport = j.value("transport", "");
  d.driver = j.value("driver", "");
  d.usb_speed = j.value("usb_speed_mbps", "");
  d.size_bytes = u64_of(j, "size_bytes");
  d.logical_block_size = u32_of(j, "logical_block_size", 0);
  d.physical_block_size = u32_of(j, "physical_block_size", 0);
  d.nr_requests = u32_of(j, "nr_requests", 0);
  d.max_hw_sectors_kb = u32_of(j, "max_hw_sectors_kb", 0);
  d.max_sectors_kb = u32_of(j, "max_sectors_kb", 0);
  d.optimal_io_size = u32_of(j, "optimal_io_size", 0);
  d.rotational = j.value("rotational", false);
  d.scheduler = j.value("scheduler", "");
  d.write_cache = j.value("write_cache", "");
  return d;
}

json job_json(const JobResult& r) {
  json j{{"name", r.name},     {"test", r.test_label()},      {"rw", r.rw},
         {"bs", r.bs},         {"iodepth", r.iodepth},        {"numjobs", r.numjobs},
         {"engine", r.engine}, {"direct", r.direct},          {"sync", r.dsync},
         {"fsync", r.fsync},   {"source", r.source},          {"errno", r.err},
         {"error", r.error},   {"interrupted", r.interrupted}};
  if (r.interrupt_signal) j["interrupt_signal"] = r.interrupt_signal;
  if (r.clone_count) j["clone"] = {{"index", r.clone_index}, {"count", r.clone_count}};
  if (r.group_sum) j["group_sum"] = true;
  j["read"] = r.read ? dir_json(*r.read) : json(nullptr);
  j["write"] = r.write ? dir_json(*r.write) : json(nullptr);
  j["sync_section"] =
      r.sync ? json{{"ios", r.sync_ios}, {"kind", r.sync_label()}, {"lat", lat_json(*r.sync)}} : json(nullptr);
  j["disk"] = r.disk ? disk_json(*r.disk) : json(nullptr);
  return j;
}

JobResult job_from(const json& j) {
  JobResult r;
  r.name = j.value("name", "");
  r.rw = j.value("rw", "");
  r.bs = u64_of(j, "bs");
  r.iodepth = u32_of(j, "iodepth", 1);
  r.numjobs = u32_of(j, "numjobs", 1);
  r.engine = j.value("engine", "");
  r.direct = j.value("direct", false);
  r.dsync = j.value("sync", false);
  r.fsync = u32_of(j, "fsync", 0);
  r.source = j.value("source", "");
  r.tool = tool_of_source(r.source);
  r.err = static_cast<int>(std::min<std::uint64_t>(u64_of(j, "errno"), INT32_MAX));
  r.error = j.value("error", "");
  r.interrupted = j.value("interrupted", false);
  r.interrupt_signal = static_cast<int>(std::min<std::uint64_t>(u64_of(j, "interrupt_signal"), INT32_MAX));
  if (auto c = j.find("clone"); c != j.end() && c->is_object())
    r.clone_index = u32_of(*c, "index"), r.clone_count = u32_of(*c, "count");
  r.group_sum = j.value("group_sum", false);
  if (j.contains("read") && j["read"].is_object()) r.read = dir_from(j["read"]);
  if (j.contains("write") && j["write"].is_object()) r.write = dir_from(j["write"]);
  if (j.contains("sync_section") && j["sync_section"].is_object()) {
    r.sync = lat_from(j["sync_section"]["lat"]);
    r.sync_ios = u64_of(j["sync_section"], "ios");
    std::string kind = j["sync_section"].value("kind", "");
    if (kind == "fsync" || kind == "fdatasync" || kind == "sync_file_range") r.sync_kind = kind;
  }
  if (j.contains("disk") && j["disk"].is_object()) r.disk = disk_from(j["disk"]);
  return r;
}

}  // namespace

bool is_bench_report(const json& doc) {
  if (!doc.is_object()) return false;
  if (doc.contains("piprov_bench")) return true;  // version 1
  auto s = doc.find("schema");
  return s != doc.end() && s->is_string() && s->get<std::string>() == kBenchSchema;
}

bool looks_like_bench_report(std::string_view text) {
  return text.find("\"piprov_bench\"") != std::string_view::npos ||
         text.find(std::string("\"") + kBenchSchema + "\"") != std::string_view::npos;
}

std::string report_to_json(const Report& r, const RenderOptions& opts) {
  json targets = json::array();
  for (const auto& t : r.targets) {
    json jobs = json::array();
    for (const auto& j : t.jobs) jobs.push_back(job_json(j));
    json tj{{"label", t.label}, {"path", t.path}, {"errno", t.err}, {"error", t.error}, {"jobs", jobs}};
    tj["device"] = t.device ? device_json(*t.device) : json(nullptr);
    if (auto v = sd_verdict(t, opts.sd_verdict_all))
      tj["sd_class"] = {{"class", sd_class_name(v->cls)},
                        {"rand_read_iops", v->rand_read_iops},
                        {"rand_write_iops", v->rand_write_iops},
                        {"seq_write_mb_s", v->seq_write_mb_s},
                        {"text", v->text}};
    if (auto v = agnostics_verdict(t)) {
      json lines = json::array();
      for (const auto& l : v->lines)
        lines.push_back({{"job", l.job},
                         {"what", l.what},
                         {"unit", l.unit},
                         {"threshold", l.threshold},
                         {"measured", l.measured},
                         {"result", agnostics_result_name(l.result())}});
      tj["agnostics"] = {{"overall", agnostics_result_name(v->overall)}, {"lines", lines}};
    }
    targets.push_back(tj);
  }
  // Labels and job names come from user files: invalid UTF-8 is replaced, not fatal.
  return dump_json(json{{"schema", kBenchSchema}, {"interrupted", r.interrupted}, {"targets", targets}});
}

Report report_from_json(std::string_view text, const std::string& source) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception& e) {
    throw Error(ErrorKind::Usage, source + ": not valid JSON: " + e.what());
  }
  if (!is_bench_report(doc))
    throw Error(ErrorKind::Usage, source + ": not a piprov bench JSON report (no \"schema\": \"" + kBenchSchema +
                                      "\" or \"piprov_bench\" key)");
  Report r;
  try {
    r.interrupted = doc.value("interrupted", false);
    for (const auto& tj : doc.at("targets")) {
      TargetResult t;
      t.label = tj.value("label", "");
      t.path = tj.value("path", "");
      t.err = static_cast<int>(std::min<std::uint64_t>(u64_of(tj, "errno"), INT32_MAX));
      t.error = tj.value("error", "");
      if (tj.contains("device") && tj["device"].is_object()) t.device = device_from(tj["device"]);
      for (const auto& jj : tj.at("jobs")) t.jobs.push_back(job_from(jj));
      r.targets.push_back(std::move(t));
    }
  } catch (const json::exception& e) {  // a field of the wrong type: a damaged or hand-edited file
    throw Error(ErrorKind::Usage, source + ": not a piprov bench JSON report as piprov writes it: " + e.what());
  } catch (const std::logic_error& e) {  // std::stod of a percentile key
    throw Error(ErrorKind::Usage, source + ": not a piprov bench JSON report as piprov writes it: " + e.what());
  }
  return r;
}

}  // namespace piprov::bench
