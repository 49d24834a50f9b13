// numjobs=N without group_reporting: N separately reported jobs of one name
// become clones "job i/N" plus their group sum (fio HOWTO: group_reporting).
#include <algorithm>
#include <cmath>

#include "bench/fio/import.hpp"

namespace piprov::bench {
namespace {

bool same_group(const ImportedJob& a, const ImportedJob& b) {
  return a.run == b.run && a.target == b.target && a.job.name == b.job.name && a.job.clone_count == 0 &&
         b.job.clone_count == 0 && !a.job.group_sum && !b.job.group_sum;
}

// Pooled latency of several jobs, weighted by their ios: exact mean and stdev
// (sum of n(stdev^2 + mean^2)), min and max; percentiles cannot be combined.
LatStats pool(const std::vector<std::pair<const LatStats*, double>>& parts) {
  LatStats out;
  double n = 0, sum = 0, sum_sq = 0;
  bool first = true;
  for (const auto& [l, w] : parts) {
    if (!l->present() || w <= 0) continue;
    n += w;
    sum += w * l->mean_ns;
    sum_sq += w * (l->stdev_ns * l->stdev_ns + l->mean_ns * l->mean_ns);
    out.min_ns = first ? l->min_ns : std::min(out.min_ns, l->min_ns);
    out.max_ns = std::max(out.max_ns, l->max_ns);
    out.samples += l->samples;
    first = false;
  }
  if (n <= 0) return out;
  out.mean_ns = sum / n;
  out.stdev_ns = std::sqrt(std::max(0.0, sum_sq / n - out.mean_ns * out.mean_ns));
  return out;
}

std::optional<DirStats> sum_dir(const std::vector<const DirStats*>& dirs) {
  DirStats s;
  double iops = 0, bw = 0;
  std::vector<std::pair<const LatStats*, double>> lat, clat, slat;
  bool any = false;
  for (const DirStats* d : dirs) {
    if (!d) continue;
    any = true;
    s.ios += d->ios, s.bytes += d->bytes, iops += d->iops, bw += d->bw_bytes;
    s.runtime_s = std::max(s.runtime_s, d->runtime_s);
    double w = d->ios ? static_cast<double>(d->ios) : d->iops;
    lat.emplace_back(&d->lat, w), clat.emplace_back(&d->clat, w), slat.emplace_back(&d->slat, w);
  }
  if (!any) return std::nullopt;
  // IOPS: the sum of the jobs' IOPS, the figure a reader adds up from the job
  // rows; bandwidth: fio's group rule, bytes over the longest runtime.
  s.iops = iops > 0 ? iops : s.runtime_s > 0 ? static_cast<double>(s.ios) / s.runtime_s : 0;
  s.bw_bytes = s.runtime_s > 0 && s.bytes ? static_cast<double>(s.bytes) / s.runtime_s : bw;
  s.lat = pool(lat), s.clat = pool(clat), s.slat = pool(slat);
  return s;
}

JobResult group_sum(const std::vector<ImportedJob>& jobs, std::size_t b, std::size_t e) {
  JobResult s = jobs[b].job;
  s.numjobs = static_cast<unsigned>(e - b);
  s.clone_index = s.clone_count = 0;
  s.group_sum = true;
  s.err = 0, s.error.clear();
  std::vector<const DirStats*> r, w;
  std::vector<std::pair<const LatStats*, double>> sync;
  s.sync_ios = 0;
  for (std::size_t i = b; i < e; ++i) {
    const JobResult& j = jobs[i].job;
    r.push_back(j.read ? &*j.read : nullptr);
    w.push_back(j.write ? &*j.write : nullptr);
    if (j.sync) sync.emplace_back(&*j.sync, static_cast<double>(j.sync_ios ? j.sync_ios : 1));
    s.sync_ios += j.sync_ios;
    s.interrupted |= j.interrupted;
  }
  s.read = sum_dir(r);
  s.write = sum_dir(w);
  if (s.read) s.read->bw_printed = 0, s.read->bw_printed_text.clear();
  if (s.write) s.write->bw_printed = 0, s.write->bw_printed_text.clear();
  if (!sync.empty()) s.sync = pool(sync);
  return s;
}

}  // namespace

void fold_numjobs_clones(std::vector<ImportedJob>& jobs) {
  std::vector<ImportedJob> out;
  for (std::size_t b = 0; b < jobs.size();) {
    std::size_t e = b + 1;
    while (e < jobs.size() && same_group(jobs[b], jobs[e])) ++e;
    if (e - b < 2) {
      out.push_back(std::move(jobs[b++]));
      continue;
    }
    ImportedJob sum{jobs[b].target, group_sum(jobs, b, e), jobs[b].run};
    for (std::size_t i = b; i < e; ++i) {
      JobResult& j = jobs[i].job;
      j.numjobs = 1;
      j.clone_index = static_cast<unsigned>(i - b + 1);
      j.clone_count = static_cast<unsigned>(e - b);
      out.push_back(std::move(jobs[i]));
    }
    out.push_back(std::move(sum));
    b = e;
  }
  jobs = std::move(out);
}

}  // namespace piprov::bench
