// libaio: io_submit(2)/io_getevents(2) through libaio (fio engines/libaio.c).
// Needs O_DIRECT for real asynchrony; buffered I/O completes inside io_submit.
#include <libaio.h>
#include <cerrno>

#include "bench/engines/engine.hpp"
#include "core/error.hpp"

namespace piprov::bench {
namespace {

class Libaio final : public Engine {
 public:
  ~Libaio() override {
    if (ctx_) io_destroy(ctx_);
  }
  void init(int fd, unsigned depth) override {
    fd_ = fd;
    int r = io_setup(static_cast<int>(depth), &ctx_);
    if (r == -ENOSYS)  // a kernel without CONFIG_AIO, qemu-user, some sandboxes
      throw Error(ErrorKind::Io,
                  "io_setup (libaio): this system has no Linux AIO (ENOSYS); "
                  "run with --engine io_uring or --engine psync");
    if (r < 0) throw io_error("io_setup (libaio) with depth " + std::to_string(depth), -r);
    iocbs_.resize(depth);
    pending_.reserve(depth);
    events_.resize(depth);
  }
  bool queue(IoUnit& u) override {
    iocb& cb = iocbs_[u.index];
    if (u.write)
      io_prep_pwrite(&cb, fd_, u.buf, u.len, static_cast<long long>(u.offset));
    else
      io_prep_pread(&cb, fd_, u.buf, u.len, static_cast<long long>(u.offset));
    cb.data = &u;
    pending_.push_back(&cb);
    return false;
  }
  void commit() override {
    std::size_t done = 0;
    while (done < pending_.size()) {
      int r = io_submit(ctx_, static_cast<long>(pending_.size() - done), pending_.data() + done);
      if (r == -EAGAIN || r == -EINTR) continue;
      if (r < 0) throw io_error("io_submit (libaio)", -r);
      done += static_cast<std::size_t>(r);
    }
    pending_.clear();
  }
  unsigned getevents(unsigned min, std::vector<IoUnit*>& out) override {
    int r;
    do {
      r = io_getevents(ctx_, static_cast<long>(min), static_cast<long>(events_.size()), events_.data(), nullptr);
    } while (r == -EINTR);
    if (r < 0) throw io_error("io_getevents (libaio)", -r);
    for (int i = 0; i < r; ++i) {
      auto* u = static_cast<IoUnit*>(events_[i].data);
      long res = static_cast<long>(events_[i].res);
      u->res = res;
      out.push_back(u);
    }
    return static_cast<unsigned>(r);
  }

 private:
  int fd_ = -1;
  io_context_t ctx_ = nullptr;
  std::vector<iocb> iocbs_;
  std::vector<iocb*> pending_;
  std::vector<io_event> events_;
};

}  // namespace

std::unique_ptr<Engine> make_libaio_engine() { return std::make_unique<Libaio>(); }

}  // namespace piprov::bench
