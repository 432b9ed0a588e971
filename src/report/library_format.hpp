// How the reports show a target's fraction of its pair's library reference (LibraryComparison,
// docs/contract.md "Library reference"): the words on the terminal line, a table cell, and the
// markdown summary's "Library references" section. A fraction is shown by the speedup's rule:
// only for a pair that passed with verified outputs.
#pragma once

#include <string>

#include "aisp/result.hpp"

namespace aisp::library_format {

// For the terminal line: "93.1% [92.4%, 93.8%] of cuBLASLt", "the cuBLASLt reference",
// "no fraction of cuBLASLt: <reason>" (cut to `max_reason_chars`); empty when the pair has no
// library reference or its fraction is not shown.
std::string format_library_note(const PairResult& pair, std::size_t max_reason_chars = 120);

// For a table column: "93.1% [92.4%, 93.8%] of cuBLASLt", "the cuBLASLt reference", or kAbsent
// (also when the fraction is not shown).
std::string library_cell(const PairResult& pair);

// Whether any pair of the run has a library reference: the tables then carry its column.
bool any_library(const RunResults& results);

// "## Library references": one line per target with a library reference, with the reference's
// variant and both medians, or why there is no fraction. Empty when no pair has one.
std::string render_library_markdown(const RunResults& results);

}  // namespace aisp::library_format
