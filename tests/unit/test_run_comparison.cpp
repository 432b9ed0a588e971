// compare_runs: the regression / improvement / no significant change rule on synthetic samples,
// targets present in one run only, failed and incomparable pairs, and the printers.
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "policy/run_comparison.hpp"
#include "report/comparison_report.hpp"

namespace aisp {
namespace {

// `count` samples around `median_ms` with a relative spread of about `spread`, deterministic.
std::vector<double> samples_around(double median_ms, double spread, std::size_t count = 200) {
  std::vector<double> samples;
  for (std::size_t i = 0; i < count; ++i) {
    samples.push_back(median_ms * (1.0 + spread * std::sin(static_cast<double>(i) * 1.7)));
  }
  return samples;
}

VariantMeasurement measured(const std::string& variant, double median_ms, double spread = 0.002,
                            TimingMethod method = TimingMethod::cuda_events) {
  VariantMeasurement measurement;
  measurement.variant = variant;
  measurement.method = method;
  const std::vector<double> samples = samples_around(median_ms, spread);
  if (method != TimingMethod::host_clock) {
    measurement.event_ms = samples;
  }
  measurement.host_ms = samples;
  measurement.stats.count = samples.size();
  measurement.stats.median = median_ms;
  return measurement;
}

PairResult passed_pair(const std::string& name, double baseline_ms, double optimized_ms,
                       TimingMethod method = TimingMethod::cuda_events) {
  PairResult pair;
  pair.target = "ch90:" + name;
  pair.chapter = "ch90";
  pair.pair = name;
  pair.baseline_variant = "baseline_" + name;
  pair.optimized_variant = "optimized_" + name;
  pair.status = PairStatus::passed;
  pair.signature = {{"n", "1048576"}};
  pair.baseline = measured(pair.baseline_variant, baseline_ms, 0.002, method);
  pair.optimized = measured(pair.optimized_variant, optimized_ms, 0.002, method);
  pair.speedup = Speedup{baseline_ms / optimized_ms,
                         baseline_ms / optimized_ms * 0.99,
                         baseline_ms / optimized_ms * 1.01,
                         0.95,
                         2000,
                         "faster"};
  pair.verification.passed = true;
  pair.verification.checks = {{"within_tolerance", true, ""}};
  return pair;
}

RunResults run_of(const std::string& run_id, std::vector<PairResult> pairs) {
  RunResults run;
  run.run_id = run_id;
  run.complete = true;
  run.pairs = std::move(pairs);
  return run;
}

nlohmann::json manifest_for(const std::string& hardware_key) {
  return nlohmann::json{{"hardware_key", hardware_key},
                        {"git_commit", "0123456789abcdef"},
                        {"gpus", {{{"name", "NVIDIA H200"}}}}};
}

RunComparison compare(const RunResults& baseline, const RunResults& candidate,
                      double threshold = 0.02) {
  RunComparisonSettings settings;
  settings.threshold = threshold;
  return compare_runs(baseline, manifest_for("h200"), candidate, manifest_for("h200"), settings);
}

TEST(RunComparison, SameSamplesAreNoSignificantChange) {
  const RunResults run = run_of("r1", {passed_pair("copy", 2.0, 0.5), passed_pair("gemm", 8, 2)});
  const RunComparison comparison = compare(run, run);
  ASSERT_EQ(comparison.targets.size(), 2u);
  for (const TargetComparison& target : comparison.targets) {
    EXPECT_EQ(target.verdict, ChangeVerdict::no_significant_change) << target.target;
    ASSERT_TRUE(target.optimized.has_value());
    EXPECT_DOUBLE_EQ(target.optimized->ratio, 1.0);
    EXPECT_LE(target.optimized->ci_low, 1.0);
    EXPECT_GE(target.optimized->ci_high, 1.0);
    EXPECT_EQ(target.baseline->verdict, ChangeVerdict::no_significant_change);
  }
  EXPECT_EQ(count_blocking_changes(comparison), 0u);
  EXPECT_TRUE(comparison.warnings.empty());
}

TEST(RunComparison, TenPercentSlowerWithTightSamplesIsARegression) {
  const RunResults before = run_of("r1", {passed_pair("copy", 2.0, 0.5)});
  const RunResults after = run_of("r2", {passed_pair("copy", 2.0, 0.55)});
  const RunComparison comparison = compare(before, after);
  ASSERT_EQ(comparison.targets.size(), 1u);
  const TargetComparison& target = comparison.targets[0];
  EXPECT_EQ(target.verdict, ChangeVerdict::regression);
  EXPECT_NEAR(target.optimized->ratio, 1.1, 1e-9);
  EXPECT_GT(target.optimized->ci_low, 1.0);
  EXPECT_EQ(target.optimized->samples, "event_ms");
  EXPECT_EQ(target.optimized->candidate_run_samples, 200u);
  EXPECT_NEAR(target.optimized->baseline_run_median_ms, 0.5, 1e-3);
  EXPECT_NEAR(target.optimized->candidate_run_median_ms, 0.55, 1e-3);
  EXPECT_EQ(target.detail.rfind("slower: time +10.0%", 0), 0u) << target.detail;
  // The baseline variant did not move: the code, not the machine.
  EXPECT_EQ(target.baseline->verdict, ChangeVerdict::no_significant_change);
  EXPECT_EQ(count_blocking_changes(comparison), 1u);
}

TEST(RunComparison, TenPercentFasterIsAnImprovement) {
  const RunResults before = run_of("r1", {passed_pair("copy", 2.0, 0.55)});
  const RunResults after = run_of("r2", {passed_pair("copy", 2.0, 0.5)});
  const TargetComparison target = compare(before, after).targets.at(0);
  EXPECT_EQ(target.verdict, ChangeVerdict::improvement);
  EXPECT_LT(target.optimized->ci_high, 1.0);
}

TEST(RunComparison, ASignificantChangeWithinTheThresholdIsNoSignificantChange) {
  const RunResults before = run_of("r1", {passed_pair("copy", 2.0, 0.5)});
  const RunResults after = run_of("r2", {passed_pair("copy", 2.0, 0.505)});  // 1% slower
  const TargetComparison target = compare(before, after).targets.at(0);
  EXPECT_GT(target.optimized->ci_low, 1.0);  // the interval excludes no change ...
  EXPECT_EQ(target.verdict, ChangeVerdict::no_significant_change);  // ... but 1% < 2%
  EXPECT_NE(target.detail.find("within the 2% threshold"), std::string::npos) << target.detail;

  const RunResults ten_percent = run_of("r3", {passed_pair("copy", 2.0, 0.55)});
  EXPECT_EQ(compare(before, ten_percent, 0.25).targets.at(0).verdict,
            ChangeVerdict::no_significant_change);
}

TEST(RunComparison, NoisySamplesAreNotCalledAChange) {
  RunResults before = run_of("r1", {passed_pair("copy", 2.0, 0.5)});
  RunResults after = run_of("r2", {passed_pair("copy", 2.0, 0.52)});
  before.pairs[0].optimized = measured("optimized_copy", 0.5, 0.6);
  after.pairs[0].optimized = measured("optimized_copy", 0.52, 0.6);
  const TargetComparison target = compare(before, after).targets.at(0);
  EXPECT_EQ(target.verdict, ChangeVerdict::no_significant_change) << target.detail;
  EXPECT_LT(target.optimized->ci_low, 1.0);
}

TEST(RunComparison, BothVariantsSlowerPointsAtTheMachine) {
  const RunResults before = run_of("r1", {passed_pair("copy", 2.0, 0.5)});
  const RunResults after = run_of("r2", {passed_pair("copy", 2.4, 0.6)});
  const TargetComparison target = compare(before, after).targets.at(0);
  EXPECT_EQ(target.verdict, ChangeVerdict::regression);
  EXPECT_EQ(target.baseline->verdict, ChangeVerdict::regression);
  EXPECT_NE(target.detail.find("look at the machine"), std::string::npos) << target.detail;
}

TEST(RunComparison, HostClockPairsCompareHostTimes) {
  const RunResults before =
      run_of("r1", {passed_pair("affine", 2.0, 1.0, TimingMethod::host_clock)});
  const RunResults after =
      run_of("r2", {passed_pair("affine", 2.0, 1.2, TimingMethod::host_clock)});
  const TargetComparison target = compare(before, after).targets.at(0);
  EXPECT_EQ(target.optimized->samples, "host_ms");
  EXPECT_EQ(target.verdict, ChangeVerdict::regression);
}

TEST(RunComparison, TargetsInOneRunOnlyAreAddedOrRemoved) {
  const RunResults before = run_of("r1", {passed_pair("old", 1, 0.5), passed_pair("kept", 1, 0.5)});
  const RunResults after = run_of("r2", {passed_pair("kept", 1, 0.5), passed_pair("new", 1, 0.25)});
  const RunComparison comparison = compare(before, after);
  ASSERT_EQ(comparison.targets.size(), 3u);
  EXPECT_EQ(comparison.targets[0].target, "ch90:old");
  EXPECT_EQ(comparison.targets[0].verdict, ChangeVerdict::removed);
  EXPECT_EQ(comparison.targets[1].target, "ch90:kept");
  EXPECT_EQ(comparison.targets[1].verdict, ChangeVerdict::no_significant_change);
  EXPECT_EQ(comparison.targets[2].target, "ch90:new");
  EXPECT_EQ(comparison.targets[2].verdict, ChangeVerdict::added);
  ASSERT_TRUE(comparison.targets[2].candidate_run_speedup.has_value());
  EXPECT_DOUBLE_EQ(comparison.targets[2].candidate_run_speedup->value, 4.0);
  EXPECT_EQ(count_blocking_changes(comparison), 0u);
  EXPECT_EQ(format_verdict_counts(comparison),
            "3 targets: 1 no significant change, 1 added, 1 removed");
}

TEST(RunComparison, FailedPairsAreListedAndBlock) {
  const RunResults before =
      run_of("r1", {passed_pair("crash", 1, 0.5), passed_pair("wrong", 1, 0.5)});
  PairResult crashed = passed_pair("crash", 1, 0.5);
  crashed.status = PairStatus::crashed;
  crashed.reason = "SIGSEGV in run()";
  crashed.baseline.reset();
  crashed.optimized.reset();
  PairResult unverified = passed_pair("wrong", 1, 0.25);
  unverified.verification.passed = false;
  unverified.verification.checks = {{"within_tolerance", false, "3 elements differ"}};
  const RunComparison comparison = compare(before, run_of("r2", {crashed, unverified}));
  EXPECT_EQ(comparison.targets[0].verdict, ChangeVerdict::failed);
  EXPECT_NE(comparison.targets[0].detail.find("crashed: SIGSEGV in run()"), std::string::npos)
      << comparison.targets[0].detail;
  EXPECT_EQ(comparison.targets[1].verdict, ChangeVerdict::failed);
  EXPECT_NE(comparison.targets[1].detail.find("within_tolerance"), std::string::npos);
  EXPECT_FALSE(comparison.targets[1].candidate_run_speedup.has_value());  // quarantined
  EXPECT_EQ(count_blocking_changes(comparison), 2u);

  // Failing in the baseline run only is not a regression of the candidate.
  const RunComparison fixed = compare(run_of("r2", {crashed}), run_of("r3", {before.pairs[0]}));
  EXPECT_EQ(fixed.targets[0].verdict, ChangeVerdict::not_comparable);
  EXPECT_EQ(count_blocking_changes(fixed), 0u);
}

TEST(RunComparison, SkippedInTheCandidateRunIsListedAsSkipped) {
  PairResult skipped = passed_pair("gpu", 1, 0.5);
  skipped.status = PairStatus::skipped;
  skipped.reason = "needs a GPU";
  const RunComparison comparison =
      compare(run_of("r1", {passed_pair("gpu", 1, 0.5)}), run_of("r2", {skipped}));
  EXPECT_EQ(comparison.targets[0].verdict, ChangeVerdict::skipped);
  EXPECT_EQ(count_blocking_changes(comparison), 0u);
}

TEST(RunComparison, AChangedProblemIsNotComparable) {
  PairResult bigger = passed_pair("copy", 2, 0.5);
  bigger.signature = {{"n", "2097152"}};
  const TargetComparison target =
      compare(run_of("r1", {passed_pair("copy", 2, 0.5)}), run_of("r2", {bigger})).targets.at(0);
  EXPECT_EQ(target.verdict, ChangeVerdict::not_comparable);
  EXPECT_NE(target.detail.find("n=1048576"), std::string::npos) << target.detail;
  EXPECT_NE(target.detail.find("n=2097152"), std::string::npos) << target.detail;
}

TEST(RunComparison, TooFewSamplesAreNotComparable) {
  PairResult one_sample = passed_pair("copy", 2, 0.5);
  one_sample.optimized->event_ms = {0.5};
  const TargetComparison target =
      compare(run_of("r1", {passed_pair("copy", 2, 0.5)}), run_of("r2", {one_sample}))
          .targets.at(0);
  EXPECT_EQ(target.verdict, ChangeVerdict::not_comparable);
  EXPECT_NE(target.detail.find("at least 2"), std::string::npos) << target.detail;
}

// A pair whose optimized variant marks "first_token" at `first_token_ms` of its run.
PairResult marked_pair(double optimized_ms, double first_token_ms) {
  PairResult pair = passed_pair("decode", 4.0, optimized_ms);
  MarkMeasurement mark;
  mark.name = "first_token";
  mark.ms = samples_around(first_token_ms, 0.002);
  mark.stats.count = mark.ms.size();
  mark.stats.median = first_token_ms;
  pair.optimized->marks = {mark};
  return pair;
}

TEST(RunComparison, ASlowerFirstTokenIsARegressionEvenWhenTheRunIsNot) {
  const RunComparison comparison =
      compare(run_of("r1", {marked_pair(2.0, 0.5)}), run_of("r2", {marked_pair(2.0, 0.6)}));
  const TargetComparison& target = comparison.targets.at(0);
  EXPECT_EQ(target.optimized->verdict, ChangeVerdict::no_significant_change);
  ASSERT_EQ(target.optimized->marks.size(), 1u);
  const MarkChange& mark = target.optimized->marks[0];
  EXPECT_EQ(mark.name, "first_token");
  EXPECT_NEAR(mark.ratio, 1.2, 1e-9);
  EXPECT_GT(mark.ci_low, 1.0);
  EXPECT_EQ(mark.verdict, ChangeVerdict::regression);
  EXPECT_EQ(target.verdict, ChangeVerdict::regression);
  EXPECT_EQ(target.detail.rfind("mark first_token slower; ", 0), 0u) << target.detail;
  EXPECT_NE(target.detail.find("first_token +20.0% ["), std::string::npos) << target.detail;
  EXPECT_EQ(count_blocking_changes(comparison), 1u);

  const nlohmann::ordered_json json = comparison_to_json(comparison);
  EXPECT_EQ(json["targets"][0]["optimized"]["marks"][0]["verdict"], "regression");
  EXPECT_NE(render_comparison_csv(comparison).find("first_token +20.0% ["), std::string::npos);
  EXPECT_NE(render_comparison_text(comparison).find("first_token +20.0% ["), std::string::npos);
}

TEST(RunComparison, AFasterFirstTokenIsAnImprovementAndUnchangedMarksChangeNothing) {
  const TargetComparison faster =
      compare(run_of("r1", {marked_pair(2.0, 0.6)}), run_of("r2", {marked_pair(2.0, 0.5)}))
          .targets.at(0);
  EXPECT_EQ(faster.verdict, ChangeVerdict::improvement) << faster.detail;

  const TargetComparison same =
      compare(run_of("r1", {marked_pair(2.0, 0.5)}), run_of("r2", {marked_pair(2.0, 0.5)}))
          .targets.at(0);
  EXPECT_EQ(same.verdict, ChangeVerdict::no_significant_change) << same.detail;
  EXPECT_NE(same.detail.find("first_token 0.0% ["), std::string::npos) << same.detail;

  // A slower run with an unchanged first token stays a regression.
  const TargetComparison slower_run =
      compare(run_of("r1", {marked_pair(2.0, 0.5)}), run_of("r2", {marked_pair(2.4, 0.5)}))
          .targets.at(0);
  EXPECT_EQ(slower_run.verdict, ChangeVerdict::regression) << slower_run.detail;
}

TEST(RunComparison, AMarkInOneRunOnlyIsListed) {
  const TargetComparison target =
      compare(run_of("r1", {passed_pair("decode", 4.0, 2.0)}), run_of("r2", {marked_pair(2.0, 0.5)}))
          .targets.at(0);
  EXPECT_EQ(target.verdict, ChangeVerdict::no_significant_change);
  ASSERT_EQ(target.optimized->marks_missing.size(), 1u);
  EXPECT_EQ(target.optimized->marks_missing[0], "first_token (candidate run only)");
  EXPECT_NE(target.detail.find("first_token (candidate run only)"), std::string::npos)
      << target.detail;
}

TEST(RunComparison, DifferentHardwareIsAWarning) {
  const RunResults run = run_of("r1", {passed_pair("copy", 2, 0.5)});
  const RunComparison comparison =
      compare_runs(run, manifest_for("h200"), run, manifest_for("h100_sxm"), {});
  ASSERT_EQ(comparison.warnings.size(), 1u);
  EXPECT_NE(comparison.warnings[0].find("different hardware"), std::string::npos);
  EXPECT_EQ(comparison.baseline_hardware, "h200 (NVIDIA H200)");
}

TEST(RunComparison, RefusesBadSettings) {
  const RunResults run = run_of("r1", {});
  RunComparisonSettings settings;
  settings.threshold = -0.01;
  EXPECT_THROW(compare_runs(run, {}, run, {}, settings), std::invalid_argument);
  settings = {};
  settings.confidence = 1.0;
  EXPECT_THROW(compare_runs(run, {}, run, {}, settings), std::invalid_argument);
}

TEST(RunComparison, PrintersShowEveryTarget) {
  const RunResults before =
      run_of("r1", {passed_pair("copy", 2.0, 0.5), passed_pair("old", 1, 0.5)});
  const RunResults after =
      run_of("r2", {passed_pair("copy", 2.0, 0.55), passed_pair("new", 1, 0.5)});
  const RunComparison comparison = compare(before, after);

  const std::string text = render_comparison_text(comparison);
  EXPECT_NE(text.find("Baseline run:  r1, h200 (NVIDIA H200), commit 0123456789ab"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("ch90:copy"), std::string::npos);
  EXPECT_NE(text.find("regression"), std::string::npos);
  EXPECT_NE(text.find("+10.0% ["), std::string::npos) << text;
  EXPECT_NE(text.find("500 µs → 550 µs"), std::string::npos) << text;
  EXPECT_NE(text.find("3 targets: 1 regression, 1 added, 1 removed."), std::string::npos) << text;

  const std::string markdown = render_comparison_markdown(comparison);
  EXPECT_NE(markdown.find("| ch90:copy | regression |"), std::string::npos) << markdown;

  const std::string csv = render_comparison_csv(comparison);
  EXPECT_EQ(csv.rfind("target,verdict,detail,optimized_variant,", 0), 0u);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 4);  // header and three targets
  EXPECT_NE(csv.find("\nch90:copy,regression,"), std::string::npos) << csv;

  const nlohmann::ordered_json json = comparison_to_json(comparison);
  EXPECT_EQ(json["counts"]["regression"], 1);
  EXPECT_EQ(json["blocking"], 1);
  EXPECT_EQ(json["targets"][0]["optimized"]["verdict"], "regression");
  EXPECT_DOUBLE_EQ(json["rule"]["threshold"].get<double>(), 0.02);
}

}  // namespace
}  // namespace aisp
