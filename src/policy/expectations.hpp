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
#include <set>
#include <stdexcept>
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
  // The target's fraction of its pair's library reference (reference median / optimized median)
  // and its interval, when the run measured one; absent from the file otherwise. It takes part
  // in the verdict as the speedup does.
  std::string library;  // "cuBLASLt"
  std::optional<double> library_fraction, library_fraction_ci_low, library_fraction_ci_high;
  // Provenance: where the numbers come from.
  std::string gpu;         // "NVIDIA H200"
  std::string git_commit;  // of the source that was measured
  std::string date;        // "YYYY-MM-DD", UTC
  std::string run_id;      // artifacts/runs/<run_id> held the evidence
  // Written by hand, never by a run, and kept when the entry is re-recorded: a wider practical
  // threshold for a pair whose speedup moves with the host between runs (a baseline that is a
  // host-side launch loop), with the measurements that justify it. The comparison uses the larger
  // of this and the run's threshold. Absent in the file: unset.
  std::optional<double> threshold;
  std::string threshold_reason;  // required with `threshold`
};

struct ExpectationProvenance {
  std::string gpu, git_commit, date, run_id;
  // The measured source had uncommitted changes, or git could not say (then git_commit is
  // "unknown"): its commit does not identify the code. Recorded as "<commit>-dirty".
  bool source_dirty = false;
};

// What update_expectations may do beyond its default, each only when the user asked
// (`bench run --allow-mixed-provenance`, `--allow-dirty`).
struct ExpectationUpdateOptions {
  // Record into a file whose entries that this update keeps come from another GPU or commit.
  bool allow_mixed_provenance = false;
  // Record from a source with uncommitted changes (or no known commit).
  bool allow_dirty = false;
};

// update_expectations would leave a file that is not one consistent piece of evidence: the
// source was dirty, or the file would mix provenance. what() names the file, what differs and the
// flag that overrides. The CLI exits 2 for it.
class ExpectationsRefused : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Entries by target ("ch07:transpose_padded"). A missing file is an empty map (nothing expected
// yet); a corrupt one throws std::runtime_error naming the file, the JSON path of the bad field
// and what to do.
std::map<std::string, ExpectationEntry> load_expectations(const std::filesystem::path& file);

// The expectations file of one chapter: <chapter_dir>/expectations/<hardware_key>.json.
std::filesystem::path expectations_file(const std::filesystem::path& chapter_dir,
                                        const std::string& hardware_key);

// The commit an entry records for `provenance`: "1a2b3c4", "1a2b3c4-dirty", or "unknown".
std::string recorded_commit(const ExpectationProvenance& provenance);

// The refusals of update_expectations, checked without writing anything, so that `bench run` can
// refuse before it measures (with the selected targets) and again before it writes (with the
// pairs that passed). Throws ExpectationsRefused
//   - when provenance.source_dirty, unless options.allow_dirty;
//   - when, in the file of a chapter of `targets_by_chapter` ("ch07" -> {"ch07:transpose", ...}),
//     an entry that the update keeps (its target is not re-recorded) names another GPU or another
//     commit than `provenance`, unless options.allow_mixed_provenance. Commits are equal when one
//     is a prefix (7+ characters) of the other (a short and a full hash); a "-dirty" or "unknown"
//     commit equals none, as it names no code. An update that re-records every entry of a file,
//     or a file of this GPU and commit, is never mixed.
// Throws std::invalid_argument for a chapter missing from `chapter_dir_by_chapter`, and
// std::runtime_error for a file that cannot be read.
void check_expectations_update(
    const std::map<std::string, std::set<std::string>>& targets_by_chapter,
    const std::map<std::string, std::filesystem::path>& chapter_dir_by_chapter,
    const std::string& hardware_key, const ExpectationProvenance& provenance,
    const ExpectationUpdateOptions& options);

// Records the pairs of `results` that passed, with verified outputs and a measured speedup, into
// their chapters' expectations files for `hardware_key`: an entry for the same target is
// replaced, the others are kept. Files are written atomically with sorted keys and a 2-space
// indent, and numbers are rounded to 4 significant digits, so re-recording changes only the
// entries that moved. Returns the number of entries written.
// Throws ExpectationsRefused as check_expectations_update says (then nothing is written);
// std::invalid_argument for a hardware key that is not [a-z0-9_+-]+, for incomplete
// provenance, or for a recorded pair whose chapter is not in `chapter_dir_by_chapter`
// ("ch07" -> .../chapters/ch07_memory_access); std::runtime_error when a file cannot be read or
// written.
int update_expectations(const RunResults& results,
                        const std::map<std::string, std::filesystem::path>& chapter_dir_by_chapter,
                        const std::string& hardware_key, const ExpectationProvenance& provenance,
                        const ExpectationUpdateOptions& options = {});

// The practical threshold of the comparison: 5%. Expectations are compared across runs, days and
// machines of one model, where clocks, temperature, drivers and neighbours move times by a few
// percent that no within-run interval covers (compare-runs uses 2% for two runs on one machine).
inline constexpr double kDefaultExpectationThreshold = 0.05;

// How a pair's speedup compares with its expectation (`expected`: nullptr when none is recorded),
// with t = `threshold` and [E_low, E_high] the recorded speedup interval (the fraction of the
// library reference, when both the entry and the run have one, is judged by the same rule; the
// target is a regression when either regressed, an improvement when either improved and neither
// regressed):
//   "regression":     the run's ci_high < E_low / (1 + t): wholly below, by more than t
//   "improvement":    the run's ci_low  > E_high × (1 + t): wholly above, by more than t
//   "as_expected":    otherwise
//   "no_expectation": the pair passed, but nothing is recorded for its target
//   "not_compared":   the pair did not pass with verified outputs and a measured speedup (failed,
//                     skipped, quarantined, `bench verify`); its status says more
// Only the ratios decide. The variants' absolute medians are compared with the recorded ones in
// the detail (a note when both moved by more than t), never in the verdict: a speedup is a ratio
// of interleaved samples, robust to the clocks, power state and host of the machine; absolute
// times are not (docs/reports.md says why).
ExpectationCheck check_against_expectation(const PairResult& pair, const ExpectationEntry* expected,
                                           const std::string& hardware_key,
                                           double threshold = kDefaultExpectationThreshold);

// check_against_expectation for one pair, looking its target up in `expectations` (targets of
// every chapter of the run); `bench run` calls it as each pair finishes.
ExpectationCheck check_with_expectations(
    const PairResult& pair, const std::map<std::string, ExpectationEntry>& expectations,
    const std::string& hardware_key, double threshold = kDefaultExpectationThreshold);

// check_with_expectations for every pair of `results`, in order.
std::vector<ExpectationCheck> compare_with_expectations(
    const RunResults& results, const std::map<std::string, ExpectationEntry>& expectations,
    const std::string& hardware_key, double threshold = kDefaultExpectationThreshold);

}  // namespace aisp
