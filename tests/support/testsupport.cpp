#include "support/testsupport.hpp"

#include <sys/wait.h>
#include <unistd.h>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
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

std::string q(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

bool require_all() {
  const char* v = std::getenv("PIPROV_TESTS_REQUIRE_ALL");
  return v && std::string(v) == "1";
}

std::string tool_unavailable_reason(const std::string& tool) {
  if (run("command -v " + q(tool)).exit_code == 0) return "";
  return tool + " is not installed (scripts/install-deps.sh installs it)";
}

std::string piprov_bin() { return PIPROV_BIN; }
fs::path source_dir() { return PIPROV_SOURCE_DIR; }
fs::path shared_dir() { return PIPROV_SHARED_DIR; }

std::string make_test_image(const fs::path& out_img, int root_mib, const std::string& layout,
                            const std::string& cloud_init) {
  auto r = run((cloud_init.empty() ? "" : "PIPROV_SHARED_DATA=" + q((shared_dir() / "data").string()) + " ") +
               q((source_dir() / "scripts/make-test-image.sh").string()) + " --layout " + q(layout) +
               (cloud_init.empty() ? "" : " --cloud-init " + q(cloud_init)) + " " + q(out_img.string()) + " " +
               std::to_string(root_mib));
  if (r.exit_code == 0) return "";
  return "make-test-image.sh failed (offline?): " + r.err;
}

std::optional<fs::path> shared_data(const std::string& rel) {
  fs::path p = shared_dir() / "data" / rel;
  if (fs::exists(p)) return p;
  return std::nullopt;
}

std::string loop_unavailable_reason() {
  if (::geteuid() != 0) return "not running as root";
  if (!fs::exists("/dev/loop-control")) return "/dev/loop-control is missing";
  if (auto why = tool_unavailable_reason("losetup"); !why.empty()) return why;
  return "";
}

LoopDevice::LoopDevice(const fs::path& b, std::uint64_t size_bytes, bool read_only) : backing(b) {
  if (!fs::exists(backing)) {
    auto r = run("truncate -s " + std::to_string(size_bytes) + " " + q(backing.string()));
    if (r.exit_code != 0) throw std::runtime_error("truncate failed: " + r.err);
  }
  auto r = run(std::string("losetup -f --show --partscan ") + (read_only ? "--read-only " : "") + q(backing.string()));
  if (r.exit_code != 0) throw std::runtime_error("losetup failed: " + r.err);
  path = r.out.substr(0, r.out.find('\n'));
}
LoopDevice::~LoopDevice() {
  if (!path.empty()) run("losetup -d " + path);
}

Mount::Mount(const std::string& source, const fs::path& d, const std::string& type, const std::string& options)
    : dir(d) {
  fs::create_directories(dir);
  std::string cmd = "mount";
  if (!type.empty()) cmd += " -t " + q(type);
  if (!options.empty()) cmd += " -o " + q(options);
  auto r = run(cmd + " " + q(source) + " " + q(dir.string()));
  if (r.exit_code != 0) throw std::runtime_error(cmd + " " + source + " " + dir.string() + " failed: " + r.err);
}
Mount::~Mount() { run("umount " + q(dir.string())); }

void expect_error(ErrorKind kind, std::string_view message, const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    EXPECT_EQ(static_cast<int>(e.kind()), static_cast<int>(kind)) << "message: " << e.what();
    EXPECT_NE(std::string_view(e.what()).find(message), std::string_view::npos)
        << "message \"" << e.what() << "\" does not contain \"" << message << "\"";
    return;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected piprov::Error containing \"" << message << "\", got std::exception: " << e.what();
    return;
  }
  ADD_FAILURE() << "expected piprov::Error containing \"" << message << "\", nothing was thrown";
}

std::string read_bytes(const fs::path& p, std::uint64_t offset, std::size_t n) {
  std::ifstream in(p, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(offset));
  std::string s(n, '\0');
  in.read(s.data(), static_cast<std::streamsize>(n));
  s.resize(static_cast<std::size_t>(in.gcount()));
  return s;
}

std::string read_file(const fs::path& p) {
  // In blocks, not byte by byte (istreambuf_iterator): the kill test reads
  // 7 MB kernels a hundred times, in the -O0 ASan build too.
  std::ifstream in(p, std::ios::binary);
  if (!in) return {};
  std::error_code ec;
  const auto size = fs::is_regular_file(p, ec) ? fs::file_size(p, ec) : 0;
  std::string s(ec ? 0 : size, '\0');
  in.read(s.data(), static_cast<std::streamsize>(s.size()));
  s.resize(static_cast<std::size_t>(in.gcount()));
  std::ostringstream rest;  // what was added since, or a file of unknown size
  if (in && in.peek() != std::char_traits<char>::eof()) rest << in.rdbuf();
  s += std::move(rest).str();
  return s;
}
void write_file(const fs::path& p, const std::string& content) {
  if (p.has_parent_path()) fs::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << content;
}

void copy_fat_out(const std::string& part, const fs::path& dir) {
  fs::create_directories(dir);
  auto cp = run("MTOOLS_SKIP_CHECK=1 mcopy -s -n -i " + q(part) + " ::/ " + q(dir.string() + "/"));
  ASSERT_EQ(cp.exit_code, 0) << "mcopy of " << part << ": " << cp.err;
}

std::map<std::string, std::string> read_tree(const std::filesystem::path& dir) {
  std::map<std::string, std::string> m;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
    if (e.is_regular_file()) m[std::filesystem::relative(e.path(), dir).string()] = read_file(e.path());
  return m;
}

}  // namespace piprov::test
