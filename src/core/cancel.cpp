#include "core/cancel.hpp"

#include <csignal>
#include <string>

#include "core/error.hpp"

namespace piprov {
namespace {
std::atomic<bool> g_cancel{false};
extern "C" void on_signal(int) { g_cancel.store(true, std::memory_order_relaxed); }
}  // namespace

void install_cancel_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: blocking syscalls return EINTR
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}
bool cancel_requested() noexcept { return g_cancel.load(std::memory_order_relaxed); }
void request_cancel() noexcept { g_cancel.store(true); }
void reset_cancel() noexcept { g_cancel.store(false); }
void throw_if_cancelled(const char* where) {
  if (cancel_requested()) throw Error(ErrorKind::Interrupted, std::string("interrupted ") + where);
}

}  // namespace piprov
