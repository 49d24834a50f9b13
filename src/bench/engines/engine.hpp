#pragma once
// I/O engines behind one interface, modelled on fio's engines/ ops table
// (queue -> commit -> getevents). One engine instance per job thread and fd.
// psync: pread/pwrite, completes inside queue(); libaio: io_submit/io_getevents;
// io_uring: liburing submit/wait_cqe.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace piprov::bench {

/// One I/O in flight. `buf` is aligned for O_DIRECT; `res` is bytes done or -errno.
struct IoUnit {
  void* buf = nullptr;
  std::uint64_t offset = 0;
  std::uint32_t len = 0;
  bool write = false;
  std::uint64_t start_ns = 0;  ///< CLOCK_MONOTONIC when queued (submit)
  long res = 0;
  unsigned index = 0;  ///< slot number in the job's pool
};

class Engine {
 public:
  virtual ~Engine() = default;
  /// Prepares for `fd` with up to `depth` I/Os in flight. Throws Error{Io}.
  virtual void init(int fd, unsigned depth) = 0;
  /// Queues `u`. Returns true when it already completed (sync engines), with u.res set.
  virtual bool queue(IoUnit& u) = 0;
  /// Submits everything queued since the last commit. Throws Error{Io}.
  virtual void commit() = 0;
  /// Waits for at least `min` completions (0: poll); appends them to `done`
  /// with res set. Returns the number appended. Throws Error{Io}.
  virtual unsigned getevents(unsigned min, std::vector<IoUnit*>& done) = 0;
};

/// The engines piprov runs (fio's ioengine= names).
enum class EngineKind { Psync, Libaio, IoUring };

/// "psync", "libaio", "io_uring".
std::string_view engine_name(EngineKind e);
/// The engine named `name` ("sync" is psync, as fio's sync and psync both
/// read with one request at a time here). Throws Error{Usage} "unknown
/// --engine 'x': use psync, libaio or io_uring".
EngineKind parse_engine(std::string_view name);
/// "psync | libaio | io_uring" (--engine's help).
std::string engine_choices();

/// A new engine of kind `e`. Throws Error{Io} when the kernel lacks it.
std::unique_ptr<Engine> make_engine(EngineKind e);

std::unique_ptr<Engine> make_psync_engine();
std::unique_ptr<Engine> make_libaio_engine();
std::unique_ptr<Engine> make_io_uring_engine();

}  // namespace piprov::bench
