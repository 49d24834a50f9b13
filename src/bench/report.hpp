#pragma once
// Rendering a bench Report: a side-by-side comparison table (test rows; per
// target IOPS, MiB/s, mean lat ms, p99 ms; a B/A ratio column for two
// targets), markdown, CSV (one row per target x test) and JSON (everything,
// histograms included, readable back by report_from_json). SVG charts: svg.hpp.
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "bench/result.hpp"

namespace piprov::bench {

enum class Format { Table, Markdown, Csv, Json };

/// "table" | "markdown" | "csv" | "json"; throws Error{Usage} otherwise.
Format parse_format(const std::string& name);
/// "table | markdown | csv | json" (--format's help).
std::string format_choices();

/// One table row: a test (and direction for mixed read/write jobs) and, per
/// target, the job direction measured (nullptr where that target lacks it).
struct Row {
  std::string test;  ///< test label, + " (read)"/" (write)" for mixed jobs
  std::vector<const DirStats*> cells;
  std::vector<const JobResult*> jobs;
};

/// Rows in order of first appearance over all targets.
std::vector<Row> table_rows(const Report& r);

/// Mean latency in ms, p99 in ms (nullopt-like -1 when unknown) of a cell.
double mean_lat_ms(const DirStats& d);
double p99_ms(const DirStats& d);

/// How to render a report (not part of the measured data).
struct RenderOptions {
  bool sd_verdict_all = false;  ///< give the SD A1/A2 verdict for every target (--sd-class), not only SD cards
};

/// Renders `r`. JSON is documented in docs/bench.md ("JSON schema").
std::string render(const Report& r, Format f, const RenderOptions& opts = {});

/// The schema tag of bench's JSON report ("schema": "piprov.bench/2", docs/bench.md).
/// Version 1 was tagged `"piprov_bench": 1` instead; it is still read.
inline constexpr const char* kBenchSchema = "piprov.bench/2";

/// True when `doc` is a bench JSON report: "schema": "piprov.bench/2", or the
/// old `"piprov_bench"` key.
bool is_bench_report(const nlohmann::json& doc);
/// The same test on a document's text, without parsing it (`bench import`
/// tells a saved report from a fio JSON output by this).
bool looks_like_bench_report(std::string_view text);

/// JSON text of `r` (schema kBenchSchema), and back. report_from_json reads
/// both versions and throws Error{Usage} when `text` is not such a document.
std::string report_to_json(const Report& r, const RenderOptions& opts = {});
Report report_from_json(std::string_view text, const std::string& source);

/// Figures as the tables print them: IOPS "94"; MiB/s "379", "43.3";
/// ms "2936", "6.1", "0.19".
std::string fmt_iops(double v);
std::string fmt_mib(double v);
std::string fmt_ms(double v);

}  // namespace piprov::bench
