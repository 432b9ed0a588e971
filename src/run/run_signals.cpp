#include "run/run_signals.hpp"

#include <signal.h>
#include <unistd.h>

#include <array>

namespace aisp {
namespace {

std::atomic<bool> g_interrupted{false};  // set from the signal handler only
std::atomic<int> g_signal{0};

constexpr std::array<int, 4> kInterruptSignals{SIGINT, SIGTERM, SIGHUP, SIGPIPE};
std::array<struct sigaction, kInterruptSignals.size()> g_previous{};

extern "C" void on_interrupt(int signal_number, siginfo_t* info, void*) {
  // The kernel raises SIGPIPE in the writer itself (si_pid is this process) when a pipe's reader
  // has exited; that is a closed output, not a request to stop. Another process's SIGPIPE is.
  if (signal_number == SIGPIPE && info != nullptr && info->si_pid == getpid())
    return;
  int expected = 0;
  g_signal.compare_exchange_strong(expected, signal_number);
  g_interrupted.store(true);
}

}  // namespace

InterruptSignals::InterruptSignals() {
  g_interrupted.store(false);
  g_signal.store(0);
  struct sigaction action {};
  action.sa_sigaction = on_interrupt;
  action.sa_flags = SA_SIGINFO;
  sigemptyset(&action.sa_mask);
  for (std::size_t i = 0; i < kInterruptSignals.size(); ++i)
    sigaction(kInterruptSignals[i], &action, &g_previous[i]);
}

InterruptSignals::~InterruptSignals() {
  for (std::size_t i = 0; i < kInterruptSignals.size(); ++i)
    sigaction(kInterruptSignals[i], &g_previous[i], nullptr);
}

const std::atomic<bool>& InterruptSignals::flag() { return g_interrupted; }

int InterruptSignals::signal_number() { return g_signal.load(); }

const char* interrupt_signal_name(int signal_number) {
  switch (signal_number) {
  case SIGINT:
    return "SIGINT";
  case SIGTERM:
    return "SIGTERM";
  case SIGHUP:
    return "SIGHUP";
  case SIGPIPE:
    return "SIGPIPE";
  default:
    return "a signal";
  }
}

}  // namespace aisp
