// results.csv of a run directory: one row per pair for spreadsheets and pandas. Quoting follows
// RFC 4180; lines end in "\n". docs/results-schema.md lists the columns and their units.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "aisp/result.hpp"

namespace aisp {

// The header row's column names, in order.
const std::vector<std::string_view>& csv_columns();

// Header row plus one row per pair. Values that do not exist (a skipped pair's times, an unset
// clock) are empty cells; numbers are written in their shortest exact form. As in every report,
// the speedup and roofline columns stay empty unless the pair passed with verified outputs.
std::string render_csv(const RunResults& results);

// One field quoted per RFC 4180: wrapped in double quotes, with inner quotes doubled, when it
// holds a comma, a double quote, a carriage return or a line feed; otherwise unchanged.
std::string csv_field(std::string_view text);

}  // namespace aisp
