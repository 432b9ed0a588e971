// How the reports show each variant's error against the pair's float64 reference
// (PrecisionResult) and mark a variant that declares lower precision: the line the terminal
// prints after such a pair, a table cell, and the markdown summary's "Precision" section. Errors
// are verification evidence, shown whatever the pair's status.
#pragma once

#include <optional>
#include <string>

#include "aisp/result.hpp"

namespace aisp::precision_format {

// "precision against the float64 reference (2048 sampled elements): c rel. RMS 0.0361 (baseline
// 0.0019), max |err| 0.512 (0.0312), max rel 0.213 (0.0123); optimized is LOWER PRECISION
// (fp8_e4m3 ...), held to rel. RMS <= 0.05". Empty when the pair has no precision result.
std::string format_precision_line(const PairResult& pair);

// The largest relative RMS error over the variant's outputs; unset when none was measured.
std::optional<double> worst_relative_rms(const VariantPrecision& variant);
std::optional<double> worst_max_abs(const VariantPrecision& variant);
std::optional<double> worst_max_relative(const VariantPrecision& variant);

// The optimized variant's declared lower precision, when it declares one.
const PrecisionDeclaration* lower_precision(const PairResult& pair);

// For a table column: the optimized variant's worst relative RMS error ("0.0361"), with
// ", lower precision" when it declares one; kAbsent without a precision result.
std::string precision_cell(const PairResult& pair);

// Whether any pair of the run has a precision result: the tables then carry its column.
bool any_precision(const RunResults& results);

// "## Precision against the float64 reference": a row per pair, variant and output with its
// relative RMS, max absolute and max relative error and the declared format and bound. Empty
// when no pair has a precision result.
std::string render_precision_markdown(const RunResults& results);

}  // namespace aisp::precision_format
