// `piprov bench TARGET...` and `piprov bench import FIO_OUTPUT...`.
// Wiring and printing only; the work is in src/bench/.
#include <fmt/format.h>
#include <unistd.h>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "bench/bench.hpp"
#include "bench/fio/import.hpp"
#include "bench/profiles.hpp"
#include "bench/report.hpp"
#include "bench/svg.hpp"
#include "cli/registry.hpp"
#include "core/error.hpp"
#include "core/units.hpp"

namespace piprov::cli {
namespace {

// CLI11's Range lets NaN through (every comparison with NaN is false): seconds
// must be finite numbers within [lo, hi].
CLI::Validator finite_range(double lo, double hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (end == text.c_str() || *end != '\0' || !std::isfinite(v) || v < lo || v > hi)
          return "must be a number of seconds from " + CLI::detail::to_string(lo) + " to " +
                 CLI::detail::to_string(hi) + ", got '" + text + "'";
        return {};
      },
      "SECONDS");
}

struct Output {
  std::string format = "table";
  bool json = false;
  std::string svg;
  bool sd_class = false;
};

void add_output_options(CLI::App* c, Output& o) {
  c->add_option("--format", o.format, "table | markdown | csv | json")->capture_default_str();
  c->add_flag("--json", o.json, "Same as --format json (everything, histograms included)");
  c->add_option("--svg", o.svg, "Also write charts to this SVG file (bars per test, latency percentiles per target)");
  c->add_flag("--sd-class", o.sd_class, "Give the SD A1/A2 verdict for every target (default: SD cards only)");
}

void emit(bench::Report& rep, const Output& o) {
  rep.sd_verdict_all = o.sd_class;
  auto f = bench::parse_format(o.json ? "json" : o.format);
  fmt::print("{}", bench::render(rep, f));
  std::fflush(stdout);
  if (!o.svg.empty()) {
    std::ofstream out(o.svg, std::ios::binary | std::ios::trunc);
    out << bench::render_svg(rep);
    if (!out) throw io_error("write " + o.svg, errno);
  }
}

struct BenchOpts {
  std::vector<std::string> targets;
  std::string profile = "pi";
  std::string rw, engine, bs, size, only;
  unsigned iodepth = 0, numjobs = 0, fsync = 0, rwmixread = 101;
  double runtime = 0, ramp = -1;
  bool sync = false, buffered = false, destructive = false, no_progress = false;
  Output out;
};

void progress_line(const bench::BenchProgress& p) {
  static std::chrono::steady_clock::time_point last;
  auto now = std::chrono::steady_clock::now();
  if (now - last < std::chrono::milliseconds(200) && p.done < p.total) return;
  last = now;
  std::string s;
  if (p.phase == "prefill")
    s = fmt::format("{}: pre-filling test file {} / {}", p.target, format_bytes(static_cast<std::uint64_t>(p.done)),
                    format_bytes(static_cast<std::uint64_t>(p.total)));
  else
    s = fmt::format("{}: [{}/{}] {} {:.1f}/{:.1f} s, {:.0f} IOPS", p.target, p.job_index, p.job_count, p.job, p.done,
                    p.total, p.iops_now);
  s += fmt::format(", ETA {}", format_duration(std::max(0.0, p.eta_s)));
  std::fprintf(stderr, "\r\033[K%s", s.c_str());
  std::fflush(stderr);
}

const CommandRegistrar reg(60, [](CLI::App& app, Globals& g, int& exit_code) {
  auto* bench = app.add_subcommand(
      "bench",
      "Benchmark storage targets side by side (profiles pi, sync-write, throughput, quick), or tabulate fio outputs");
  auto o = std::make_shared<BenchOpts>();
  bench->add_option(
      "TARGET", o->targets,
      "Directory or file on a mounted filesystem (a test file is created and removed), or a block device");
  bench
      ->add_option("--profile", o->profile,
                   "pi (4M seq + 4k sync random, SD vs USB SSD) | sync-write (4k fsync writes at 1/8/20 jobs) | "
                   "throughput (256k randwrite, deep queue) | quick (pi, 5 s each)")
      ->capture_default_str();
  bench->add_option("--only", o->only,
                    "Run only these jobs of the profile (comma-separated, e.g. seq-read,rand-write)");
  bench->add_option("--rw", o->rw, "Ad-hoc job instead of the profile: read write randread randwrite rw randrw");
  bench->add_option("--bs", o->bs, "Block size (4k, 4M)");
  bench->add_option("--iodepth", o->iodepth, "I/Os kept in flight per job")->check(CLI::Range(1u, 65536u));
  bench->add_option("--numjobs", o->numjobs, "Threads, each with its own fd")->check(CLI::Range(1u, 1024u));
  bench->add_option("--runtime", o->runtime, "Seconds measured per test")->check(finite_range(0.01, 86400.0));
  bench->add_option("--ramp", o->ramp, "Seconds run before measuring (not counted)")->check(finite_range(0.0, 3600.0));
  bench->add_option("--size", o->size,
                    "Bytes of the target to use (capped to what it holds; new test file default 1G)");
  bench->add_option("--engine", o->engine, "psync | libaio | io_uring");
  bench->add_flag("--sync", o->sync, "Open with O_DSYNC (fio sync=1)");
  bench->add_option("--fsync", o->fsync, "fsync after every N writes, timed as a separate sync section");
  bench->add_option("--rwmixread", o->rwmixread, "Percent reads for rw/randrw")->check(CLI::Range(0u, 100u));
  bench->add_flag("--buffered", o->buffered, "Use the page cache (no O_DIRECT)");
  bench->add_flag("--destructive", o->destructive,
                  "Allow write tests on a block device or an existing file (never a mounted or system disk)");
  bench->add_flag("--no-progress", o->no_progress, "No status line on stderr");
  add_output_options(bench, o->out);

  auto* imp = bench->add_subcommand("import", "Tabulate fio outputs (json or normal text, fio 2.x/3.x) side by side");
  auto io = std::make_shared<std::vector<std::string>>();
  auto iout = std::make_shared<Output>();
  imp->add_option("FIO_OUTPUT", *io, "fio outputs (json or text; prose around them is skipped) or piprov JSON reports")
      ->required()
      ->check(CLI::ExistingFile);
  add_output_options(imp, *iout);
  imp->callback([io, iout] {
    auto rep = bench::import_fio_files(*io);
    emit(rep, *iout);
  });

  bench->callback([o, imp, &g, &exit_code] {
    if (imp->parsed()) return;
    if (o->targets.empty())
      throw Error(ErrorKind::Usage, "bench needs a TARGET (directory, file or block device), or use `bench import`");
    (void)bench::parse_format(o->out.json ? "json" : o->out.format);  // a typo fails before minutes of I/O
    bench::Profile p = bench::profile(o->profile);
    if (!o->only.empty()) bench::select_jobs(p, o->only);
    bench::Overrides ov;
    if (!o->rw.empty()) ov.rw = o->rw;
    if (!o->engine.empty()) ov.engine = o->engine;
    if (!o->bs.empty()) ov.bs = parse_size(o->bs, "--bs");
    if (o->iodepth) ov.iodepth = o->iodepth;
    if (o->numjobs) ov.numjobs = o->numjobs;
    if (o->fsync) ov.fsync = o->fsync;
    if (o->rwmixread <= 100) ov.rwmixread = o->rwmixread;
    if (o->runtime > 0) ov.runtime_s = o->runtime;
    if (o->ramp >= 0) ov.ramp_s = o->ramp;
    if (o->buffered) ov.direct = false;
    if (o->sync) ov.dsync = true;
    bench::apply_overrides(p, ov);
    bench::BenchRequest req;
    req.targets = o->targets;
    req.jobs = p.jobs;
    req.destructive = o->destructive;
    req.size = !o->size.empty() ? parse_size(o->size, "--size") : p.default_size;
    bool tty = !o->no_progress && !g.quiet && ::isatty(2);
    auto rep = bench::run_bench(req, tty ? std::function<void(const bench::BenchProgress&)>(progress_line) : nullptr);
    if (tty) std::fprintf(stderr, "\r\033[K");
    emit(rep, o->out);
    exit_code = bench::exit_code_of(rep);
    for (const auto& t : rep.targets)
      if (!t.error.empty()) std::fprintf(stderr, "piprov: error: %s: %s\n", t.label.c_str(), t.error.c_str());
    if (rep.interrupted) std::fprintf(stderr, "piprov: interrupted; test files removed\n");
  });
});

}  // namespace
}  // namespace piprov::cli
