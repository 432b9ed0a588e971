// Expectations: the speedups a pair is known to reach on one kind of hardware, committed at
// chapters/<chapter folder>/expectations/<hardware_key>.json, written only from real runs with
// their provenance, and compared against by later runs to flag regressions.
//
// File format (docs/results-schema.md has the full description):
//   {"schema_version": 1, "hardware_key": "h200",
//    "entries": {"ch07:transpose_padded": {"baseline_ms": 0.412, "optimized_ms": 0.0981,
//        "speedup": 4.2, "speedup_ci_low": 4.15, "speedup_ci_high": 4.26,
//        "roofline_fraction": 0.88, "ceiling": "hbm_bandwidth", "gpu": "NVIDIA H200",
//        "git_commit": "1a2b3c4", "date": "2026-11-21", "run_id": "..."}}}
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "aisp/result.hpp"

namespace aisp {

inline constexpr int kExpectationsSchemaVersion = 1;

// What one target reached in the run that recorded it.
struct ExpectationEntry {
  double baseline_ms = 0;   // median of the baseline variant
  double optimized_ms = 0;  // median of the optimized variant
  double speedup = 0;
  double speedup_ci_low = 0, speedup_ci_high = 0;
  std::optional<double> roofline_fraction;  // null in the file when the pair has no roofline
  std::string ceiling;                      // null in the file (empty here) without a roofline
  // Provenance: where the numbers come from.
  std::string gpu;         // "NVIDIA H200"
  std::string git_commit;  // of the source that was measured
  std::string date;        // "YYYY-MM-DD", UTC
  std::string run_id;      // artifacts/runs/<run_id> held the evidence
};

struct ExpectationProvenance {
  std::string gpu, git_commit, date, run_id;
};

// Entries by target ("ch07:transpose_padded"). A missing file is an empty map (nothing expected
// yet); a corrupt one throws std::runtime_error naming the file, the JSON path of the bad field
// and what to do.
std::map<std::string, ExpectationEntry> load_expectations(const std::filesystem::path& file);

// The expectations file of one chapter: <chapter_dir>/expectations/<hardware_key>.json.
std::filesystem::path expectations_file(const std::filesystem::path& chapter_dir,
                                        const std::string& hardware_key);

// Records the pairs of `results` that passed, with verified outputs and a measured speedup, into
// their chapters' expectations files for `hardware_key`: an entry for the same target is
// replaced, the others are kept. Files are written atomically with sorted keys and a 2-space
// indent, and numbers are rounded to 4 significant digits, so re-recording changes only the
// entries that moved. Returns the number of entries written.
// Throws std::invalid_argument for a hardware key that is not [a-z0-9_+-]+, for incomplete
// provenance, or for a recorded pair whose chapter is not in `chapter_dir_by_chapter`
// ("ch07" -> .../chapters/ch07_memory_access); std::runtime_error when a file cannot be read
// or written.
int update_expectations(const RunResults& results,
                        const std::map<std::string, std::filesystem::path>& chapter_dir_by_chapter,
                        const std::string& hardware_key, const ExpectationProvenance& provenance);

// How a pair's speedup compares with its expectation.
//   "regression":          the run's ci_high < the expected speedup_ci_low
//   "improvement":         the run's ci_low > the expected speedup_ci_high
//   "within expectation":  the two confidence intervals overlap
//   "no expectation":      nothing recorded for the target on this hardware
// Only pairs that passed with verified outputs and a speedup are compared; a pair that failed or
// was skipped is reported by its status, not here. Comparing intervals, not point values, keeps
// run-to-run noise from being called a regression.
struct ExpectationComparison {
  std::string target;
  std::string verdict;
  std::string detail;  // both intervals and where the expectation came from
};

std::vector<ExpectationComparison>
compare_with_expectations(const RunResults& results,
                          const std::map<std::string, ExpectationEntry>& expectations);

}  // namespace aisp
