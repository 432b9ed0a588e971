// What a run prints: one line per pair as it finishes (in a pipe, or above a progress display),
// and an aligned table with the pass/fail/skip counts at the end.
#pragma once

#include <string>

#include "aisp/result.hpp"

namespace aisp {

// One line, no trailing newline:
//   "PASS ch07:transpose_padded  412 µs → 98.1 µs  4.20× [4.15, 4.26]  88% of hbm_bandwidth"
//   "FAIL ch07:x  crashed: SIGSEGV in transpose_naive (log: logs/ch07_x.log)"
//   "SKIP ch07:y  needs a GPU: no NVIDIA driver or GPU found (libcuda.so.1 is not installed)"
// A speedup that is not "faster" carries its verdict: "1.01× [0.98, 1.04] no significant
// difference". Reasons of several lines are joined with " | " and cut to 300 characters. A pair
// that passed with failed checks (--verify-phase detect) gets a second line, "  warning: 2 checks
// failed, not enforced (--verify-phase detect): ...", with its unverified speedup.
std::string format_pair_line(const PairResult& result);

// Every check of a verification, one line each with its outcome and detail (cut to 300
// characters), for `bench verify`: "    ok   signatures_equal: n=1048576 dtype=f32\n",
// "    FAIL within_tolerance: out: 12 of 1048576 elements ...\n". Empty when no check ran.
std::string format_check_lines(const Verification& verification);

// The table for the end of a run (Status, Target, Baseline, Optimized, Speedup, Roofline, Note):
// a row per pair that was not skipped, in run order, then a row per skip reason ("SKIP  29 pairs
// ... needs a GPU: no NVIDIA driver or GPU found ...", the target when one pair has the reason),
// and a last line of counts: "3 pairs: 1 passed, 1 failed, 1 skipped", then the verification
// phase's note when it is not gate (report_format::verify_phase_note). When the pairs were
// compared with expectations, a line of verdict counts follows, then one line per regression and
// improvement ("  REGRESSION ch07:x  measured ..."). Ends with a newline.
std::string render_text_summary(const RunResults& results);

}  // namespace aisp
