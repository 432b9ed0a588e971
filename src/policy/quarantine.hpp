// quarantine.json of a run directory: every pair a failed verification or integrity check kept
// out of the speedups, with the checks that failed and where the run came from. The orchestrator
// rewrites it (atomically) as each such pair finishes, so a crash later in the run loses nothing;
// `aisp bench quarantine-report` prints it (report/quarantine_report.hpp). docs/integrity.md
// describes the phases and the file.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "aisp/result.hpp"

namespace aisp {

inline constexpr int kQuarantineSchemaVersion = 1;

struct QuarantineEntry {
  std::string target;  // "ch92:cached_result"
  VerifyPhase phase = VerifyPhase::gate;
  PairStatus status = PairStatus::failed;   // failed (gate) or quarantined
  std::string reason;                       // the pair's reason, as in results.json
  std::vector<CheckOutcome> failed_checks;  // each with its detail
  std::string run_id;
  std::string git_commit;  // "1a2b3c4", "1a2b3c4-dirty", or "unknown"
  std::string date;        // ISO 8601 UTC, when the pair was recorded
  std::string log_file;    // relative to the run directory
};

struct QuarantineFile {
  std::string run_id;
  VerifyPhase verify_phase = VerifyPhase::gate;
  std::vector<QuarantineEntry> entries;  // in the order the pairs finished
};

// Whether a finished pair goes into the quarantine file: a check failed and `phase` enforces it
// (gate: the pair failed; quarantine: it is quarantined). Never under detect, and never for a
// pair that failed without a failed check (a crash, a hang, a throwing setup: its status says so).
bool belongs_in_quarantine(const PairResult& result, VerifyPhase phase);

QuarantineEntry make_quarantine_entry(const PairResult& result, VerifyPhase phase,
                                      const std::string& run_id, const std::string& git_commit,
                                      const std::string& date);

// {"schema_version": 1, "run_id": ..., "verify_phase": ..., "entries": [...]}.
nlohmann::json quarantine_to_json(const QuarantineFile& file);
// Throws ResultsFormatError naming the JSON path of a bad field, or a schema_version this build
// does not read.
QuarantineFile quarantine_from_json(const nlohmann::json& value);

// Reads a quarantine.json. Throws ResultsFormatError naming the file for malformed content and
// std::runtime_error when it cannot be read.
QuarantineFile load_quarantine_file(const std::filesystem::path& file);

}  // namespace aisp
