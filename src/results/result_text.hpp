// The words and numbers of a result, as every printer and every judgement writes them: times,
// speedups, percentages, a verification in brief, why a pair did not pass, and when a speedup may
// be shown at all. The renderers (src/report) and the policies' verdict details (src/policy)
// both use it, so a time or a ratio reads the same in every report and every message.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "aisp/result.hpp"

namespace aisp::result_text {

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

// A fraction of a library reference with its interval, one decimal: "93.1% [92.4%, 93.8%]"
// (Speedup holds it: reference median / optimized median). kAbsent when not finite.
std::string format_library_fraction(const Speedup& fraction);

// An error against the float64 reference: three significant digits, "0.0361", "2.1e-05".
std::string format_error(double error);

// "passed (9 checks)", "failed: within_tolerance, fresh_seed_changes_output", or kAbsent when no
// check ran.
std::string format_verification(const Verification& verification);

// Why a pair did not pass, in words: "crashed: SIGSEGV ...", "timed out: ...", the skip reason.
// With `name_status`, failures and skips say so too: "failed: ...", "skipped: ...". May span
// several lines (the reason as recorded).
std::string describe_outcome(const PairResult& result, bool name_status = false);

// A speedup (and the roofline fraction that goes with it) is shown only for a pair that passed
// with verified outputs: a failure quarantines the pair's numbers, in every verification phase
// (a pair that passed with failed checks under --verify-phase detect shows none either).
bool shows_speedup(const PairResult& result);

// The fraction of the library reference is shown by the same rule as the speedup, when measured.
bool shows_library_fraction(const PairResult& result);

// The text on one line: line breaks become " | ", trailing blanks go, and text longer than
// `max_chars` code points is cut with "…" (0: no limit).
std::string single_line(std::string_view text, std::size_t max_chars = 0);

// Columns the text occupies on a terminal: UTF-8 code points (all the symbols used are narrow).
std::size_t display_width(std::string_view utf8);

// A pair that passed although checks failed: only under --verify-phase detect, where failed
// checks are reported but not enforced. Reports warn about it and show no speedup for it.
bool passed_with_failed_checks(const PairResult& result);

}  // namespace aisp::result_text
