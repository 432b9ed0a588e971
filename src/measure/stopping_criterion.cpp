#include "measure/stopping_criterion.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace aisp {
namespace {

// A standard deviation needs two samples; with one the noise reads 0 and would "converge" at
// once. So the adaptive rule, time limit included, never stops with fewer than this.
constexpr std::size_t kFewestAdaptiveSamples = 2;

std::string percent(double fraction) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f%%", fraction * 100.0);
  return text;
}

std::string seconds(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g s", value);
  return text;
}

void require(bool holds, const std::string& what) {
  if (!holds) {
    throw std::invalid_argument("StoppingCriterion: " + what);
  }
}

}  // namespace

StoppingCriterion::StoppingCriterion(const MeasurementSettings& settings) : settings_(settings) {
  require(settings_.fixed_samples >= 0,
          "fixed_samples = " + std::to_string(settings_.fixed_samples) +
              " is negative; use 0 for adaptive sampling");
  require(settings_.min_samples >= 0,
          "min_samples = " + std::to_string(settings_.min_samples) + " is negative");
  // isfinite first: a NaN would pass none of the comparisons and silently disable a rule.
  require(std::isfinite(settings_.min_time_s) && settings_.min_time_s >= 0,
          "min_time_s = " + std::to_string(settings_.min_time_s) + " must be finite and >= 0");
  require(std::isfinite(settings_.max_noise) && settings_.max_noise >= 0,
          "max_noise = " + std::to_string(settings_.max_noise) +
              " must be a finite fraction >= 0 (0.005 means 0.5%)");
  require(std::isfinite(settings_.max_time_s) && settings_.max_time_s > 0,
          "max_time_s = " + std::to_string(settings_.max_time_s) + " must be finite and > 0");
}

void StoppingCriterion::add(double sample_seconds) {
  if (!std::isfinite(sample_seconds) || sample_seconds < 0) {
    throw std::invalid_argument("StoppingCriterion::add: sample " + std::to_string(count_) +
                                " lasted " + std::to_string(sample_seconds) +
                                " s; a sample time must be finite and >= 0");
  }
  ++count_;
  summed_seconds_ += sample_seconds;
  const double delta = sample_seconds - mean_;
  mean_ += delta / static_cast<double>(count_);
  squared_deviations_ += delta * (sample_seconds - mean_);

  if (!fixed() && minimums_met()) {
    noise_window_[noise_recorded_ % kPlateauWindow] = noise();
    ++noise_recorded_;
  }
}

double StoppingCriterion::noise() const {
  if (count_ < 2 || mean_ == 0) {
    return 0.0;
  }
  const double stddev = std::sqrt(squared_deviations_ / static_cast<double>(count_ - 1));
  return stddev / std::abs(mean_);
}

bool StoppingCriterion::minimums_met() const {
  const auto min_samples =
      std::max(static_cast<std::size_t>(settings_.min_samples), kFewestAdaptiveSamples);
  return count_ >= min_samples && summed_seconds_ >= settings_.min_time_s;
}

bool StoppingCriterion::noise_below_target() const {
  return minimums_met() && noise() <= settings_.max_noise;
}

bool StoppingCriterion::noise_plateaued() const {
  if (!minimums_met() || noise_recorded_ < kPlateauWindow) {
    return false;
  }
  const auto [lowest, highest] = std::minmax_element(noise_window_.begin(), noise_window_.end());
  double sum = 0.0;
  for (const double value : noise_window_) {
    sum += value;
  }
  const double window_mean = sum / static_cast<double>(kPlateauWindow);
  if (window_mean == 0) {
    return true;  // all zero: nothing left to improve
  }
  return (*highest - *lowest) / window_mean < kPlateauRelativeChange;
}

bool StoppingCriterion::time_limit_reached(double wall_elapsed_seconds) const {
  // Checked before the minimums are met on purpose: a variant whose samples take seconds each
  // must not run past the limit to collect them; it stops unconverged and says so.
  return count_ >= kFewestAdaptiveSamples && wall_elapsed_seconds >= settings_.max_time_s;
}

bool StoppingCriterion::converged() const {
  if (fixed()) {
    return count_ >= static_cast<std::size_t>(settings_.fixed_samples);
  }
  return noise_below_target() || noise_plateaued();
}

bool StoppingCriterion::should_stop(double wall_elapsed_seconds) const {
  if (fixed()) {
    return converged();
  }
  return converged() || time_limit_reached(wall_elapsed_seconds);
}

std::string StoppingCriterion::reason(double wall_elapsed_seconds) const {
  const std::string after = " after " + std::to_string(count_) + " samples";
  if (fixed()) {
    const std::string target = std::to_string(settings_.fixed_samples);
    return converged() ? "fixed " + target + " samples"
                       : "sampling: " + std::to_string(count_) + " of " + target + " fixed samples";
  }
  if (noise_below_target()) {
    return "noise " + percent(noise()) + " <= " + percent(settings_.max_noise) + after;
  }
  if (noise_plateaued()) {
    return "noise plateaued at " + percent(noise()) + after;
  }
  if (time_limit_reached(wall_elapsed_seconds)) {
    std::string text = "time limit " + seconds(settings_.max_time_s) + " reached at noise " +
                       percent(noise()) + after;
    if (!minimums_met()) {
      text += " (before the minimum of " + std::to_string(settings_.min_samples) + " samples and " +
              seconds(settings_.min_time_s) + " of sample time)";
    }
    return text;
  }
  return "sampling: noise " + percent(noise()) + after;
}

}  // namespace aisp
