// io_uring through liburing (fio engines/io_uring.c): one SQE per I/O,
// io_uring_submit on commit, completions from the CQ ring.
#include <liburing.h>
#include <cerrno>

#include "bench/engines/engine.hpp"
#include "core/error.hpp"

namespace piprov::bench {
namespace {

class IoUring final : public Engine {
 public:
  ~IoUring() override {
    if (ready_) io_uring_queue_exit(&ring_);
  }
  void init(int fd, unsigned depth) override {
    fd_ = fd;
    int r = io_uring_queue_init(depth, &ring_, 0);
    if (r < 0) throw io_error("io_uring_queue_init with depth " + std::to_string(depth), -r);
    ready_ = true;
  }
  bool queue(IoUnit& u) override {
    io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
    if (!sqe) {
      commit();
      sqe = io_uring_get_sqe(&ring_);
      if (!sqe) throw io_error("io_uring_get_sqe", EBUSY);
    }
    if (u.write)
      io_uring_prep_write(sqe, fd_, u.buf, u.len, u.offset);
    else
      io_uring_prep_read(sqe, fd_, u.buf, u.len, u.offset);
    io_uring_sqe_set_data(sqe, &u);
    return false;
  }
  void commit() override {
    int r;
    do {
      r = io_uring_submit(&ring_);
    } while (r == -EINTR || r == -EAGAIN);
    if (r < 0) throw io_error("io_uring_submit", -r);
  }
  unsigned getevents(unsigned min, std::vector<IoUnit*>& out) override {
    unsigned n = 0;
    io_uring_cqe* cqe = nullptr;
    if (min > 0) {
      int r;
      do {
        r = io_uring_wait_cqe(&ring_, &cqe);
      } while (r == -EINTR);
      if (r < 0) throw io_error("io_uring_wait_cqe", -r);
    }
    while (io_uring_peek_cqe(&ring_, &cqe) == 0 && cqe) {
      auto* u = static_cast<IoUnit*>(io_uring_cqe_get_data(cqe));
      u->res = cqe->res;
      out.push_back(u);
      io_uring_cqe_seen(&ring_, cqe);
      ++n;
    }
    return n;
  }

 private:
  int fd_ = -1;
  io_uring ring_{};
  bool ready_ = false;
};

}  // namespace

std::unique_ptr<Engine> make_io_uring_engine() { return std::make_unique<IoUring>(); }

}  // namespace piprov::bench
