// run_program() (process.hpp).
#include "core/process.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <algorithm>
#include <span>

#include "core/error.hpp"
#include "core/fd.hpp"
#include "core/file.hpp"

extern char** environ;  // NOLINT: POSIX

namespace piprov {

namespace {

UniqueFd program_temp_fd() {
  char tmpl[] = "/tmp/piprov-run-XXXXXX";
  UniqueFd fd(::mkostemp(tmpl, O_CLOEXEC));
  if (!fd) throw io_error("cannot create a temporary file", errno);
  ::unlink(tmpl);
  return fd;
}

std::string program_read_back(int fd, const std::string& what) {
  ::lseek(fd, 0, SEEK_SET);
  return read_fd_to_end(fd, what);
}

}  // namespace

ProgramResult run_program(const std::vector<std::string>& argv, std::string_view input) {
  if (argv.empty()) throw Error(ErrorKind::Usage, "run_program: no program");
  UniqueFd outfd = program_temp_fd(), errfd = program_temp_fd();
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));  // NOLINT: posix_spawn's API
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  ::posix_spawn_file_actions_init(&actions);
  UniqueFd infd;
  if (!input.empty()) {
    infd = program_temp_fd();
    FdResult w = write_fd_full(infd.get(), std::as_bytes(std::span(input.data(), input.size())));
    if (w.err) throw io_error("writing a temporary file", w.err);
    ::lseek(infd.get(), 0, SEEK_SET);
    ::posix_spawn_file_actions_adddup2(&actions, infd.get(), 0);
  } else {
    ::posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  }
  ::posix_spawn_file_actions_adddup2(&actions, outfd.get(), 1);  // dup2 clears FD_CLOEXEC
  ::posix_spawn_file_actions_adddup2(&actions, errfd.get(), 2);
  pid_t pid = 0;
  int rc = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  ::posix_spawn_file_actions_destroy(&actions);
  ProgramResult r;
  if (rc == ENOENT) {
    r.exit_code = 127;
    r.err = argv[0] + ": command not found";
    return r;
  }
  if (rc != 0) throw io_error("cannot start " + argv[0], rc);
  int st = 0;
  (void)retry_eintr([&] { return ::waitpid(pid, &st, 0); });
  r.exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  r.out = program_read_back(outfd.get(), "the standard output of " + argv[0]);
  r.err = program_read_back(errfd.get(), "the standard error of " + argv[0]);
  while (!r.err.empty() && (r.err.back() == '\n' || r.err.back() == ' ')) r.err.pop_back();
  return r;
}

ProgramResult run_program_or_throw(const std::vector<std::string>& argv, const std::vector<int>& ok_codes,
                                   std::string_view input) {
  ProgramResult r = run_program(argv, input);
  if (r.exit_code != 0 && std::find(ok_codes.begin(), ok_codes.end(), r.exit_code) == ok_codes.end()) {
    std::string cmd;
    for (const auto& a : argv) cmd += (cmd.empty() ? "" : " ") + a;
    throw Error(ErrorKind::Io, "`" + cmd + "` failed (exit " + std::to_string(r.exit_code) + "): " + r.err);
  }
  return r;
}

}  // namespace piprov
