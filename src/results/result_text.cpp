#include "results/result_text.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace aisp::result_text {
namespace {

double round_to_significant(double value, int digits) {
  if (value == 0 || !std::isfinite(value)) {
    return value;
  }
  const double magnitude = std::floor(std::log10(std::fabs(value)));
  const double scale = std::pow(10.0, digits - 1 - magnitude);
  return std::round(value * scale) / scale;
}

// Three significant digits of a value already rounded to three.
std::string three_significant(double rounded) {
  const double size = std::fabs(rounded);
  if (size >= 100) {
    return fmt::format("{:.0f}", rounded);
  }
  if (size >= 10) {
    return fmt::format("{:.1f}", rounded);
  }
  return fmt::format("{:.2f}", rounded);
}

int ratio_decimals(double ratio) {
  const double size = std::fabs(ratio);
  if (size >= 99.95) {
    return 0;
  }
  if (size >= 9.995) {
    return 1;
  }
  return 2;
}

std::string_view trim_blanks(std::string_view text) {
  const std::size_t first = text.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) {
    return {};
  }
  const std::size_t last = text.find_last_not_of(" \t\r");
  return text.substr(first, last - first + 1);
}

bool starts_with_word(std::string_view text, std::string_view word) {
  return text.substr(0, word.size()) == word;
}

std::string with_prefix(std::string_view prefix, const std::string& reason) {
  if (reason.empty()) {
    return std::string(prefix);
  }
  if (starts_with_word(reason, prefix)) {
    return reason;
  }
  return fmt::format("{}: {}", prefix, reason);
}

}  // namespace

std::string format_duration_ms(double milliseconds) {
  if (!std::isfinite(milliseconds)) {
    return std::string(kAbsent);
  }
  // Choose the unit on the rounded value, so 999.96 µs prints as "1.00 ms", not "1000 µs".
  const double nanoseconds = round_to_significant(milliseconds * 1e6, 3);
  const double size = std::fabs(nanoseconds);
  if (size == 0) {
    return "0 ms";
  }
  if (size < 1e3) {
    return three_significant(nanoseconds) + " ns";
  }
  if (size < 1e6) {
    return three_significant(nanoseconds / 1e3) + " µs";
  }
  if (size < 1e9) {
    return three_significant(nanoseconds / 1e6) + " ms";
  }
  return three_significant(nanoseconds / 1e9) + " s";
}

std::string format_ratio(double ratio) {
  if (!std::isfinite(ratio)) {
    return std::string(kAbsent);
  }
  return fmt::format("{:.{}f}×", ratio, ratio_decimals(ratio));
}

std::string format_speedup(const Speedup& speedup) {
  if (!std::isfinite(speedup.value)) {
    return std::string(kAbsent);
  }
  const int decimals = ratio_decimals(speedup.value);
  return fmt::format("{:.{}f}× [{:.{}f}, {:.{}f}]", speedup.value, decimals, speedup.ci_low,
                     decimals, speedup.ci_high, decimals);
}

std::string format_percent(double fraction) {
  if (!std::isfinite(fraction)) {
    return std::string(kAbsent);
  }
  const double percent = fraction * 100;
  if (std::fabs(percent) < 9.95) {
    return fmt::format("{:.1f}%", percent);
  }
  return fmt::format("{:.0f}%", percent);
}

std::string format_library_fraction(const Speedup& fraction) {
  if (!std::isfinite(fraction.value)) {
    return std::string(kAbsent);
  }
  const auto percent = [](double value) {
    return std::isfinite(value) ? fmt::format("{:.1f}%", value * 100) : std::string(kAbsent);
  };
  return fmt::format("{} [{}, {}]", percent(fraction.value), percent(fraction.ci_low),
                     percent(fraction.ci_high));
}

std::string format_error(double error) {
  if (!std::isfinite(error)) {
    return std::string(kAbsent);
  }
  return fmt::format("{:.3g}", error);
}

std::string format_verification(const Verification& verification) {
  if (verification.checks.empty()) {
    return verification.passed ? "passed" : std::string(kAbsent);
  }
  if (verification.passed) {
    const std::size_t count = verification.checks.size();
    return fmt::format("passed ({} check{}{})", count, count == 1 ? "" : "s",
                       verification.seconds > 0 ? fmt::format(", {:.1f} s", verification.seconds)
                                                : std::string());
  }
  std::string failed_checks;
  for (const CheckOutcome& outcome : verification.checks) {
    if (!outcome.passed) {
      failed_checks += (failed_checks.empty() ? "" : ", ") + outcome.check;
    }
  }
  return failed_checks.empty() ? "failed" : "failed: " + failed_checks;
}

std::string describe_outcome(const PairResult& result, bool name_status) {
  switch (result.status) {
  case PairStatus::passed:
    return "passed";
  case PairStatus::failed:
    if (result.reason.empty()) {
      return "failed (no reason recorded; see the log)";
    }
    return name_status ? with_prefix("failed", result.reason) : result.reason;
  case PairStatus::skipped:
    if (result.reason.empty()) {
      return "skipped (no reason recorded)";
    }
    return name_status ? with_prefix("skipped", result.reason) : result.reason;
  case PairStatus::timed_out:
    return with_prefix("timed out", result.reason);
  case PairStatus::crashed:
    return with_prefix("crashed", result.reason);
  case PairStatus::interrupted:
    return with_prefix("interrupted", result.reason);
  case PairStatus::quarantined:
    return with_prefix("quarantined", result.reason);
  }
  return result.reason;
}

bool shows_speedup(const PairResult& result) {
  return result.status == PairStatus::passed && result.verification.passed &&
         result.speedup.has_value();
}

bool shows_library_fraction(const PairResult& result) {
  return shows_speedup(result) && result.library.has_value() &&
         result.library->fraction.has_value();
}

std::string single_line(std::string_view text, std::size_t max_chars) {
  std::string joined;
  std::size_t line_start = 0;
  while (line_start <= text.size()) {
    std::size_t line_end = text.find('\n', line_start);
    if (line_end == std::string_view::npos) {
      line_end = text.size();
    }
    const std::string_view line = trim_blanks(text.substr(line_start, line_end - line_start));
    if (!line.empty()) {
      joined += (joined.empty() ? "" : " | ");
      joined += line;
    }
    line_start = line_end + 1;
  }
  if (max_chars == 0 || display_width(joined) <= max_chars) {
    return joined;
  }
  // Cut at a code point boundary, leaving room for the ellipsis.
  std::size_t kept_points = 0;
  std::size_t cut = 0;
  for (; cut < joined.size(); ++cut) {
    const bool starts_code_point = (static_cast<unsigned char>(joined[cut]) & 0xC0U) != 0x80U;
    if (starts_code_point) {
      if (kept_points == max_chars - 1) {
        break;
      }
      ++kept_points;
    }
  }
  return joined.substr(0, cut) + "…";
}

std::size_t display_width(std::string_view utf8) {
  std::size_t width = 0;
  for (char c : utf8) {
    if ((static_cast<unsigned char>(c) & 0xC0U) != 0x80U) {
      ++width;
    }
  }
  return width;
}

bool passed_with_failed_checks(const PairResult& result) {
  return result.status == PairStatus::passed && !result.verification.passed &&
         std::any_of(result.verification.checks.begin(), result.verification.checks.end(),
                     [](const CheckOutcome& check) { return !check.passed; });
}

}  // namespace aisp::result_text
