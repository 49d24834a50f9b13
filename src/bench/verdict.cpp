#include "bench/verdict.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>

#include "core/enum_names.hpp"

namespace piprov::bench {

namespace {
constexpr EnumName<SdClass> kSdClassNames[] = {
    {SdClass::A2, "A2"}, {SdClass::A1, "A1"}, {SdClass::BelowA1, "below A1"}, {SdClass::Incomplete, "incomplete"}};
}  // namespace

std::string_view sd_class_name(SdClass c) { return enum_name(kSdClassNames, c); }

std::optional<SdVerdict> sd_verdict(const TargetResult& t, bool force) {
  bool sd = (t.device && t.device->is_sd()) || t.label.find("mmcblk") != std::string::npos;
  if (!sd && !force) return std::nullopt;
  SdVerdict v;
  for (const auto& j : t.jobs) {
    const auto rw = j.rw_mode();
    if (j.bs == 4096 && rw == Rw::RandRead && j.read) v.rand_read_iops = std::max(v.rand_read_iops, j.read->iops);
    if (j.bs == 4096 && rw == Rw::RandWrite && j.write) v.rand_write_iops = std::max(v.rand_write_iops, j.write->iops);
    if (rw == Rw::Write && j.write) v.seq_write_mb_s = std::max(v.seq_write_mb_s, j.write->bw_bytes / 1e6);
  }
  std::string figures =
      fmt::format("4k random read {:.0f} IOPS, 4k random write {:.0f} IOPS, sequential write {:.1f} MB/s",
                  v.rand_read_iops, v.rand_write_iops, v.seq_write_mb_s);
  if (v.rand_read_iops < 0 || v.rand_write_iops < 0 || v.seq_write_mb_s < 0) {
    v.cls = SdClass::Incomplete;
    v.text =
        t.label + ": SD A1/A2 verdict needs 4k random read, 4k random write and sequential write tests (profile pi)";
    return v;
  }
  auto meets = [&](double r, double w) {
    return v.rand_read_iops >= r && v.rand_write_iops >= w && v.seq_write_mb_s >= 10;
  };
  if (meets(4000, 2000))
    v.cls = SdClass::A2;
  else if (meets(1500, 500))
    v.cls = SdClass::A1;
  else
    v.cls = SdClass::BelowA1;
  std::string why;
  if (v.cls == SdClass::BelowA1) {
    if (v.rand_read_iops < 1500) why += fmt::format("; read IOPS < 1500");
    if (v.rand_write_iops < 500) why += fmt::format("; write IOPS < 500");
    if (v.seq_write_mb_s < 10) why += fmt::format("; sequential write < 10 MB/s");
  }
  v.text = fmt::format("{}: SD class {} ({}{}; A1 needs 1500/500 IOPS, A2 4000/2000, both 10 MB/s)", t.label,
                       sd_class_name(v.cls), figures, why);
  return v;
}

namespace {
constexpr EnumName<AgnosticsResult> kAgnosticsResultNames[] = {
    {AgnosticsResult::Pass, "PASS"}, {AgnosticsResult::Fail, "FAIL"}, {AgnosticsResult::Incomplete, "INCOMPLETE"}};
}  // namespace

std::string_view agnostics_result_name(AgnosticsResult r) { return enum_name(kAgnosticsResultNames, r); }
std::optional<AgnosticsResult> parse_agnostics_result(std::string_view name) {
  return parse_enum(kAgnosticsResultNames, name);
}

namespace {

const JobResult* job_named(const TargetResult& t, const std::string& name) {
  for (const auto& j : t.jobs)
    if (j.name == name && !j.err) return &j;
  return nullptr;
}

// The figure sdtest.sh compares, from the job: write bw (KiB/s), write IOPS or read IOPS.
double measured(const JobResult* j, bool read, bool iops) {
  if (!j) return -1;
  const auto& d = read ? j->read : j->write;
  // An import of sdtest.sh's report has IOPS and bandwidth but no I/O count.
  if (!d || (d->ios == 0 && d->iops <= 0 && d->bw_bytes <= 0)) return -1;
  return iops ? d->iops : d->bw_bytes / 1024;
}

}  // namespace

std::optional<AgnosticsVerdict> agnostics_verdict(const TargetResult& t) {
  bool agnostics = false;  // also when those jobs failed: the verdict says what is missing
  for (const auto& j : t.jobs)
    agnostics |= j.name == "prepare-file" || j.name == "rand-4k-write" || j.name == "rand-4k-read";
  if (!agnostics) return std::nullopt;
  AgnosticsVerdict v;
  v.lines = {{"seq-write", "Sequential write speed", "KiB/s", 10000, measured(job_named(t, "seq-write"), false, false)},
             {"rand-4k-write", "Random write speed", "IOPS", 500, measured(job_named(t, "rand-4k-write"), false, true)},
             {"rand-4k-read", "Random read speed", "IOPS", 1500, measured(job_named(t, "rand-4k-read"), true, true)}};
  bool fail = false, missing = false;
  for (const auto& l : v.lines) {
    const AgnosticsResult r = l.result();
    missing |= r == AgnosticsResult::Incomplete;
    fail |= r == AgnosticsResult::Fail;
    if (r == AgnosticsResult::Incomplete)
      v.text.push_back(fmt::format("{}: {} not measured (job {} did not run) - {}", t.label, l.what, l.job,
                                   agnostics_result_name(r)));
    else
      v.text.push_back(fmt::format("{}: {} {:.0f} {} (target {:.0f}) - {}", t.label, l.what, std::floor(l.measured),
                                   l.unit, l.threshold, agnostics_result_name(r)));
  }
  v.overall = fail ? AgnosticsResult::Fail : missing ? AgnosticsResult::Incomplete : AgnosticsResult::Pass;
  v.text.push_back(
      fmt::format("{}: Raspberry Pi SD card test (agnostics): {}", t.label, agnostics_result_name(v.overall)));
  return v;
}

}  // namespace piprov::bench
