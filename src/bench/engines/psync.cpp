// psync: pread(2)/pwrite(2), one I/O at a time (fio engines/sync.c "psync").
#include <unistd.h>
#include <cerrno>

#include "bench/engines/engine.hpp"

namespace piprov::bench {
namespace {

class Psync final : public Engine {
 public:
  void init(int fd, unsigned) override { fd_ = fd; }
  bool queue(IoUnit& u) override {
    ssize_t r;
    do {
      r = u.write ? ::pwrite(fd_, u.buf, u.len, static_cast<off_t>(u.offset))
                  : ::pread(fd_, u.buf, u.len, static_cast<off_t>(u.offset));
    } while (r < 0 && errno == EINTR);
    u.res = r < 0 ? -errno : r;
    return true;
  }
  void commit() override {}
  unsigned getevents(unsigned, std::vector<IoUnit*>&) override { return 0; }

 private:
  int fd_ = -1;
};

}  // namespace

std::unique_ptr<Engine> make_psync_engine() { return std::make_unique<Psync>(); }

}  // namespace piprov::bench
