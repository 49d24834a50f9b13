#pragma once
// Cooperative cancellation: SIGINT/SIGTERM set a flag that long loops poll.
#include <atomic>

namespace piprov {

/// Installs SIGINT and SIGTERM handlers that set the cancel flag (no SA_RESTART,
/// so blocking reads/writes return EINTR). Idempotent.
void install_cancel_handlers();

/// True once SIGINT/SIGTERM arrived (or request_cancel() was called).
bool cancel_requested() noexcept;

/// Sets the flag by hand (tests, or a worker that failed and wants others to stop).
void request_cancel() noexcept;

/// Clears the flag (tests).
void reset_cancel() noexcept;

/// Throws Error{Interrupted, "interrupted " + where} when cancel_requested().
void throw_if_cancelled(const char* where);

}  // namespace piprov
