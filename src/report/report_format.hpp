// How the human-readable printers (markdown summary, terminal lines and table) write roofline
// fractions, statuses, counts and columns, so every report says the same thing the same way.
// Times, speedups, percentages and outcomes come from results/result_text.hpp (the policies'
// verdicts use them too); they are named here as well, so a printer needs one namespace.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "aisp/result.hpp"
#include "results/result_text.hpp"

namespace aisp::report_format {

using result_text::describe_outcome;
using result_text::display_width;
using result_text::format_duration_ms;
using result_text::format_error;
using result_text::format_library_fraction;
using result_text::format_percent;
using result_text::format_ratio;
using result_text::format_speedup;
using result_text::format_verification;
using result_text::kAbsent;
using result_text::passed_with_failed_checks;
using result_text::shows_library_fraction;
using result_text::shows_speedup;
using result_text::single_line;

// "88% of hbm_bandwidth" and, with the ceiling value, "88% of hbm_bandwidth 4275 GB/s".
std::string format_roofline(const Roofline& roofline, bool with_ceiling_value);

// Four letters for the start of a terminal line: PASS, FAIL, SKIP, STOP (interrupted), QUAR
// (quarantined).
std::string_view status_label(PairStatus status);

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

// The expectation verdicts of a run, counted: "compared with the expectations for h200 (5%
// threshold): 1 regression, 2 as expected, 1 no expectation, 1 not compared". Empty when no
// pair was compared (no expectations file for the run's hardware key, an older results file).
std::string format_expectation_counts(const RunResults& results);

}  // namespace aisp::report_format
