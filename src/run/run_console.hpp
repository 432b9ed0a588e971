// Where a run prints: stdout or stderr, written so that a closed reader never stops the run. When
// the reader of a pipe exits (`aisp bench run | head -1`) or the terminal hangs up, the write
// fails (EPIPE, EIO); the console then sends the rest of its output to /dev/null and the run goes
// on measuring: its results are on disk, not on the screen. (The SIGPIPE such a write raises is
// caught and ignored by run/run_signals.hpp.)
#pragma once

#include <string_view>

namespace aisp {

class RunConsole {
 public:
  // `fd` is STDOUT_FILENO or STDERR_FILENO; the console writes with write(2) after flushing
  // stdio, so lines printed through std::cout / stdio before it keep their order.
  explicit RunConsole(int fd);

  // Writes all of `text`; once the reader is gone, writes nothing and returns.
  void print(std::string_view text);

  bool is_terminal() const { return terminal_; }
  // The terminal's width in columns (80 when it cannot be read); 0 when not a terminal.
  int width() const;
  // Whether a write found the reader gone.
  bool closed() const { return closed_; }

 private:
  int fd_;
  bool terminal_;
  bool closed_ = false;
};

}  // namespace aisp
