// Two runs of the same targets compared: did the candidate run (a new commit, driver, machine)
// get slower or faster than the baseline run? `aisp bench compare-runs` prints this (the printers
// are in report/comparison_report.hpp); docs/reports.md states the rule.
//
// For each target in both runs, each variant's per-run times (event_ms for GPU variants, host_ms
// for host-clock ones) are compared through the ratio of medians, candidate / baseline, with a
// percentile-bootstrap interval over the two runs' stored samples (bootstrap_speedup). A change
// is called only when the interval excludes 1 *and* the ratio is beyond a practical threshold:
//   regression:             ci_low > 1  and  ratio > 1 + threshold
//   improvement:            ci_high < 1 and  ratio < 1 / (1 + threshold)
//   no significant change:  otherwise
// The interval covers the sampling noise inside each run, not what changes between runs (clocks,
// placement, other tenants); the threshold is the allowance for that.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "aisp/result.hpp"

namespace aisp {

struct RunComparisonSettings {
  double threshold = 0.02;  // practical threshold: a fraction of the baseline run's median
  double confidence = 0.95;
  int resamples = 2000;
  std::uint64_t seed = 20261121;  // the interval is reproducible from the two files
};

enum class ChangeVerdict {
  regression,             // the optimized variant got slower, beyond noise and threshold
  improvement,            // it got faster, beyond noise and threshold
  no_significant_change,  //
  failed,                 // the pair failed (or its outputs did not verify) in the candidate run
  skipped,                // skipped or interrupted in the candidate run
  not_comparable,         // both ran, but the numbers cannot be compared: `detail` says why
  added,                  // only in the candidate run
  removed,                // only in the baseline run
};
// "regression", "improvement", "no significant change", "failed", "skipped", "not comparable",
// "added", "removed".
std::string_view change_verdict_name(ChangeVerdict verdict);

// Every verdict, in the order above (counts and reports list them in this order).
inline constexpr std::array<ChangeVerdict, 8> kChangeVerdicts{
    ChangeVerdict::regression, ChangeVerdict::improvement, ChangeVerdict::no_significant_change,
    ChangeVerdict::failed,     ChangeVerdict::skipped,     ChangeVerdict::not_comparable,
    ChangeVerdict::added,      ChangeVerdict::removed,
};

// One stored series in both runs, judged by the rule above: a variant's times per run, or the
// times of one of its marks.
struct TimeChange {
  std::size_t baseline_run_samples = 0, candidate_run_samples = 0;
  double baseline_run_median_ms = 0, candidate_run_median_ms = 0;
  double ratio = 0;  // candidate / baseline median time: > 1 is slower
  double ci_low = 0, ci_high = 0;
  ChangeVerdict verdict = ChangeVerdict::not_comparable;  // one of the first three, or this
  std::string detail;  // "slower: time +10.3% [+9.9%, +10.8%]", or why it was not compared
};

// A mark (`ctx.mark("first_token")`: a point inside the run, timed from its start) in both runs.
// Time to first token is a mark, so a slower first token is a regression even when the whole
// run's time did not move.
struct MarkChange : TimeChange {
  std::string name;
};

// One variant (the pair's baseline or optimized file) in both runs.
struct VariantChange : TimeChange {
  std::string variant;  // file stem
  std::string samples;  // "event_ms" or "host_ms": which stored samples were compared
  std::vector<MarkChange> marks;          // marks of both runs, in the candidate run's order
  std::vector<std::string> marks_missing;  // "first_token (baseline run only)"
};

struct TargetComparison {
  std::string target;
  // The optimized variant's time decides; a regressed mark of the optimized variant makes it a
  // regression, an improved one an improvement when the time did not change. Or the status.
  ChangeVerdict verdict = ChangeVerdict::not_comparable;
  std::string detail;
  std::optional<VariantChange> optimized, baseline;  // set when both runs measured the pair
  std::optional<Speedup> baseline_run_speedup, candidate_run_speedup;  // when shown in that run
};

struct RunComparison {
  RunComparisonSettings settings;
  std::string baseline_run_id, candidate_run_id;
  std::string baseline_hardware, candidate_hardware;  // "h200 (NVIDIA H200)", or "" unknown
  std::string baseline_commit, candidate_commit;
  std::vector<std::string> warnings;      // different hardware, incomplete runs
  std::vector<TargetComparison> targets;  // the baseline run's order, then added targets
};

// Throws std::invalid_argument for a threshold outside [0, 10), a confidence outside (0, 1) or
// fewer than 100 resamples. The manifests are the runs' manifest.json (empty objects when absent).
RunComparison compare_runs(const RunResults& baseline_run, const nlohmann::json& baseline_manifest,
                           const RunResults& candidate_run,
                           const nlohmann::json& candidate_manifest,
                           const RunComparisonSettings& settings);

// Regressions, and targets that fail in the candidate run: what `--fail-on-regression` fails on.
std::size_t count_blocking_changes(const RunComparison& comparison);

// A compared series' time change and its interval, as the details and every report write it:
// "+10.3% [+9.9%, +10.8%]" (+ is slower); "—" when it was not comparable.
std::string format_time_change(const TimeChange& change);

// The marks of a variant in both runs, one after the other: "first_token +12.0% [+10.1%, +13.9%]
// regression, decode_done 0.0% [...] no significant change", then the marks only one run has.
std::string format_mark_changes(const VariantChange& change);

}  // namespace aisp
