#include "policy/run_comparison.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

#include "measure/bootstrap.hpp"
#include "measure/statistics.hpp"
#include "results/result_text.hpp"
#include "results/run_input.hpp"

namespace aisp {
namespace {

using result_text::kAbsent;

bool passed_verified(const PairResult& pair) {
  return pair.status == PairStatus::passed && pair.verification.passed;
}

bool is_failure(PairStatus status) {
  return status == PairStatus::failed || status == PairStatus::timed_out ||
         status == PairStatus::crashed || status == PairStatus::quarantined;
}

// "crashed: SIGSEGV ..." or "outputs did not verify: failed: within_tolerance", on one line.
std::string outcome(const PairResult& pair) {
  if (pair.status == PairStatus::passed && !pair.verification.passed) {
    return "outputs did not verify (" + result_text::format_verification(pair.verification) + ")";
  }
  return result_text::single_line(result_text::describe_outcome(pair, true), 200);
}

std::string signature_text(const PairResult& pair) {
  std::string text;
  for (const auto& [name, value] : pair.signature) {
    text += (text.empty() ? "" : " ") + name + "=" + value;
  }
  return text.empty() ? "(none)" : text;
}

// "+10.3%": a time ratio as the change of time it means.
std::string percent_change(double ratio) {
  if (!std::isfinite(ratio)) {
    return std::string(kAbsent);
  }
  const double percent = (ratio - 1.0) * 100.0;
  if (std::fabs(percent) < 0.05) {
    return "0.0%";
  }
  return fmt::format("{:+.1f}%", percent);
}

// "+10.3% [+9.9%, +10.8%]"
std::string interval_text(double ratio, double ci_low, double ci_high) {
  return fmt::format("{} [{}, {}]", percent_change(ratio), percent_change(ci_low),
                     percent_change(ci_high));
}

const std::vector<double>& compared_samples(const VariantMeasurement& measurement) {
  return measurement.method == TimingMethod::host_clock ? measurement.host_ms
                                                        : measurement.event_ms;
}

const char* samples_name(const VariantMeasurement& measurement) {
  return measurement.method == TimingMethod::host_clock ? "host_ms" : "event_ms";
}

// Judges two stored series (`label`: "time" or "first_token") by the rule; `what` names the series
// in the reasons it was not compared.
void judge_change(const std::vector<double>& before_ms, const std::vector<double>& after_ms,
                  const std::string& what, const std::string& label,
                  const RunComparisonSettings& settings, TimeChange& change) {
  change.baseline_run_samples = before_ms.size();
  change.candidate_run_samples = after_ms.size();
  if (before_ms.size() < 2 || after_ms.size() < 2) {
    change.detail = fmt::format("{} has {} stored sample(s) in the baseline run and {} in the "
                                "candidate run; an interval needs at least 2 in each",
                                what, before_ms.size(), after_ms.size());
    return;
  }
  Speedup ratio;
  try {
    // bootstrap_speedup gives median(first) / median(second): candidate over baseline time.
    ratio = bootstrap_speedup(after_ms, before_ms, settings.confidence, settings.resamples,
                              settings.seed);
    change.baseline_run_median_ms = median(before_ms);
    change.candidate_run_median_ms = median(after_ms);
  } catch (const std::invalid_argument& error) {
    change.detail =
        fmt::format("{}: the stored samples cannot be compared: {}", what, error.what());
    return;
  }
  change.ratio = ratio.value;
  change.ci_low = ratio.ci_low;
  change.ci_high = ratio.ci_high;

  const double slower_limit = 1.0 + settings.threshold;
  const double faster_limit = 1.0 / (1.0 + settings.threshold);
  const std::string interval = interval_text(change.ratio, change.ci_low, change.ci_high);
  const std::string threshold = fmt::format("{:g}%", settings.threshold * 100);
  if (change.ci_low > 1.0 && change.ratio > slower_limit) {
    change.verdict = ChangeVerdict::regression;
    change.detail = fmt::format("slower: {} {}", label, interval);
  } else if (change.ci_high < 1.0 && change.ratio < faster_limit) {
    change.verdict = ChangeVerdict::improvement;
    change.detail = fmt::format("faster: {} {}", label, interval);
  } else {
    change.verdict = ChangeVerdict::no_significant_change;
    if (change.ci_low > 1.0 || change.ci_high < 1.0) {
      change.detail = fmt::format("{} {}: the interval excludes no change, but the change is "
                                  "within the {} threshold",
                                  label, interval, threshold);
    } else {
      change.detail = fmt::format("{} {}: the interval includes no change", label, interval);
    }
  }
}

const MarkMeasurement* find_mark(const VariantMeasurement& measurement, const std::string& name) {
  const auto found =
      std::find_if(measurement.marks.begin(), measurement.marks.end(),
                   [&name](const MarkMeasurement& mark) { return mark.name == name; });
  return found == measurement.marks.end() ? nullptr : &*found;
}

// Each mark of either run: compared where both runs have it, listed as missing otherwise.
void compare_marks(const VariantMeasurement& before, const VariantMeasurement& after,
                   const RunComparisonSettings& settings, VariantChange& change) {
  for (const MarkMeasurement& mark : after.marks) {
    const MarkMeasurement* earlier = find_mark(before, mark.name);
    if (earlier == nullptr) {
      change.marks_missing.push_back(mark.name + " (candidate run only)");
      continue;
    }
    MarkChange mark_change;
    mark_change.name = mark.name;
    judge_change(earlier->ms, mark.ms, fmt::format("mark {} of {}", mark.name, after.variant),
                 mark.name, settings, mark_change);
    change.marks.push_back(std::move(mark_change));
  }
  for (const MarkMeasurement& mark : before.marks) {
    if (find_mark(after, mark.name) == nullptr) {
      change.marks_missing.push_back(mark.name + " (baseline run only)");
    }
  }
}

VariantChange compare_variant(const VariantMeasurement& before, const VariantMeasurement& after,
                              const RunComparisonSettings& settings) {
  VariantChange change;
  change.variant = after.variant;
  change.samples = samples_name(after);
  const std::vector<double>& before_ms = compared_samples(before);
  const std::vector<double>& after_ms = compared_samples(after);
  change.baseline_run_samples = before_ms.size();
  change.candidate_run_samples = after_ms.size();
  if (change.samples != samples_name(before)) {
    change.detail = fmt::format("{} was timed by {} in the baseline run and by {} in the candidate "
                                "run; host and device times are not comparable",
                                after.variant, timing_method_name(before.method),
                                timing_method_name(after.method));
    return change;
  }
  judge_change(before_ms, after_ms, fmt::format("{} ({})", after.variant, change.samples), "time",
               settings, change);
  compare_marks(before, after, settings, change);
  return change;
}

// The optimized variant's marks move the target's verdict: a slower first token is a regression
// even when the whole run did not slow down.
void apply_mark_verdicts(TargetComparison& comparison) {
  const VariantChange& optimized = *comparison.optimized;
  if (optimized.marks.empty() && optimized.marks_missing.empty()) {
    return;
  }
  const auto marks_with = [&optimized](ChangeVerdict verdict) {
    std::string names;
    for (const MarkChange& mark : optimized.marks) {
      if (mark.verdict == verdict) {
        names += (names.empty() ? "" : ", ") + mark.name;
      }
    }
    return names;
  };
  const std::string slower = marks_with(ChangeVerdict::regression);
  const std::string faster = marks_with(ChangeVerdict::improvement);
  if (comparison.verdict == ChangeVerdict::no_significant_change ||
      comparison.verdict == ChangeVerdict::improvement) {
    if (!slower.empty()) {
      comparison.verdict = ChangeVerdict::regression;
      comparison.detail = fmt::format("mark {} slower; {}", slower, comparison.detail);
    } else if (!faster.empty() && comparison.verdict == ChangeVerdict::no_significant_change) {
      comparison.verdict = ChangeVerdict::improvement;
      comparison.detail = fmt::format("mark {} faster; {}", faster, comparison.detail);
    }
  }
  comparison.detail +=
      fmt::format("; marks of {}: {}", optimized.variant, format_mark_changes(optimized));
}

TargetComparison compare_target(const PairResult& before, const PairResult& after,
                                const RunComparisonSettings& settings) {
  TargetComparison comparison;
  comparison.target = after.target;
  if (result_text::shows_speedup(before)) {
    comparison.baseline_run_speedup = before.speedup;
  }
  if (result_text::shows_speedup(after)) {
    comparison.candidate_run_speedup = after.speedup;
  }

  if (is_failure(after.status) || (after.status == PairStatus::passed && !passed_verified(after))) {
    comparison.verdict = ChangeVerdict::failed;
    comparison.detail = "candidate run: " + outcome(after);
    if (!passed_verified(before)) {
      comparison.detail += "; baseline run: " + outcome(before);
    }
    return comparison;
  }
  if (after.status != PairStatus::passed) {
    comparison.verdict = ChangeVerdict::skipped;
    comparison.detail = "candidate run: " + outcome(after);
    return comparison;
  }
  comparison.verdict = ChangeVerdict::not_comparable;
  if (!passed_verified(before)) {
    comparison.detail = "baseline run: " + outcome(before) +
                        "; it passes in the candidate run, with nothing to "
                        "compare its times with";
    return comparison;
  }
  if (before.signature != after.signature) {
    comparison.detail = fmt::format("the problem changed: signature {} in the baseline run, {} in "
                                    "the candidate run",
                                    signature_text(before), signature_text(after));
    return comparison;
  }
  if (!before.optimized || !after.optimized || !before.baseline || !after.baseline) {
    comparison.detail =
        fmt::format("not timed in the {} run (a `bench verify` run?)",
                    !before.optimized || !before.baseline ? "baseline" : "candidate");
    return comparison;
  }

  comparison.optimized = compare_variant(*before.optimized, *after.optimized, settings);
  comparison.baseline = compare_variant(*before.baseline, *after.baseline, settings);
  comparison.verdict = comparison.optimized->verdict;
  comparison.detail = comparison.optimized->detail;
  apply_mark_verdicts(comparison);
  if (comparison.optimized->verdict == ChangeVerdict::regression &&
      comparison.baseline->verdict == ChangeVerdict::regression) {
    comparison.detail += fmt::format("; the baseline variant is slower too ({}): look at the "
                                     "machine (clocks, load, driver) before the code",
                                     percent_change(comparison.baseline->ratio));
  }
  if (before.bytes != after.bytes || before.flops != after.flops) {
    comparison.detail += fmt::format("; note: the declared workload changed (bytes {:g} -> {:g}, "
                                     "FLOPs {:g} -> {:g})",
                                     before.bytes, after.bytes, before.flops, after.flops);
  }
  return comparison;
}

std::string hardware_label(const nlohmann::json& manifest) {
  const std::string key = manifest_hardware_key(manifest);
  const std::string gpu = manifest_gpu_name(manifest);
  if (key.empty()) {
    return gpu;
  }
  return gpu.empty() ? key : fmt::format("{} ({})", key, gpu);
}

}  // namespace

std::string_view change_verdict_name(ChangeVerdict verdict) {
  switch (verdict) {
  case ChangeVerdict::regression:
    return "regression";
  case ChangeVerdict::improvement:
    return "improvement";
  case ChangeVerdict::no_significant_change:
    return "no significant change";
  case ChangeVerdict::failed:
    return "failed";
  case ChangeVerdict::skipped:
    return "skipped";
  case ChangeVerdict::not_comparable:
    return "not comparable";
  case ChangeVerdict::added:
    return "added";
  case ChangeVerdict::removed:
    return "removed";
  }
  return "unknown";
}

RunComparison compare_runs(const RunResults& baseline_run, const nlohmann::json& baseline_manifest,
                           const RunResults& candidate_run,
                           const nlohmann::json& candidate_manifest,
                           const RunComparisonSettings& settings) {
  if (!(settings.threshold >= 0 && settings.threshold < 10)) {
    throw std::invalid_argument(fmt::format("threshold {:g}% is outside [0%, 1000%); 2% is typical",
                                            settings.threshold * 100));
  }
  if (!(settings.confidence > 0 && settings.confidence < 1)) {
    throw std::invalid_argument(
        fmt::format("confidence {:g} is outside (0, 1); e.g. 0.95", settings.confidence));
  }
  if (settings.resamples < 100) {
    throw std::invalid_argument(
        fmt::format("{} resamples are too few for an interval; use 2000", settings.resamples));
  }

  RunComparison comparison;
  comparison.settings = settings;
  comparison.baseline_run_id = baseline_run.run_id;
  comparison.candidate_run_id = candidate_run.run_id;
  comparison.baseline_hardware = hardware_label(baseline_manifest);
  comparison.candidate_hardware = hardware_label(candidate_manifest);
  comparison.baseline_commit = manifest_git_commit(baseline_manifest);
  comparison.candidate_commit = manifest_git_commit(candidate_manifest);

  const std::string baseline_key = manifest_hardware_key(baseline_manifest);
  const std::string candidate_key = manifest_hardware_key(candidate_manifest);
  if (!baseline_key.empty() && !candidate_key.empty() && baseline_key != candidate_key) {
    comparison.warnings.push_back(fmt::format(
        "the runs are on different hardware (baseline run {}, candidate run {}): every change "
        "includes the hardware's",
        baseline_key, candidate_key));
  } else if (baseline_key.empty() || candidate_key.empty()) {
    comparison.warnings.push_back(
        fmt::format("the hardware of the {} run is unknown (no manifest.json): make sure both "
                    "ran on the same kind of machine",
                    baseline_key.empty() ? "baseline" : "candidate"));
  }
  if (!baseline_run.complete) {
    comparison.warnings.push_back(
        "the baseline run is incomplete (interrupted): targets it lacks are listed as added");
  }
  if (!candidate_run.complete) {
    comparison.warnings.push_back(
        "the candidate run is incomplete (interrupted): targets it lacks are listed as removed");
  }

  std::map<std::string, const PairResult*> candidate_by_target;
  for (const PairResult& pair : candidate_run.pairs) {
    candidate_by_target.emplace(pair.target, &pair);
  }
  std::map<std::string, bool> in_baseline_run;
  for (const PairResult& before : baseline_run.pairs) {
    if (!in_baseline_run.emplace(before.target, true).second) {
      continue;  // a target listed twice is compared once
    }
    const auto after = candidate_by_target.find(before.target);
    if (after == candidate_by_target.end()) {
      TargetComparison removed;
      removed.target = before.target;
      removed.verdict = ChangeVerdict::removed;
      removed.detail = "only in the baseline run";
      comparison.targets.push_back(std::move(removed));
      continue;
    }
    comparison.targets.push_back(compare_target(before, *after->second, settings));
  }
  for (const PairResult& after : candidate_run.pairs) {
    if (in_baseline_run.emplace(after.target, true).second) {
      TargetComparison added;
      added.target = after.target;
      added.verdict = ChangeVerdict::added;
      added.detail = "only in the candidate run";
      if (result_text::shows_speedup(after)) {
        added.candidate_run_speedup = after.speedup;
      }
      comparison.targets.push_back(std::move(added));
    }
  }
  return comparison;
}

std::string format_time_change(const TimeChange& change) {
  if (change.verdict == ChangeVerdict::not_comparable) {
    return std::string(kAbsent);
  }
  return interval_text(change.ratio, change.ci_low, change.ci_high);
}

std::string format_mark_changes(const VariantChange& change) {
  std::string text;
  for (const MarkChange& mark : change.marks) {
    text += text.empty() ? "" : ", ";
    text += mark.verdict == ChangeVerdict::not_comparable
                ? mark.name + " not comparable (" + mark.detail + ")"
                : fmt::format("{} {} {}", mark.name,
                              interval_text(mark.ratio, mark.ci_low, mark.ci_high),
                              change_verdict_name(mark.verdict));
  }
  for (const std::string& missing : change.marks_missing) {
    text += (text.empty() ? "" : ", ") + missing;
  }
  return text;
}

std::size_t count_blocking_changes(const RunComparison& comparison) {
  return static_cast<std::size_t>(
      std::count_if(comparison.targets.begin(), comparison.targets.end(), [](const auto& target) {
        return target.verdict == ChangeVerdict::regression ||
               target.verdict == ChangeVerdict::failed;
      }));
}

}  // namespace aisp
