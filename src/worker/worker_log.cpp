#include "worker/worker_log.hpp"

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>

namespace aisp::worker_log {
namespace {

std::chrono::steady_clock::time_point g_start = std::chrono::steady_clock::now();

// The phase as the signal handler reads it: a fixed buffer, written only outside the handler.
std::array<char, 64> g_phase{'s', 't', 'a', 'r', 't', '\0'};

constexpr std::array<int, 6> kFatalSignals{SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM};

const char* fatal_signal_name(int signal_number) {
  switch (signal_number) {
  case SIGSEGV:
    return "SIGSEGV, a segmentation fault";
  case SIGBUS:
    return "SIGBUS, a bus error";
  case SIGFPE:
    return "SIGFPE, an arithmetic exception";
  case SIGILL:
    return "SIGILL, an illegal instruction";
  case SIGABRT:
    return "SIGABRT, an abort";
  case SIGTERM:
    return "SIGTERM, asked to terminate";
  default:
    return "a fatal signal";
  }
}

void write_all(const char* text, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(STDERR_FILENO, text, size);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return;
    text += n;
    size -= static_cast<std::size_t>(n);
  }
}

void write_text(const char* text) { write_all(text, std::strlen(text)); }

// Async-signal-safe: only write(2), strlen and the handler reset; no allocation, no stdio.
extern "C" void on_fatal_signal(int signal_number) {
  char number[12];
  int value = signal_number;
  int digits = 0;
  char reversed[12];
  do {
    reversed[digits++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value > 0 && digits < 11);
  for (int i = 0; i < digits; ++i)
    number[i] = reversed[digits - 1 - i];
  number[digits] = '\0';
  write_text("fatal signal ");
  write_text(number);
  write_text(" (");
  write_text(fatal_signal_name(signal_number));
  write_text(") in phase '");
  write_text(g_phase.data());
  write_text("'; the worker dies with it and the orchestrator records the pair as crashed\n");
  // SA_RESETHAND restored the default action: re-raising ends the process by this signal.
  ::raise(signal_number);
}

}  // namespace

void start() {
  g_start = std::chrono::steady_clock::now();
  struct sigaction action {};
  action.sa_handler = on_fatal_signal;
  action.sa_flags = SA_RESETHAND | SA_NODEFER;
  sigemptyset(&action.sa_mask);
  for (const int signal_number : kFatalSignals)
    sigaction(signal_number, &action, nullptr);
}

void line(std::string_view text) {
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - g_start).count();
  const std::string framed = fmt::format("[{:8.3f} s] {}\n", seconds, text);
  write_all(framed.data(), framed.size());
}

void phase(std::string_view name) {
  const std::size_t size = std::min(name.size(), g_phase.size() - 1);
  // A signal arriving while the buffer changes reads a mix of two phase names, never past its end.
  std::fill(g_phase.begin(), g_phase.end(), '\0');
  std::copy_n(name.data(), size, g_phase.begin());
  line(fmt::format("phase: {}", name));
}

}  // namespace aisp::worker_log
