// How the reports show the points a variant marked inside run() (ctx.mark, MarkMeasurement): the
// line the terminal prints after such a pair and the markdown summary's "Marks" section.
#pragma once

#include <string>

#include "aisp/result.hpp"

namespace aisp::marks_format {

// "marks (ms from the start of run()): baseline first_token 2.01 ms [1.98, 2.05]; optimized
// first_token 512 µs [505 µs, 520 µs]" (median [p05, p95]); empty when neither variant marked.
std::string format_marks_line(const PairResult& pair);

// "## Marks (time from the start of run())": a row per variant and mark with its median, p05,
// p95 and the whole run's median beside it. Empty when no pair marked anything.
std::string render_marks_markdown(const RunResults& results);

}  // namespace aisp::marks_format
