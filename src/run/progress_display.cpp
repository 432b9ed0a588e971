#include "run/progress_display.hpp"

#include <fmt/format.h>

#include <chrono>
#include <utility>

namespace aisp {
namespace {

bool is_continuation_byte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

}  // namespace

std::string fit_to_columns(std::string_view text, std::size_t columns) {
  std::size_t characters = 0;
  for (std::size_t i = 0; i < text.size(); ++i)
    if (!is_continuation_byte(text[i]))
      ++characters;
  if (characters <= columns)
    return std::string(text);
  if (columns == 0)
    return {};
  // Keep columns - 1 characters, then the ellipsis.
  std::size_t kept = 0;
  std::size_t end = 0;
  for (; end < text.size(); ++end) {
    if (!is_continuation_byte(text[end])) {
      if (kept == columns - 1)
        break;
      ++kept;
    }
  }
  return std::string(text.substr(0, end)) + "…";
}

ProgressDisplay::Clock steady_seconds() {
  return [] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  };
}

ProgressDisplay::ProgressDisplay(ProgressOutput output, std::size_t total, Clock clock)
    : output_(std::move(output)), total_(total), clock_(std::move(clock)) {}

ProgressDisplay::~ProgressDisplay() {
  if (output_.terminal && status_shown_)
    output_.write("\r\033[K");
}

double ProgressDisplay::elapsed() const { return clock_() - started_; }

void ProgressDisplay::begin(std::size_t index, const std::string& target) {
  index_ = index;
  target_ = target;
  phase_ = "start";
  detail_.clear();
  started_ = clock_();
  last_piped_ = started_;
  redraw();
}

void ProgressDisplay::phase(const std::string& phase) {
  phase_ = phase;
  detail_.clear();
  redraw();
}

void ProgressDisplay::detail(const std::string& detail) {
  detail_ = detail;
  redraw();
}

void ProgressDisplay::tick() {
  const double now = clock_();
  if (output_.terminal) {
    if (now - last_drawn_ >= kTerminalRefreshSeconds)
      redraw();
    return;
  }
  if (now - last_piped_ >= kPipedIntervalSeconds) {
    last_piped_ = now;
    output_.write(fmt::format("[{}/{}] {} running for {:.0f} s: {}{}\n", index_ + 1, total_,
                              target_, now - started_, phase_,
                              detail_.empty() ? "" : ": " + detail_));
  }
}

std::string ProgressDisplay::status() const {
  return fmt::format("[{}/{}] {}  {}{}  {:.1f} s", index_ + 1, total_, target_, phase_,
                     detail_.empty() ? "" : ": " + detail_, elapsed());
}

void ProgressDisplay::redraw() {
  if (!output_.terminal)
    return;
  last_drawn_ = clock_();
  // One column short of the width: a line that fills it wraps on some terminals, and \r then
  // returns to the wrapped half.
  const std::size_t columns = output_.width > 1 ? static_cast<std::size_t>(output_.width - 1) : 79;
  output_.write("\r\033[K" + fit_to_columns(status(), columns));
  status_shown_ = true;
}

void ProgressDisplay::line(const std::string& text) {
  if (output_.terminal && status_shown_) {
    output_.write("\r\033[K");
    status_shown_ = false;
  }
  output_.write(text + "\n");
  if (output_.terminal)
    last_drawn_ = 0;  // the next tick draws the status line again
}

}  // namespace aisp
