// How the human-readable printers (markdown summary, terminal lines and table) write times,
// speedups, roofline fractions and statuses, so every report says the same thing the same way.
#pragma once

#include <cstddef>
#include <string>
#include <vector>
#include <string_view>

#include "aisp/result.hpp"

namespace aisp::report_format {

// Shown where a value does not exist (a skipped pair's times, a failed pair's speedup).
inline constexpr std::string_view kAbsent = "—";

// Three significant digits in the unit that keeps the number readable: "850 ns", "98.1 µs",
// "412 µs", "1.23 ms", "12.3 s". Non-finite values print as kAbsent.
std::string format_duration_ms(double milliseconds);

// A speedup ratio: two decimals below 10, one below 100, none above: "4.20×", "12.3×", "150×".
std::string format_ratio(double ratio);

// "4.20× [4.15, 4.26]": the value and its confidence interval, all at the value's precision.
std::string format_speedup(const Speedup& speedup);

// A fraction as a percentage: "88%", "4.2%" (one decimal below 10%).
std::string format_percent(double fraction);

// "88% of hbm_bandwidth" and, with the ceiling value, "88% of hbm_bandwidth 4275 GB/s".
std::string format_roofline(const Roofline& roofline, bool with_ceiling_value);

// "passed (9 checks)", "failed: within_tolerance, fresh_seed_changes_output", or kAbsent when no
// check ran.
std::string format_verification(const Verification& verification);

// Four letters for the start of a terminal line: PASS, FAIL, SKIP, STOP (interrupted), QUAR
// (quarantined).
std::string_view status_label(PairStatus status);

// Why a pair did not pass, in words: "crashed: SIGSEGV ...", "timed out: ...", the skip reason.
// With `name_status`, failures and skips say so too: "failed: ...", "skipped: ...". May span
// several lines (the reason as recorded).
std::string describe_outcome(const PairResult& result, bool name_status = false);

// A speedup (and the roofline fraction that goes with it) is shown only for a pair that passed
// with verified outputs: a failure quarantines the pair's numbers, in every verification phase
// (a pair that passed with failed checks under --verify-phase detect shows none either).
bool shows_speedup(const PairResult& result);

// The text on one line: line breaks become " | ", trailing blanks go, and text longer than
// `max_chars` code points is cut with "…" (0: no limit).
std::string single_line(std::string_view text, std::size_t max_chars = 0);

// Columns the text occupies on a terminal: UTF-8 code points (all the symbols used are narrow).
std::size_t display_width(std::string_view utf8);

// Rows of cells as text columns: each column as wide as its widest cell (display_width) plus two
// spaces, trailing spaces trimmed, one line per row.
std::string render_columns(const std::vector<std::vector<std::string>>& rows);

struct StatusCounts {
  std::size_t total = 0;
  std::size_t passed = 0;
  std::size_t failed = 0;  // failed, timed out or crashed
  std::size_t skipped = 0;
  std::size_t interrupted = 0;
  std::size_t quarantined = 0;
};
StatusCounts count_statuses(const RunResults& results);
// "4 pairs: 2 passed, 1 failed, 1 skipped" (", 1 quarantined", ", 1 interrupted" when there are
// any).
std::string format_counts(const StatusCounts& counts);

// "95% CI" from the first speedup of the run (the confidence level is a run-wide setting).
std::string confidence_label(const RunResults& results);

// What a run's verification phase means for its numbers, one or two sentences opening with
// "Verification phase: detect."; empty for gate, the default, where every failed check fails its
// pair.
std::string verify_phase_note(VerifyPhase phase);

// A pair that passed although checks failed: only under --verify-phase detect, where failed
// checks are reported but not enforced. Reports warn about it and show no speedup for it.
bool passed_with_failed_checks(const PairResult& result);

// The expectation verdicts of a run, counted: "compared with the expectations for h200 (5%
// threshold): 1 regression, 2 as expected, 1 no expectation, 1 not compared". Empty when no
// pair was compared (no expectations file for the run's hardware key, an older results file).
std::string format_expectation_counts(const RunResults& results);

}  // namespace aisp::report_format
