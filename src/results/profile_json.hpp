// The JSON form of a pair's Nsight Compute profile (PairResult::profile), as results.json and
// results.jsonl hold it under "profile"; docs/results-schema.md documents every field.
#pragma once

#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

#include "aisp/result.hpp"
#include "core/result_names.hpp"
#include "results/json_fields.hpp"

namespace aisp {

nlohmann::json profile_to_json(const PairProfile& profile);

// Throws json_fields::JsonFieldError naming the JSON path of a missing or mistyped field.
PairProfile profile_from_fields(const json_fields::ObjectFields& fields);

}  // namespace aisp
