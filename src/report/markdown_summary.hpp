// summary.md of a run directory: what ran on which GPU, one table row per pair, and why each
// pair that did not pass failed or was skipped. docs/results-schema.md shows an example.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "aisp/result.hpp"

namespace aisp {

// `manifest` is the run's manifest.json. Read from it, each only when present: gpus[0].name (the
// title says "no GPU" without it), hardware_key, git_commit and git_dirty. Speedups, verdicts and
// roofline fractions appear only for pairs that passed with verified outputs. When the pairs were
// compared with expectations, an "Expectations" section counts the verdicts and lists every
// regression and improvement. A run with --profile ends with a "Profiles" section
// (profile_format::render_profile_markdown).
std::string render_markdown_summary(const RunResults& results, const nlohmann::json& manifest);

}  // namespace aisp
