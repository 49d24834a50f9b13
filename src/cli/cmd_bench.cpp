// `piprov bench TARGET...` and `piprov bench import FIO_OUTPUT...`.
// Wiring and printing only; the work is in src/bench/.
#include <fmt/format.h>
#include <cstdio>

#include "bench/bench.hpp"
#include "bench/fio/import.hpp"
#include "bench/options.hpp"
#include "bench/profiles.hpp"
#include "bench/report.hpp"
#include "bench/svg.hpp"
#include "cli/commands.hpp"
#include "cli/progress_render.hpp"
#include "cli/write_options.hpp"
#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/units.hpp"
#include "core/write_guard.hpp"

namespace piprov::cli {
namespace {

/// CLI11 check of a numeric option against its row of bench::option_limits()
/// (the table validate() uses too).
CLI::Validator limit_check(const char* option) {
  const bench::OptionLimit& l = bench::option_limit(option);
  return CLI::Validator([&l](std::string& text) { return bench::limit_error(l, text); },
                        l.unit == "seconds" ? "SECONDS" : "");
}

struct Output {
  std::string format = "table";
  bool json = false;
  std::string svg;
  bool sd_class = false;
};

void add_output_options(CLI::App* c, Output& o) {
  c->add_option("--format", o.format, bench::format_choices())->capture_default_str();
  c->add_flag("--json", o.json, "Same as --format json (everything, histograms included)");
  c->add_option("--svg", o.svg, "Also write charts to this SVG file (bars per test, latency percentiles per target)");
  c->add_flag("--sd-class", o.sd_class, "Give the SD A1/A2 verdict for every target (default: SD cards only)");
}

void emit(const bench::Report& rep, const Output& o) {
  auto f = bench::parse_format(o.json ? "json" : o.format);
  fmt::print("{}", bench::render(rep, f, {.sd_verdict_all = o.sd_class}));
  std::fflush(stdout);
  if (!o.svg.empty()) {
    check_output_file(o.svg, "--svg");  // again: the run took a while
    atomic_write(o.svg, bench::render_svg(rep));
  }
}

struct BenchOpts {
  std::vector<std::string> targets;
  std::string profile = "pi";
  std::string rw, engine, bs, size, only;
  unsigned iodepth = 0, numjobs = 0, fsync = 0, rwmixread = 101;
  double runtime = 0, ramp = -1;
  bool sync = false, buffered = false, destructive = false;
  ProgressMode progress = ProgressMode::Auto;
  Output out;
};

/// The profile, --only and the ad-hoc options as one request. Throws
/// Error{Usage} for a missing TARGET, unknown names or bad sizes.
bench::BenchRequest request_of(const BenchOpts& o) {
  if (o.targets.empty())
    throw Error(ErrorKind::Usage, "bench needs a TARGET (directory, file or block device), or use `bench import`");
  (void)bench::parse_format(o.out.json ? "json" : o.out.format);  // a typo fails before minutes of I/O
  bench::Profile p = bench::profile(o.profile);
  if (!o.only.empty()) bench::select_jobs(p, o.only);
  bench::Overrides ov;
  if (!o.rw.empty()) {
    ov.rw = bench::parse_rw(o.rw);
    if (!ov.rw) throw Error(ErrorKind::Usage, "--rw '" + o.rw + "' is not one of " + bench::rw_choices());
  }
  if (!o.engine.empty()) ov.engine = bench::parse_engine(o.engine);
  if (!o.bs.empty()) ov.bs = parse_size(o.bs, "--bs");
  if (o.iodepth) ov.iodepth = o.iodepth;
  if (o.numjobs) ov.numjobs = o.numjobs;
  if (o.fsync) ov.fsync = o.fsync;
  if (o.rwmixread <= 100) ov.rwmixread = o.rwmixread;
  if (o.runtime > 0) ov.runtime_s = o.runtime;
  if (o.ramp >= 0) ov.ramp_s = o.ramp;
  if (o.buffered) ov.direct = false;
  if (o.sync) ov.dsync = true;
  bench::apply_overrides(p, ov);
  bench::BenchRequest req;
  req.targets = o.targets;
  req.jobs = p.jobs;
  req.destructive = o.destructive;
  req.size = !o.size.empty() ? parse_size(o.size, "--size") : p.default_size;
  return req;
}

/// TARGET, --profile, --only, the ad-hoc job options, --destructive, --progress and the output options.
void add_bench_run_options(CLI::App* bench, BenchOpts& o) {
  bench->add_option("TARGET", o.targets,
                    "An existing directory on the mounted disk (a test file is made in it and removed), an existing "
                    "file, or a block device");
  bench->add_option("--profile", o.profile, bench::profile_help())->capture_default_str();
  bench->add_option("--only", o.only, "Run only these jobs of the profile (comma-separated, e.g. seq-read,rand-write)");
  bench->add_option("--rw", o.rw, "Ad-hoc job instead of the profile: " + bench::rw_choices());
  bench->add_option("--bs", o.bs, "Block size (4k, 4M)");
  bench->add_option("--iodepth", o.iodepth, "I/Os kept in flight per job")->check(limit_check("--iodepth"));
  bench->add_option("--numjobs", o.numjobs, "Threads, each with its own fd")->check(limit_check("--numjobs"));
  bench->add_option("--runtime", o.runtime, "Seconds measured per test")->check(limit_check("--runtime"));
  bench->add_option("--ramp", o.ramp, "Seconds run before measuring (not counted)")->check(limit_check("--ramp"));
  bench->add_option("--size", o.size, "Bytes of the target to use (capped to what it holds; new test file default 1G)");
  bench->add_option("--engine", o.engine, bench::engine_choices());
  bench->add_flag("--sync", o.sync, "Open with O_DSYNC (fio sync=1)");
  bench->add_option("--fsync", o.fsync, "fsync after every N writes, timed as a separate sync section");
  bench->add_option("--rwmixread", o.rwmixread, "Percent reads for rw/randrw")->check(limit_check("--rwmixread"));
  bench->add_flag("--buffered", o.buffered, "Use the page cache (no O_DIRECT)");
  bench->add_flag("--destructive", o.destructive,
                  "Allow write tests on a block device or an existing file (never a mounted or system disk)");
  add_progress_option(bench, o.progress);
  auto none = [&o] { o.progress = ProgressMode::None; };
  bench->add_flag_callback("--no-progress", none, "Same as --progress none")
      ->group("");  // the old spelling, kept working, not in --help (docs/bench.md)
  add_output_options(bench, o.out);
}

/// `bench import FIO_OUTPUT...`; returns the subcommand.
CLI::App* add_bench_import(CLI::App* bench, int& exit_code) {
  auto* imp = bench->add_subcommand(
      "import", "Tabulate fio outputs (json, normal text or terse, fio 2.x/3.x) side by side; - reads stdin");
  auto io = std::make_shared<std::vector<std::string>>();
  auto iout = std::make_shared<Output>();
  imp->add_option("FIO_OUTPUT", *io,
                  "fio outputs (json, text or terse; prose around them is skipped), agnostics sdtest.sh reports, "
                  "piprov JSON reports, or - for standard input")
      ->required()
      ->check(CLI::Validator([](std::string& p) { return p == "-" ? std::string() : CLI::ExistingFile(p); }, "FILE"));
  add_output_options(imp, *iout);
  imp->callback([io, iout, &exit_code] {
    if (!iout->svg.empty()) check_output_file(iout->svg, "--svg");
    auto rep = bench::import_fio_files(*io);
    emit(rep, *iout);
    // a failed fio job is a result, but not a good one: exit 3 naming it
    exit_code = bench::exit_code_of(rep);
    for (const auto& t : rep.targets)
      for (const auto& j : t.jobs)
        if (j.err) std::fprintf(stderr, "piprov: error: %s [%s]\n", j.error.c_str(), j.source.c_str());
  });
  return imp;
}

/// Runs `bench TARGET...`: the run with its status line, then the report and the errors.
void run_bench_command(const BenchOpts& o, const Globals& g, int& exit_code) {
  if (!o.out.svg.empty()) check_output_file(o.out.svg, "--svg");  // before the run, not after it
  bench::BenchRequest req = request_of(o);
  auto rep = [&] {  // the status line is cleared before the report is printed
    // -q silences the status line unless a mode was asked for
    ProgressRenderer progress(g.quiet && o.progress == ProgressMode::Auto ? ProgressMode::None
                                                                          : resolve_on_stderr(o.progress));
    return bench::run_bench(req, progress.sink());
  }();
  emit(rep, o.out);
  exit_code = bench::exit_code_of(rep);
  for (const auto& t : rep.targets)
    if (!t.error.empty()) std::fprintf(stderr, "piprov: error: %s: %s\n", t.label.c_str(), t.error.c_str());
  if (rep.interrupted) std::fprintf(stderr, "piprov: interrupted; test files removed\n");
}

}  // namespace

void add_bench_command(CLI::App& app, Globals& g, int& exit_code) {
  auto* bench = app.add_subcommand(
      "bench", fmt::format("Benchmark storage targets side by side (profiles {}), or tabulate fio outputs",
                           fmt::join(bench::profile_names(), ", ")));
  auto o = std::make_shared<BenchOpts>();
  add_bench_run_options(bench, *o);
  auto* imp = add_bench_import(bench, exit_code);
  bench->callback([o, imp, &g, &exit_code] {
    if (imp->parsed()) return;
    run_bench_command(*o, g, exit_code);
  });
}

}  // namespace piprov::cli
