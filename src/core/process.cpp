#include "core/process.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <span>
#include <string_view>

#include "core/error.hpp"
#include "core/fd.hpp"
#include "core/file.hpp"

extern char** environ;

namespace piprov {
namespace {

// An unlinked temp file for a child's output (closed on exec in piprov; the
// child gets it through dup2, which clears FD_CLOEXEC).
UniqueFd capture_file() {
  char tmpl[] = "/tmp/piprov-run-XXXXXX";
  UniqueFd fd(::mkostemp(tmpl, O_CLOEXEC));
  if (!fd) throw io_error("cannot create a temporary file in /tmp", errno);
  ::unlink(tmpl);
  return fd;
}

std::string read_back(int fd, const std::string& what) {
  ::lseek(fd, 0, SEEK_SET);
  return read_fd_to_end(fd, what);
}

// This process's environment with `set` ("NAME=value") replacing entries of the same NAME.
std::vector<std::string> child_environment(const std::vector<std::string>& set) {
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string_view entry(*e);
    bool replaced = false;
    for (const auto& s : set) replaced |= entry.substr(0, entry.find('=') + 1) == s.substr(0, s.find('=') + 1);
    if (!replaced) env.emplace_back(entry);
  }
  env.insert(env.end(), set.begin(), set.end());
  return env;
}

}  // namespace

std::string command_line(const std::vector<std::string>& argv) {
  std::string cmd;
  for (const auto& a : argv) cmd += (cmd.empty() ? "" : " ") + a;
  return cmd;
}

ProgramResult run_program(const std::vector<std::string>& argv, const ProgramOptions& opts) {
  if (argv.empty()) throw Error(ErrorKind::Usage, "run_program: no program given");
  UniqueFd errfd = capture_file();
  UniqueFd outfd = opts.capture_stdout ? capture_file() : UniqueFd();
  std::vector<std::string> env = child_environment(opts.env);
  std::vector<char*> args, envp;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  ::posix_spawn_file_actions_init(&actions);
  UniqueFd infd;
  if (!opts.input.empty()) {
    infd = capture_file();
    FdResult w = write_fd_full(infd.get(), std::as_bytes(std::span(opts.input.data(), opts.input.size())));
    if (w.err) throw io_error("cannot write a temporary file in /tmp", w.err);
    ::lseek(infd.get(), 0, SEEK_SET);
    ::posix_spawn_file_actions_adddup2(&actions, infd.get(), 0);
  } else {
    ::posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  }
  if (outfd)
    ::posix_spawn_file_actions_adddup2(&actions, outfd.get(), 1);
  else
    ::posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  ::posix_spawn_file_actions_adddup2(&actions, errfd.get(), 2);
  posix_spawnattr_t attr;
  ::posix_spawnattr_init(&attr);
  ::posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  ::posix_spawnattr_setpgroup(&attr, 0);  // its own process group: the terminal's Ctrl-C is piprov's
  pid_t pid = 0;
  const int rc = ::posix_spawnp(&pid, args[0], &actions, &attr, args.data(), envp.data());
  ::posix_spawnattr_destroy(&attr);
  ::posix_spawn_file_actions_destroy(&actions);
  if (rc == ENOENT) return {127, "", argv[0] + ": command not found"};
  if (rc != 0) throw io_error("cannot start " + argv[0], rc);

  int st = 0;
  (void)retry_eintr([&] { return ::waitpid(pid, &st, 0); });
  ProgramResult r;
  r.exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  r.err = read_back(errfd.get(), "the standard error of " + argv[0]);
  while (!r.err.empty() && (r.err.back() == '\n' || r.err.back() == ' ')) r.err.pop_back();
  // posix_spawnp() reports a missing program as ENOENT (above) where the C
  // library can (glibc's CLONE_VFORK); under qemu-user the child exits 127
  // instead, as a shell's child does: the same message either way.
  if (r.exit_code == 127 && r.err.empty()) r.err = argv[0] + ": command not found";
  if (outfd) r.out = read_back(outfd.get(), "the output of " + argv[0]);
  return r;
}

ProgramResult run_program_or_throw(const std::vector<std::string>& argv, const std::vector<int>& ok_codes,
                                   std::string_view input) {
  ProgramResult r = run_program(argv, {.env = {}, .capture_stdout = true, .input = std::string(input)});
  if (r.exit_code != 0 && std::find(ok_codes.begin(), ok_codes.end(), r.exit_code) == ok_codes.end())
    throw Error(ErrorKind::Io,
                "`" + command_line(argv) + "` failed (exit " + std::to_string(r.exit_code) + "): " + r.err);
  return r;
}

}  // namespace piprov
