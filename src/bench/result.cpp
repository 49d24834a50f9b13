#include "bench/result.hpp"

#include <fmt/format.h>
#include <cmath>

#include "core/enum_names.hpp"

namespace piprov::bench {

namespace {
constexpr EnumName<Rw> kRwNames[] = {
    {Rw::Read, "read"},           {Rw::Write, "write"},  {Rw::RandRead, "randread"},
    {Rw::RandWrite, "randwrite"}, {Rw::ReadWrite, "rw"}, {Rw::RandReadWrite, "randrw"},
};
}  // namespace

std::string_view rw_name(Rw rw) { return enum_name(kRwNames, rw); }

std::optional<Rw> parse_rw(std::string_view name) {
  if (name == "readwrite") return Rw::ReadWrite;  // fio's other name for rw
  return parse_enum(kRwNames, name);
}

std::string rw_choices() { return enum_choices(kRwNames, ", "); }

ResultTool tool_of_source(std::string_view source) {
  if (source == "piprov") return ResultTool::Piprov;
  return source.rfind("agnostics", 0) == 0 ? ResultTool::Agnostics : ResultTool::Fio;
}

bool rw_reads(Rw rw) { return rw != Rw::Write && rw != Rw::RandWrite; }
bool rw_writes(Rw rw) { return rw != Rw::Read && rw != Rw::RandRead; }
bool rw_random(Rw rw) { return rw == Rw::RandRead || rw == Rw::RandWrite || rw == Rw::RandReadWrite; }

std::optional<double> LatStats::pct(double p) const {
  if (hist && hist->count()) return hist->percentile(p);
  for (const auto& [q, v] : percentiles)
    if (std::fabs(q - p) < 0.001) return v;
  return std::nullopt;
}

LatStats LatStats::from_histogram(const Histogram& h) {
  LatStats s;
  s.samples = h.count();
  s.min_ns = static_cast<double>(h.min());
  s.max_ns = static_cast<double>(h.max());
  s.mean_ns = h.mean();
  s.stdev_ns = h.stdev();
  for (double p :
       {1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95, 99.99})
    s.percentiles.emplace_back(p, h.percentile(p));
  s.hist = h;
  return s;
}

namespace {
double per_s(double v, double s) { return s > 0 ? v / s : 0.0; }
}  // namespace

double DiskStats::tps() const { return per_s(static_cast<double>(read_ios + write_ios), elapsed_s); }
double DiskStats::util_pct() const {
  return std::min(100.0, per_s(static_cast<double>(io_ticks_ms) / 10.0, elapsed_s));
}
double DiskStats::aqu_sz() const { return per_s(static_cast<double>(time_in_queue_ms) / 1000.0, elapsed_s); }
double DiskStats::await_ms() const {
  auto ios = read_ios + write_ios;
  return ios ? static_cast<double>(read_ticks_ms + write_ticks_ms) / static_cast<double>(ios) : 0.0;
}
double DiskStats::areq_sz_kb() const {
  auto ios = read_ios + write_ios;
  return ios ? static_cast<double>(read_sectors + write_sectors) / 2.0 / static_cast<double>(ios) : 0.0;
}
double DiskStats::rkb_s() const { return per_s(static_cast<double>(read_sectors) / 2.0, elapsed_s); }
double DiskStats::wkb_s() const { return per_s(static_cast<double>(write_sectors) / 2.0, elapsed_s); }

bool DeviceInfo::is_sd() const { return transport == "mmc" || name.rfind("mmcblk", 0) == 0; }

namespace {
std::string size_label(std::uint64_t bs) {
  if (bs == 0) return "?";
  if (bs % (1ull << 30) == 0) return fmt::format("{}G", bs >> 30);
  if (bs % (1ull << 20) == 0) return fmt::format("{}M", bs >> 20);
  if (bs % 1024 == 0) return fmt::format("{}k", bs >> 10);
  return fmt::format("{}", bs);
}
}  // namespace

std::string JobResult::test_label() const {
  if (rw.empty()) {
    std::string s = name.empty() ? "job" : name;
    if (numjobs > 1) s += fmt::format(" x{}", numjobs);
    if (clone_count > 0) s += fmt::format(" job {}/{}", clone_index, clone_count);
    return s;
  }
  std::string kind = rw;  // a mode piprov does not know: fio's name
  if (auto m = rw_mode()) {
    const char* dir = rw_reads(*m) && rw_writes(*m) ? "rw" : rw_reads(*m) ? "read" : "write";
    kind = std::string(rw_random(*m) ? "rand " : "seq ") + dir;
  }
  std::string s = fmt::format("{} {} QD{}", kind, size_label(bs), iodepth ? iodepth : 1);
  if (dsync) s += " sync";
  if (fsync) s += fmt::format(" fsync={}", fsync);
  if (numjobs > 1) s += fmt::format(" x{}", numjobs);
  if (clone_count > 0) s += fmt::format(" job {}/{}", clone_index, clone_count);
  return s;
}

std::string JobResult::sync_label() const {
  if (!sync_kind.empty()) return sync_kind;
  return tool == ResultTool::Piprov ? "fsync" : "fsync/fdatasync/sync_file_range";
}

}  // namespace piprov::bench
