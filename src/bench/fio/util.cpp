#include "bench/fio/util.hpp"

#include <charconv>
#include <cstdlib>
#include <regex>

#include "core/units.hpp"

namespace piprov::bench {

FioVersion FioVersion::parse(std::string_view s) {
  FioVersion v;
  v.text = std::string(s);
  auto p = s.find("fio-");
  if (p == std::string_view::npos) return v;
  const char* b = s.data() + p + 4;
  const char* e = s.data() + s.size();
  int ma = 0, mi = 0;
  auto r1 = std::from_chars(b, e, ma);
  if (r1.ec != std::errc() || r1.ptr == e || *r1.ptr != '.') return v;
  auto r2 = std::from_chars(r1.ptr + 1, e, mi);
  if (r2.ec != std::errc()) return v;
  v.major = ma;
  v.minor = mi;
  return v;
}

namespace {
std::uint64_t size_of(const std::string& v) {
  // "4k", "4M", "4096", "4KiB"; ranges "4k-4k" and "(R) 4096B-4096B" use the first value
  std::string s = v;
  if (auto d = s.find_first_of("-,:"); d != std::string::npos) s = s.substr(0, d);
  if (!s.empty() && (s.back() == 'B' || s.back() == 'b') && s.size() > 1 &&
      std::isdigit(static_cast<unsigned char>(s[s.size() - 2])))
    s.pop_back();
  try {
    return parse_size(s, "bs");
  } catch (...) {
    return 0;
  }
}
unsigned uint_of(const std::string& v) { return static_cast<unsigned>(std::strtoul(v.c_str(), nullptr, 10)); }
}  // namespace

void FioOptions::set(const std::string& key, const std::string& value) {
  if (key == "name")
    name = value;
  else if (key == "filename")
    filename = value;
  else if (key == "rw" || key == "readwrite")
    rw = value.substr(0, value.find(':'));
  else if (key == "ioengine")
    ioengine = value;
  else if (key == "bs" || key == "blocksize")
    bs = size_of(value);
  else if (key == "iodepth")
    iodepth = uint_of(value);
  else if (key == "numjobs")
    numjobs = uint_of(value);
  else if (key == "fsync" || key == "fdatasync") {
    fsync = uint_of(value);
    if (fsync) sync_kind = key;
  } else if (key == "sync_file_range") {  // "write:8": the count follows the colon
    auto c = value.rfind(':');
    fsync = uint_of(c == std::string::npos ? value : value.substr(c + 1));
    if (fsync) sync_kind = key;
  } else if (key == "direct")
    direct = uint_of(value) ? 1 : 0;
  else if (key == "sync")
    dsync = (value == "0" || value == "none") ? 0 : 1;
}

void FioOptions::apply(JobResult& r) const {
  if (!rw.empty()) r.rw = rw;
  if (bs) r.bs = bs;
  if (iodepth) r.iodepth = iodepth;
  if (numjobs) r.numjobs = numjobs;
  if (!ioengine.empty()) r.engine = ioengine;
  if (direct >= 0) r.direct = direct;
  if (dsync >= 0) r.dsync = dsync;
  if (fsync) r.fsync = fsync;
  if (!sync_kind.empty()) r.sync_kind = sync_kind;
  if (r.name.empty()) r.name = name;
  if (!rw.empty() && !r.bs) r.bs = 4096;  // fio's default bs
  if (!rw.empty() && !r.iodepth) r.iodepth = 1;
}

bool parse_fio_number(std::string_view s, double& out) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  if (s.empty()) return false;
  std::string t(s);
  char* end = nullptr;
  double v = std::strtod(t.c_str(), &end);
  if (end == t.c_str()) return false;
  double m = 1;
  if (*end == 'k' || *end == 'K')
    m = 1e3;
  else if (*end == 'M')
    m = 1e6;
  else if (*end == 'G')
    m = 1e9;
  else if (*end == 'T')
    m = 1e12;
  out = v * m;
  return true;
}

std::uint64_t to_u64(double v) {
  constexpr double kMax = 9223372036854775808.0;  // 2^63
  if (!(v > 0)) return 0;
  if (v >= kMax) return std::uint64_t{1} << 63;
  return static_cast<std::uint64_t>(v);
}

double unit_bytes(std::string_view u, bool legacy) {
  if (u.ends_with("/s")) u.remove_suffix(2);
  if (legacy && u.size() == 2 && u[1] == 'B') {
    if (u[0] == 'K') return 1024.0;
    if (u[0] == 'M') return 1048576.0;
    if (u[0] == 'G') return 1073741824.0;
    if (u[0] == 'T') return 1099511627776.0;
  }
  if (u == "B") return 1;
  if (u == "KiB" || u == "KB" || u == "K") return 1024.0;
  if (u == "MiB") return 1048576.0;
  if (u == "GiB") return 1073741824.0;
  if (u == "TiB") return 1099511627776.0;
  if (u == "kB") return 1e3;
  if (u == "MB") return 1e6;
  if (u == "GB") return 1e9;
  if (u == "TB") return 1e12;
  return 0;
}

double unit_ns(std::string_view u) {
  if (u == "nsec") return 1;
  if (u == "usec") return 1e3;
  if (u == "msec") return 1e6;
  if (u == "sec") return 1e9;
  return 0;
}

std::vector<std::pair<std::size_t, std::size_t>> find_json_objects(std::string_view t) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  std::size_t i = 0;
  while (i < t.size()) {
    if (t[i] != '{' || (i > 0 && t[i - 1] != '\n')) {
      ++i;
      continue;
    }
    int depth = 0;
    bool in_str = false, esc = false;
    std::size_t j = i;
    for (; j < t.size(); ++j) {
      char c = t[j];
      if (in_str) {
        if (esc)
          esc = false;
        else if (c == '\\')
          esc = true;
        else if (c == '"')
          in_str = false;
      } else if (c == '"')
        in_str = true;
      else if (c == '{')
        ++depth;
      else if (c == '}' && --depth == 0)
        break;
    }
    if (j >= t.size()) break;
    out.emplace_back(i, j + 1);
    i = j + 1;
  }
  return out;
}

std::optional<FioOptions> parse_fio_command_line(const std::string& line) {
  static const std::regex cmd{R"((?:^|[\s#$>/])fio\s+(.*-(?:-)?[a-z_]+=.*)$)"};
  static const std::regex opt{R"((?:^|\s)--?([a-z_]+)=(\S+))"};
  if (line.find("fio ") == std::string::npos || line.find('=') == std::string::npos) return std::nullopt;
  std::smatch m;
  if (!std::regex_search(line, m, cmd)) return std::nullopt;
  const std::string args = m[1];
  FioOptions o;
  for (std::sregex_iterator it(args.begin(), args.end(), opt), end; it != end; ++it) o.set((*it)[1], (*it)[2]);
  return o;
}

}  // namespace piprov::bench
