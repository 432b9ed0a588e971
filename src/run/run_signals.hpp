// The signals that end a run early, and how: SIGINT (Ctrl-C), SIGTERM, SIGHUP (the terminal went
// away) and a SIGPIPE sent by another process all set one flag that the orchestrator polls. The
// worker running then is killed and recorded as `interrupted`, the run directory keeps a valid
// partial run (`complete: false`), and the exit code is 128 + the signal's number (130 for
// Ctrl-C). A SIGPIPE the kernel raises because this process wrote to a pipe whose reader exited
// (`aisp bench run | head -1`) is not a request to stop: it is ignored, the write fails with EPIPE,
// and run/run_console.hpp stops printing while the run goes on.
#pragma once

#include <atomic>

namespace aisp {

class InterruptSignals {
 public:
  // Installs the handlers and clears the flag; the destructor restores the previous handlers.
  InterruptSignals();
  ~InterruptSignals();
  InterruptSignals(const InterruptSignals&) = delete;
  InterruptSignals& operator=(const InterruptSignals&) = delete;

  // Turns true when one of the signals arrives; what run_worker_process polls.
  static const std::atomic<bool>& flag();
  // The signal that interrupted the run; 0 while none did.
  static int signal_number();
};

// "SIGINT", "SIGTERM", "SIGHUP", "SIGPIPE", or "signal N".
const char* interrupt_signal_name(int signal_number);

}  // namespace aisp
