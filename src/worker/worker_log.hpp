// The story of one pair in its log, logs/<pair>.log: the worker's stderr, which the orchestrator
// points at that file (worker/worker_process.hpp). Each line carries the seconds since the worker
// started: "[   3.214 s] phase: timing". The worker writes what it is asked and with which
// settings, each phase, where sampling stands every few seconds, why each variant stopped, every
// verification check, the result, and any exception or CUDA error; a fatal signal (a segfault, an
// abort) writes one last line naming the signal and the phase before the process dies. What the
// worker cannot write (a SIGKILL at the timeout) the orchestrator appends after it.
#pragma once

#include <string_view>

namespace aisp::worker_log {

// Starts the log's clock and installs the fatal-signal handlers (SIGSEGV, SIGBUS, SIGFPE, SIGILL,
// SIGABRT, SIGTERM): each writes "fatal signal 11 (SIGSEGV) in phase 'timing'" and then lets the
// signal end the process as it would have, so the orchestrator still sees the signal.
void start();

// One line, written whole with write(2) (a crash right after it cannot lose it).
void line(std::string_view text);

// Records the phase for the fatal-signal line and logs "phase: <name>".
void phase(std::string_view name);

}  // namespace aisp::worker_log
