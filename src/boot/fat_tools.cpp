#include "boot/fat_tools.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string_view>

#include "core/error.hpp"
#include "core/fd.hpp"
#include "core/file.hpp"
#include "core/hashing.hpp"

namespace fs = std::filesystem;

namespace piprov::boot {
namespace {

// This process's environment with MTOOLS_SKIP_CHECK=1 set (mtools would
// otherwise refuse a FAT whose geometry it does not like). Built before the
// child exists: provision runs several disks on threads, and a child forked
// from a threaded process may only call async-signal-safe functions
// (POSIX fork(), "Application Usage"), which setenv() is not.
std::vector<std::string> mtools_environment() {
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e)
    if (std::string_view(*e).rfind("MTOOLS_SKIP_CHECK=", 0) != 0) env.emplace_back(*e);
  env.emplace_back("MTOOLS_SKIP_CHECK=1");
  return env;
}

// Runs argv (no shell) with MTOOLS_SKIP_CHECK=1, stdin and stdout on
// /dev/null; returns exit status and stderr. posix_spawnp(), not fork(): safe
// while other threads run. Throws Error(Io) when the child cannot be made;
// a missing program is exit 127, as from a shell.
std::pair<int, std::string> run_tool(const std::vector<std::string>& argv) {
  char tmpl[] = "/tmp/piprov-mtools-XXXXXX";
  UniqueFd errfd(::mkostemp(tmpl, O_CLOEXEC));
  if (!errfd) throw io_error("cannot create a temporary file", errno);
  ::unlink(tmpl);
  std::vector<std::string> env = mtools_environment();
  std::vector<char*> args, envp;
  args.reserve(argv.size() + 1);
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  envp.reserve(env.size() + 1);
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  ::posix_spawn_file_actions_init(&actions);
  ::posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  ::posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  ::posix_spawn_file_actions_adddup2(&actions, errfd.get(), 2);  // dup2 clears FD_CLOEXEC on 2
  // Its own process group: the terminal's Ctrl-C (SIGINT to the foreground group) reaches piprov,
  // which stops at its next safe point, and not the tool, whose own "interrupted" is not the story.
  posix_spawnattr_t attr;
  ::posix_spawnattr_init(&attr);
  ::posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  ::posix_spawnattr_setpgroup(&attr, 0);
  pid_t pid = 0;
  int rc = ::posix_spawnp(&pid, args[0], &actions, &attr, args.data(), envp.data());
  ::posix_spawn_file_actions_destroy(&actions);
  ::posix_spawnattr_destroy(&attr);
  if (rc == ENOENT) return {127, argv[0] + ": command not found"};
  if (rc != 0) throw io_error("cannot start " + argv[0], rc);
  int st = 0;
  (void)retry_eintr([&] { return ::waitpid(pid, &st, 0); });
  ::lseek(errfd.get(), 0, SEEK_SET);
  std::string err = read_fd_to_end(errfd.get(), "the standard error of " + argv[0]);
  errfd.reset();
  int code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  while (!err.empty() && (err.back() == '\n' || err.back() == ' ')) err.pop_back();
  return {code, err};
}

void tool_or_throw(const std::vector<std::string>& argv) {
  auto [code, err] = run_tool(argv);
  if (code != 0) {
    std::string cmd;
    for (const auto& a : argv) cmd += (cmd.empty() ? "" : " ") + a;
    throw Error(ErrorKind::Io, cmd + " failed (exit " + std::to_string(code) + (err.empty() ? "" : ": " + err) + ")");
  }
}

bool last_to_write(const std::string& name) {
  return name == "config.txt" || name.find("cmdline") != std::string::npos;
}

}  // namespace

bool mtools_available() { return run_tool({"mcopy", "-V"}).first == 0; }

void fat_copy_out(const std::string& device, const fs::path& dir) {
  fs::create_directories(dir);
  tool_or_throw({"mcopy", "-s", "-p", "-m", "-n", "-i", device, "::/", dir.string() + "/"});
}

bool fat_copy_file_out(const std::string& device, const std::string& name, const fs::path& dir) {
  fs::create_directories(dir);
  auto [code, err] = run_tool({"mcopy", "-p", "-m", "-n", "-i", device, "::/" + name, (dir / name).string()});
  if (code == 127) throw Error(ErrorKind::Io, "mcopy cannot be run: install mtools");
  return code == 0;
}

std::map<std::string, std::string> tree_hashes(const fs::path& dir) {
  std::map<std::string, std::string> m;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) m[fs::relative(e.path(), dir).string()] = sha256_file(e.path());
  return m;
}

std::vector<std::string> fat_write_back(const std::string& device, const fs::path& dir,
                                        const std::map<std::string, std::string>& before) {
  auto after = tree_hashes(dir);
  std::vector<std::string> changed, removed, actions;
  for (const auto& [name, h] : after) {
    auto it = before.find(name);
    if (it == before.end() || it->second != h) changed.push_back(name);
  }
  for (const auto& [name, h] : before)
    if (!after.count(name)) removed.push_back(name);
  // Directories the partition has (every parent of a file it held), and the
  // ones a changed file needs: made with mmd before the files go in (an A/B
  // layout's current/cmdline.txt, a new overlays/ file).
  std::set<std::string> dirs;
  auto parents = [](const std::string& n) {
    std::vector<std::string> out;
    for (auto slash = n.find('/'); slash != std::string::npos; slash = n.find('/', slash + 1))
      out.push_back(n.substr(0, slash));
    return out;
  };
  for (const auto& [name, h] : before)
    for (auto& p : parents(name)) dirs.insert(std::move(p));
  for (const auto& n : changed)
    for (const auto& p : parents(n))
      if (dirs.insert(p).second) {
        tool_or_throw({"mmd", "-i", device, "::/" + p});
        actions.push_back(fmt::format("made the directory {} on {} (mtools)", p, device));
      }
  // Kernel files first, the files that name them last: a failure in between
  // leaves config.txt pointing at what was there before.
  std::stable_partition(changed.begin(), changed.end(), [](const std::string& n) { return !last_to_write(n); });
  for (const auto& n : changed) {
    tool_or_throw({"mcopy", "-o", "-p", "-m", "-n", "-i", device, (dir / n).string(), "::/" + n});
    actions.push_back(fmt::format("wrote {} to {} (mtools)", n, device));
  }
  for (const auto& n : removed) {
    tool_or_throw({"mdel", "-i", device, "::/" + n});
    actions.push_back(fmt::format("deleted {} from {} (mtools)", n, device));
  }
  // Read back and compare.
  char tmpl[] = "/tmp/piprov-readback-XXXXXX";
  if (!::mkdtemp(tmpl)) throw io_error("cannot create a temporary directory", errno);
  fs::path rb = tmpl;
  try {
    fat_copy_out(device, rb);
    auto back = tree_hashes(rb);
    for (const auto& [name, h] : after) {
      auto it = back.find(name);
      if (it == back.end() || it->second != h)
        throw Error(ErrorKind::Verify,
                    fmt::format("read-back of {} from {} differs from what was written", name, device));
    }
  } catch (...) {
    std::error_code ec;
    fs::remove_all(rb, ec);
    throw;
  }
  std::error_code ec;
  fs::remove_all(rb, ec);
  actions.push_back("read back " + std::to_string(after.size()) + " files from " + device + ": all match");
  return actions;
}

}  // namespace piprov::boot
