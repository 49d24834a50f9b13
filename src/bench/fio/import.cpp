#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "bench/fio/import.hpp"
#include "bench/report.hpp"
#include "core/error.hpp"
#include "core/file.hpp"

namespace piprov::bench {

std::string job_failure(const std::string& name, int err, const std::string& fio_text, const std::string& verify) {
  std::string out = "job " + name + " failed: ";
  if (!verify.empty()) out += "fio's verify read back data that differs from what it wrote (" + verify + "); ";
  if (fio_text.empty()) return out + "fio error " + std::to_string(err) + " (its text is not in this output)";
  return out + fio_text + " (fio error " + std::to_string(err) + ")";
}

std::map<int, std::string> fio_error_texts(std::string_view text) {
  static const std::regex setup(R"(err=(\d+)/[^\n]*?error=([^\n]+))");
  static const std::regex job(R"(err=\s*(\d+) \([^\n]*?error=([^)\n]+)\))");
  std::map<int, std::string> out;
  const std::string t(text);
  for (const auto* re : {&setup, &job})
    for (std::sregex_iterator it(t.begin(), t.end(), *re), end; it != end; ++it) {
      std::string msg = (*it)[2];
      while (!msg.empty() && (msg.back() == '\r' || msg.back() == ' ')) msg.pop_back();
      out.emplace(std::stoi((*it)[1].str().substr(0, 9)), msg);
    }
  return out;
}

std::string fio_verify_failure(std::string_view text) {
  static const std::regex verify(R"((?:^|\n)\s*((?:verify: |[a-z0-9]+: verify failed|fio: verify )[^\n]*))");
  std::match_results<std::string_view::const_iterator> m;
  if (!std::regex_search(text.begin(), text.end(), m, verify)) return "";
  std::string line = m[1];
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
  return line;
}

namespace {
// `--output-format=terse,normal` prints each job twice: keep the normal block
// (it has rw, bs and the engine from the job header) and add terse lines of
// jobs the text does not report (the k-th terse line of a name pairs with the
// k-th block of that name).
std::vector<ImportedJob> merge_terse(std::vector<ImportedJob> text, const std::vector<ImportedJob>& terse) {
  std::map<std::string, std::size_t> blocks, seen;
  for (const auto& j : text) ++blocks[j.job.name];
  for (const auto& t : terse)
    if (++seen[t.job.name] > blocks[t.job.name]) text.push_back(t);
  return text;
}
}  // namespace

std::vector<ImportedJob> parse_fio_output(std::string_view text, const std::string& source) {
  auto jobs = parse_fio_json(text, source);
  if (jobs.empty()) jobs = merge_terse(parse_fio_text(text, source), parse_fio_terse(text, source));
  if (jobs.empty()) jobs = parse_agnostics_report(text, source);
  const auto texts = fio_error_texts(text);
  const std::string verify = fio_verify_failure(text);
  for (auto& j : jobs)
    if (j.job.err) {
      auto t = texts.find(j.job.err);
      j.job.error = job_failure(j.job.name, j.job.err, t == texts.end() ? "" : t->second, verify);
    }
  fold_numjobs_clones(jobs);
  return jobs;
}

namespace {
// Key of a job within one target: its name and test label. The same job
// again (a second run, a second file) starts a new column; two jobs of one job
// file with the same test (agnostics' prepare-file and seq-write, both 512k
// sequential writes at QD4) stay in one column as two rows.
std::set<std::string> keys_of(const JobResult& j) {
  std::set<std::string> k;
  k.insert(j.name + '\x1f' + j.test_label());
  return k;
}
}  // namespace

Report group_imported(const std::vector<ImportedJob>& jobs) {
  Report rep;
  for (const auto& ij : jobs) {
    std::string label = ij.target;
    for (int n = 2;; ++n) {
      auto it = std::find_if(rep.targets.begin(), rep.targets.end(), [&](const auto& t) { return t.label == label; });
      if (it == rep.targets.end()) {
        TargetResult t;
        t.label = label;
        t.path = ij.target;
        t.jobs.push_back(ij.job);
        rep.targets.push_back(std::move(t));
        break;
      }
      bool clash = false;
      for (const auto& j : it->jobs)
        for (const auto& k : keys_of(ij.job)) clash |= keys_of(j).count(k) > 0;
      if (!clash) {
        it->jobs.push_back(ij.job);
        break;
      }
      label = ij.target + " #" + std::to_string(n);
    }
  }
  return rep;
}

Report import_fio_files(const std::vector<std::string>& paths) {
  std::vector<ImportedJob> all;
  for (const auto& p : paths) {
    // fio outputs are kilobytes to a few MiB (a JSON with histograms); read at
    // most 64 MiB so /dev/zero or a disk image is refused, not slurped.
    auto read = read_file_capped(p, 64u << 20, "fio output");
    if (!read)
      throw Error(ErrorKind::Usage,
                  "fio output " + p + " is over 64 MiB: not a fio output (give fio's json or text output)");
    std::string content = std::move(*read);
    std::string source = p == "-" ? std::string("stdin") : std::filesystem::path(p).filename().string();
    if (looks_like_bench_report(content)) {  // a saved `piprov bench --format json` run
      for (auto& t : report_from_json(content, p).targets)
        for (auto& j : t.jobs) all.push_back({t.label, std::move(j)});
      continue;
    }
    auto jobs = parse_fio_output(content, source);
    const std::string name = p == "-" ? std::string("standard input") : p;
    if (jobs.empty())
      throw Error(ErrorKind::Usage, name +
                                        ": no fio results found (expected fio --output-format=json, normal or "
                                        "terse output, or an agnostics sdtest.sh report)");
    if (jobs.front().agnostics_report)
      if (auto missing = agnostics_missing_rows(content); !missing.empty())
        throw Error(ErrorKind::Usage, name + ": the agnostics sdtest.sh report is incomplete: " + missing +
                                          " (each run prints prepare-file, seq-write, rand-4k-write and "
                                          "rand-4k-read); give the whole report");
    all.insert(all.end(), jobs.begin(), jobs.end());
  }
  return group_imported(all);
}

}  // namespace piprov::bench
