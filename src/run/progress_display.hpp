// What a run shows while a pair runs. On a terminal: one status line, rewritten in place as the
// worker reports its phase and where sampling stands, and at least every quarter second so the
// elapsed time moves ("[3/31] ch07:transpose  timing: baseline 57 samples, noise 0.84% (target
// 0.50%); ...  12.3 s"), cut to the terminal's width. In a pipe (CI, tee): a plain line every
// kPipedIntervalSeconds while a pair runs ("[3/31] ch07:transpose running for 30 s: timing: ..."),
// nothing for a pair that finishes sooner. Either way one line per finished pair.
//
// It reads time through a clock it is given, so tests drive it with synthetic times.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace aisp {

struct ProgressOutput {
  std::function<void(std::string_view)> write;
  bool terminal = false;
  int width = 80;  // columns of the terminal
};

class ProgressDisplay {
 public:
  static constexpr double kPipedIntervalSeconds = 10;
  static constexpr double kTerminalRefreshSeconds = 0.25;

  using Clock = std::function<double()>;  // seconds, monotonic

  ProgressDisplay(ProgressOutput output, std::size_t total, Clock clock);
  // Clears a status line still shown (a run ended by an exception), so the error printed next
  // starts on a line of its own.
  ~ProgressDisplay();
  ProgressDisplay(const ProgressDisplay&) = delete;
  ProgressDisplay& operator=(const ProgressDisplay&) = delete;

  void begin(std::size_t index, const std::string& target);
  // The worker's phase ("verify", "warmup", "timing", "ncu baseline: start"); clears the detail.
  void phase(const std::string& phase);
  // Where the phase stands (the worker's progress line: samples against the stopping rule).
  void detail(const std::string& detail);
  // Called often while waiting for the worker (every ~100 ms): moves the elapsed time.
  void tick();
  // A line that stays (the pair's result, its marks): clears the status line first.
  void line(const std::string& text);

  // The status text without its terminal controls: "[3/31] ch07:x  timing: ...  12.3 s".
  std::string status() const;

 private:
  void redraw();
  double elapsed() const;

  ProgressOutput output_;
  std::size_t total_;
  Clock clock_;
  std::size_t index_ = 0;
  std::string target_;
  std::string phase_;
  std::string detail_;
  double started_ = 0;
  double last_drawn_ = 0;
  double last_piped_ = 0;
  bool status_shown_ = false;
};

// A steady clock in seconds, for ProgressDisplay.
ProgressDisplay::Clock steady_seconds();

// `text` cut to at most `columns` characters (UTF-8 aware), ending in "…" when cut.
std::string fit_to_columns(std::string_view text, std::size_t columns);

}  // namespace aisp
