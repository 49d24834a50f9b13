#include "support/testsupport.hpp"

#include <sys/wait.h>
#include <unistd.h>
#include <array>
#include <cstdio>
#include <fstream>
#include <stdexcept>

namespace fs = std::filesystem;

namespace piprov::test {

TempDir::TempDir(const std::string& prefix) {
  std::string t = (fs::temp_directory_path() / (prefix + "-XXXXXX")).string();
  if (!::mkdtemp(t.data())) throw std::runtime_error("mkdtemp failed");
  path = t;
}
TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path, ec);
}

RunResult run(const std::string& command) {
  TempDir d("piprov-run");
  std::string full =
      "( " + command + " ) >" + (d.path / "out").string() + " 2>" + (d.path / "err").string() + " </dev/null";
  int st = std::system(full.c_str());
  RunResult r;
  if (st == -1)
    r.exit_code = -1;
  else if (WIFEXITED(st))
    r.exit_code = WEXITSTATUS(st);
  else if (WIFSIGNALED(st))
    r.exit_code = 128 + WTERMSIG(st);
  r.out = read_file(d.path / "out");
  r.err = read_file(d.path / "err");
  return r;
}

std::string piprov_bin() { return PIPROV_BIN; }
fs::path source_dir() { return PIPROV_SOURCE_DIR; }
fs::path shared_dir() { return PIPROV_SHARED_DIR; }

std::optional<fs::path> shared_data(const std::string& rel) {
  fs::path p = shared_dir() / "data" / rel;
  if (fs::exists(p)) return p;
  return std::nullopt;
}

std::string loop_unavailable_reason() {
  if (::geteuid() != 0) return "not running as root";
  if (!fs::exists("/dev/loop-control")) return "/dev/loop-control is missing";
  if (run("command -v losetup").exit_code != 0) return "losetup is not installed";
  return "";
}

LoopDevice::LoopDevice(const fs::path& b, std::uint64_t size_bytes, bool read_only) : backing(b) {
  if (!fs::exists(backing)) {
    auto r = run("truncate -s " + std::to_string(size_bytes) + " '" + backing.string() + "'");
    if (r.exit_code != 0) throw std::runtime_error("truncate failed: " + r.err);
  }
  auto r = run(std::string("losetup -f --show --partscan ") + (read_only ? "--read-only " : "") + "'" +
               backing.string() + "'");
  if (r.exit_code != 0) throw std::runtime_error("losetup failed: " + r.err);
  path = r.out.substr(0, r.out.find('\n'));
}
LoopDevice::~LoopDevice() {
  if (!path.empty()) run("losetup -d " + path);
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
void write_file(const fs::path& p, const std::string& content) {
  if (p.has_parent_path()) fs::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << content;
}

std::map<std::string, std::string> read_tree(const std::filesystem::path& dir) {
  std::map<std::string, std::string> m;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
    if (e.is_regular_file()) m[std::filesystem::relative(e.path(), dir).string()] = read_file(e.path());
  return m;
}

}  // namespace piprov::test
