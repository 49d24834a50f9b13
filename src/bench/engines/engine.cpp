// The engine factory: one name -> one engine (fio's ioengine= names).
#include "bench/engines/engine.hpp"
#include "core/error.hpp"

namespace piprov::bench {

std::unique_ptr<Engine> make_engine(const std::string& name) {
  if (name == "psync" || name == "sync") return make_psync_engine();
  if (name == "libaio") return make_libaio_engine();
  if (name == "io_uring") return make_io_uring_engine();
  throw Error(ErrorKind::Usage, "unknown --engine '" + name + "': use psync, libaio or io_uring");
}

}  // namespace piprov::bench
