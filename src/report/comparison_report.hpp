// The printers of a run comparison (policy/run_comparison.hpp): the text `bench compare-runs`
// prints, its --markdown and --csv files and its --json. Text and markdown hold one row per
// target; CSV one row per target with every number (RFC 4180, empty cells for values that do not
// exist); JSON all of it.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "policy/run_comparison.hpp"

namespace aisp {

// "4 targets: 1 regression, 2 no significant change, 1 added" (only the verdicts that occur).
std::string format_verdict_counts(const RunComparison& comparison);

std::string render_comparison_text(const RunComparison& comparison);
std::string render_comparison_markdown(const RunComparison& comparison);
std::string render_comparison_csv(const RunComparison& comparison);
nlohmann::ordered_json comparison_to_json(const RunComparison& comparison);

}  // namespace aisp
