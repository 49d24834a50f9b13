#include "bench/report.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>

#include "bench/verdict.hpp"
#include "core/enum_names.hpp"
#include "core/error.hpp"
#include "core/units.hpp"

namespace piprov::bench {

namespace {
// "md" is accepted for markdown, as the fleet report does.
constexpr EnumName<Format> kBenchFormatNames[] = {
    {Format::Table, "table"}, {Format::Markdown, "markdown"}, {Format::Csv, "csv"}, {Format::Json, "json"}};
}  // namespace

Format parse_format(const std::string& n) {
  if (auto f = parse_enum(kBenchFormatNames, n == "md" ? "markdown" : n)) return *f;
  throw Error(ErrorKind::Usage, "unknown --format '" + n + "': use " + enum_choices(kBenchFormatNames, ", ", " or "));
}

std::string format_choices() { return enum_choices(kBenchFormatNames, " | "); }

std::string fmt_iops(double v) {
  return v < 0 ? "-" : v < 10 && v != std::floor(v) ? fmt::format("{:.1f}", v) : fmt::format("{:.0f}", v);
}
std::string fmt_mib(double v) {
  if (v < 0) return "-";
  if (v >= 100) return fmt::format("{:.0f}", v);
  if (v >= 0.1 || v == 0) return fmt::format("{:.1f}", v);
  return fmt::format("{:.3f}", v);
}
std::string fmt_ms(double v) {
  if (v < 0) return "-";
  if (v >= 100) return fmt::format("{:.0f}", v);
  if (v >= 1) return fmt::format("{:.1f}", v);
  if (v >= 0.1 || v == 0) return fmt::format("{:.2f}", v);
  return fmt::format("{:.3f}", v);  // 4 us is 0.004 ms, not 0.00 (NVMe, page cache)
}

double mean_lat_ms(const DirStats& d) {
  const LatStats& l = d.total_lat();
  return l.present() ? l.mean_ns / 1e6 : -1;
}

double p99_ms(const DirStats& d) {
  if (auto v = d.lat.pct(99.0)) return *v / 1e6;
  if (auto v = d.clat.pct(99.0)) return *v / 1e6;
  return -1;
}

std::vector<Row> table_rows(const Report& r) {
  std::vector<Row> rows;
  auto row_for = [&](const std::string& key) -> Row& {
    for (auto& row : rows)
      if (row.test == key) return row;
    rows.push_back(
        Row{key, std::vector<const DirStats*>(r.targets.size()), std::vector<const JobResult*>(r.targets.size())});
    return rows.back();
  };
  for (std::size_t t = 0; t < r.targets.size(); ++t)
    for (const auto& j : r.targets[t].jobs) {
      bool both = j.read && j.write;
      std::string label = j.test_label();
      // Two jobs of one run with the same test (agnostics: prepare-file and seq-write): the later one's row names it.
      for (const auto& row : rows)
        if (row.jobs[t] && (row.test == label || row.test == label + " (read)" || row.test == label + " (write)")) {
          label += " (" + j.name + ")";
          break;
        }
      if (j.read) {
        Row& row = row_for(both ? label + " (read)" : label);
        row.cells[t] = &*j.read, row.jobs[t] = &j;
      }
      if (j.write) {
        Row& row = row_for(both ? label + " (write)" : label);
        row.cells[t] = &*j.write, row.jobs[t] = &j;
      }
    }
  return rows;
}

namespace {

std::string letter(std::size_t i) {
  return i < 26 ? std::string(1, static_cast<char>('A' + i)) : fmt::format("T{}", i + 1);
}

struct Grid {
  std::vector<std::string> head;
  std::vector<std::vector<std::string>> body;
};

Grid grid(const Report& r) {
  Grid g;
  bool ratio = r.targets.size() == 2;
  g.head.push_back("test");
  for (std::size_t t = 0; t < r.targets.size(); ++t)
    for (const char* c : {"IOPS", "MiB/s", "lat ms", "p99 ms"}) g.head.push_back(letter(t) + " " + c);
  if (ratio) g.head.push_back("B/A MiB/s");
  for (const auto& row : table_rows(r)) {
    std::vector<std::string> line{row.test};
    for (const DirStats* d : row.cells) {
      if (!d) {
        line.insert(line.end(), {"-", "-", "-", "-"});
        continue;
      }
      line.push_back(fmt_iops(d->iops));
      line.push_back(fmt_mib(d->bw_bytes / 1048576.0));
      line.push_back(fmt_ms(mean_lat_ms(*d)));
      line.push_back(fmt_ms(p99_ms(*d)));
    }
    if (ratio) {
      const DirStats *a = row.cells[0], *b = row.cells[1];
      line.push_back(a && b && a->bw_bytes > 0 ? fmt::format("{:.2f}", b->bw_bytes / a->bw_bytes) : "-");
    }
    g.body.push_back(std::move(line));
  }
  return g;
}

std::string target_line(std::size_t i, const TargetResult& t) {
  std::string s = letter(i) + " = " + t.label;
  if (t.device) {
    const auto& d = *t.device;
    std::vector<std::string> parts;
    if (!d.model.empty()) parts.push_back(d.model);
    if (!d.transport.empty()) parts.push_back(d.transport);
    if (!d.driver.empty()) parts.push_back("driver " + d.driver);
    if (!d.usb_speed.empty()) parts.push_back("USB " + d.usb_speed + " Mb/s");
    std::string joined;
    for (const auto& p : parts) joined += (joined.empty() ? "" : ", ") + p;
    if (!joined.empty()) s += " (" + d.name + ": " + joined + ")";
  } else if (!t.jobs.empty() && t.jobs.front().tool != ResultTool::Piprov) {
    s += " [" + t.jobs.front().source + "]";
  }
  return s;
}

std::string dir_note(const std::string& l, const JobResult& j, const char* dir, const DirStats& d) {
  return fmt::format(
      "{} {} {}: fio printed BW={} but its io / runtime is {} MiB/s; the table shows the computed value (fio "
      "before 3.26 printed some figures a unit low: fio commit c736b361, num2str precision loss)",
      l, j.test_label(), dir, d.bw_printed_text, fmt_mib(d.bw_bytes / 1048576.0));
}

// Notes of one job: failure, interruption, sync section, fio's misprinted
// bandwidth, group sums of separately reported numjobs.
void job_notes(const std::string& l, const TargetResult& t, const JobResult& j, std::vector<std::string>& n) {
  bool imported = j.tool != ResultTool::Piprov;
  if (!j.error.empty() && t.error.find(j.error) == std::string::npos)
    n.push_back(imported ? fmt::format("{} {}", l, j.error)
                         : fmt::format("{} {}: job failed: {}", l, j.test_label(), j.error));
  if (j.interrupted && j.clone_count == 0)  // numjobs clones: said once, on their group sum
    n.push_back(j.interrupt_signal ? fmt::format("{} {}: interrupted (fio: terminating on signal {}), partial figures",
                                                 l, j.test_label(), j.interrupt_signal)
                                   : fmt::format("{} {}: interrupted, partial figures", l, j.test_label()));
  if (j.sync && j.sync->present()) {
    auto p99 = j.sync->pct(99.0);
    std::string calls = j.sync_ios ? fmt::format(" {} calls,", j.sync_ios) : std::string();
    n.push_back(fmt::format("{} {}: sync ({}){} mean {} ms, p99 {} ms", l, j.test_label(), j.sync_label(), calls,
                            fmt_ms(j.sync->mean_ns / 1e6), fmt_ms(p99 ? *p99 / 1e6 : -1)));
  }
  if (j.read && j.read->bw_printed > 0) n.push_back(dir_note(l, j, "read", *j.read));
  if (j.write && j.write->bw_printed > 0) n.push_back(dir_note(l, j, "write", *j.write));
  if (j.group_sum)
    n.push_back(
        fmt::format("{} {}: sum of the {} jobs fio reported separately (numjobs without group_reporting): "
                    "IOPS summed, bandwidth as bytes over the longest runtime, latency pooled",
                    l, j.test_label(), j.numjobs));
}

// Notes under the table: failures, fsync sections, device statistics, verdicts.
std::vector<std::string> notes(const Report& r, const RenderOptions& opts) {
  std::vector<std::string> n;
  for (std::size_t i = 0; i < r.targets.size(); ++i) {
    const auto& t = r.targets[i];
    if (t.device && !t.device->name.empty()) {
      const auto& d = *t.device;
      n.push_back(fmt::format(
          "{} device {}: {}, logical/physical block {}/{}, nr_requests {}, max_hw_sectors_kb "
          "{}, max_sectors_kb {}, optimal_io_size {}, rotational {}, scheduler {}, write cache {}",
          letter(i), d.name, format_bytes(d.size_bytes), d.logical_block_size, d.physical_block_size, d.nr_requests,
          d.max_hw_sectors_kb, d.max_sectors_kb, d.optimal_io_size, d.rotational ? "yes" : "no",
          d.scheduler.empty() ? "-" : d.scheduler, d.write_cache.empty() ? "-" : d.write_cache));
    }
    if (!t.error.empty()) n.push_back(fmt::format("{} ({}) FAILED: {}", letter(i), t.label, t.error));
    for (const auto& j : t.jobs) {
      job_notes(letter(i), t, j, n);
      if (j.disk && j.disk->elapsed_s > 0) {
        const auto& d = *j.disk;
        n.push_back(
            fmt::format("{} {}: {} tps {:.0f} rkB/s {:.0f} wkB/s {:.0f} areq-sz {:.1f}kB aqu-sz {:.2f} "
                        "await {:.2f}ms %util {:.1f} (merges {}/{})",
                        letter(i), j.test_label(), d.device, d.tps(), d.rkb_s(), d.wkb_s(), d.areq_sz_kb(), d.aqu_sz(),
                        d.await_ms(), d.util_pct(), d.read_merges, d.write_merges));
      }
    }
    if (auto v = sd_verdict(t, opts.sd_verdict_all)) n.push_back(v->text);
    if (auto v = agnostics_verdict(t)) n.insert(n.end(), v->text.begin(), v->text.end());
  }
  return n;
}

std::string render_table(const Report& r, const RenderOptions& opts) {
  Grid g = grid(r);
  std::vector<std::size_t> w(g.head.size(), 0);
  for (std::size_t c = 0; c < g.head.size(); ++c) {
    w[c] = g.head[c].size();
    for (const auto& l : g.body) w[c] = std::max(w[c], l[c].size());
  }
  std::string out;
  for (std::size_t i = 0; i < r.targets.size(); ++i) out += target_line(i, r.targets[i]) + "\n";
  out += "\n";
  auto emit = [&](const std::vector<std::string>& l) {
    for (std::size_t c = 0; c < l.size(); ++c)
      out += c == 0 ? fmt::format("{:<{}}", l[c], w[c]) : fmt::format("  {:>{}}", l[c], w[c]);
    out += "\n";
  };
  emit(g.head);
  for (const auto& l : g.body) emit(l);
  auto n = notes(r, opts);
  if (!n.empty()) out += "\n";
  for (const auto& s : n) out += s + "\n";
  if (r.interrupted) out += "interrupted: figures above are what finished\n";
  return out;
}

std::string render_markdown(const Report& r, const RenderOptions& opts) {
  Grid g = grid(r);
  std::string out;
  for (std::size_t i = 0; i < r.targets.size(); ++i) out += "- " + target_line(i, r.targets[i]) + "\n";
  out += "\n|";
  for (const auto& h : g.head) out += " " + h + " |";
  out += "\n|";
  for (std::size_t c = 0; c < g.head.size(); ++c) out += c == 0 ? "---|" : "---:|";
  out += "\n";
  for (const auto& l : g.body) {
    out += "|";
    for (const auto& c : l) out += " " + c + " |";
    out += "\n";
  }
  auto n = notes(r, opts);
  if (!n.empty()) out += "\n";
  for (const auto& s : n) out += "- " + s + "\n";
  return out;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string o = "\"";
  for (char c : s) o += c == '"' ? std::string("\"\"") : std::string(1, c);
  return o + "\"";
}

std::string num(double v) { return v < 0 ? "" : fmt::format("{:.6g}", v); }

/// An empty field where the input did not say (a terse or sdtest.sh import has no bs or iodepth).
std::string known(std::uint64_t v) { return v ? std::to_string(v) : std::string(); }

std::string render_csv(const Report& r) {
  std::string out =
      "target,test,dir,rw,bs,iodepth,numjobs,engine,ios,runtime_s,iops,bw_mib_s,bw_mb_s,lat_mean_ms,lat_min_ms,"
      "lat_max_ms,p50_ms,p90_ms,p99_ms,p99.9_ms,p99.99_ms,sync_mean_ms,error\n";
  for (const auto& t : r.targets)
    for (const auto& j : t.jobs)
      for (const auto& [dir, d] : {std::pair{"read", &j.read}, std::pair{"write", &j.write}}) {
        if (!*d) continue;
        const DirStats& s = **d;
        const LatStats& l = s.total_lat();
        auto pct = [&](double p) {
          auto v = s.lat.pct(p);
          if (!v) v = s.clat.pct(p);
          return v ? num(*v / 1e6) : std::string();
        };
        out +=
            fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", csv_field(t.label),
                        csv_field(j.test_label()), dir, j.rw, known(j.bs), known(j.iodepth), known(j.numjobs), j.engine,
                        s.ios, num(s.runtime_s), num(s.iops), num(s.bw_bytes / 1048576.0), num(s.bw_bytes / 1e6),
                        l.present() ? num(l.mean_ns / 1e6) : "", l.present() ? num(l.min_ns / 1e6) : "",
                        l.present() ? num(l.max_ns / 1e6) : "", pct(50), pct(90), pct(99), pct(99.9), pct(99.99),
                        j.sync ? num(j.sync->mean_ns / 1e6) : "", csv_field(j.error.empty() ? t.error : j.error));
      }
  return out;
}

}  // namespace

std::string render(const Report& r, Format f, const RenderOptions& opts) {
  switch (f) {
    case Format::Table: return render_table(r, opts);
    case Format::Markdown: return render_markdown(r, opts);
    case Format::Csv: return render_csv(r);
    case Format::Json: return report_to_json(r, opts) + "\n";
  }
  return {};
}

}  // namespace piprov::bench
