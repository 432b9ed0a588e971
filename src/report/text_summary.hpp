// What a run prints: one line per pair as it finishes (in a pipe, or above a progress display),
// and an aligned table with the pass/fail/skip counts at the end.
#pragma once

#include <string>

#include "aisp/result.hpp"

namespace aisp {

// One line, no trailing newline:
//   "PASS ch07:transpose_padded  412 µs → 98.1 µs  4.20× [4.15, 4.26]  88% of hbm_bandwidth"
//   "FAIL ch07:x  crashed: SIGSEGV in transpose_naive (log: logs/ch07_x.log)"
//   "SKIP ch07:y  needs a GPU: no CUDA device is visible"
// A speedup that is not "faster" carries its verdict: "1.01× [0.98, 1.04] no significant
// difference". Reasons of several lines are joined with " | " and cut to 300 characters.
std::string format_pair_line(const PairResult& result);

// The table for the end of a run (Status, Target, Baseline, Optimized, Speedup, Roofline, Note)
// and a last line of counts: "3 pairs: 1 passed, 1 failed, 1 skipped". Ends with a newline.
std::string render_text_summary(const RunResults& results);

}  // namespace aisp
