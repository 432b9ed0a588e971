// What `aisp bench audit` prints: the contract audits of verify/contract_audit.hpp as a table
// or as JSON.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "verify/contract_audit.hpp"

namespace aisp {

// A table with one row per pair (a column per check: ok, FAIL, or "verify" for deferred), then
// every failed check with its detail, then the counts. Ends with a newline.
std::string render_audit_text(const std::vector<PairAudit>& audits);

// {"complete": bool, "pairs": [{"target", "chapter", "complete", "checks": [{"check", "outcome",
// "detail"}]}], "counts": {"pairs", "complete", "incomplete"}}.
nlohmann::ordered_json audit_to_json(const std::vector<PairAudit>& audits);

}  // namespace aisp
