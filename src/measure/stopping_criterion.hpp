// When to stop sampling a variant. Like nvbench's "stdrel" criterion: take at least a minimum
// number of samples and a minimum of summed sample time, then stop once the relative noise
// (stddev / mean) is small enough or has stopped improving, or give up at a wall-time limit.
// It only sees numbers (no clocks), so tests drive it with synthetic sequences. Its settings are
// the run's (fixed_samples, min_samples, min_time_s, max_noise, max_time_s of
// MeasurementSettings, whose defaults docs/statistics.md states); the others it ignores.
#pragma once

#include <array>
#include <cstddef>
#include <string>

#include "core/measurement_settings.hpp"

namespace aisp {

class StoppingCriterion {
public:
  // Throws std::invalid_argument for settings no run can satisfy (negative counts or times,
  // a NaN, max_time_s <= 0).
  explicit StoppingCriterion(const MeasurementSettings& settings);

  // Records one sample's duration in seconds. O(1). Throws std::invalid_argument when it is
  // negative or not finite.
  void add(double sample_seconds);

  // Whether to stop now, `wall_elapsed_seconds` after sampling began (the caller's clock, so
  // tests can pass any value).
  bool should_stop(double wall_elapsed_seconds) const;

  // Whether the samples so far meet the target: the fixed count, or the noise rule (below
  // max_noise or plateaued) after the minimums. A stop at the time limit is not converged.
  bool converged() const;

  // Why sampling stops (or, while it goes on, where it stands), for the result's stop_reason:
  // "noise 0.31% <= 0.50% after 57 samples", "time limit 20 s reached at noise 2.10% after ...".
  std::string reason(double wall_elapsed_seconds) const;

  std::size_t count() const { return count_; }

  // stddev / mean of the samples so far (sample stddev, n - 1); 0 with fewer than two samples.
  double noise() const;

  // What progress displays show against the rule: the settings it stops by, the summed sample
  // time so far, and whether the minimums (samples and sample time) are met.
  const MeasurementSettings& settings() const { return settings_; }
  double summed_seconds() const { return summed_seconds_; }
  bool minimums_met() const;

private:
  // The noise has plateaued when, over this many consecutive additions after the minimums, it
  // moved by less than kPlateauRelativeChange of its mean: more samples would only shrink it
  // slowly, and the variant is as steady as this GPU makes it.
  static constexpr std::size_t kPlateauWindow = 20;
  static constexpr double kPlateauRelativeChange = 0.01;

  bool fixed() const { return settings_.fixed_samples > 0; }
  bool noise_below_target() const;
  bool noise_plateaued() const;
  bool time_limit_reached(double wall_elapsed_seconds) const;

  MeasurementSettings settings_;

  // Welford's running mean and sum of squared deviations: O(1) per sample and, unlike a raw
  // sum of squares, accurate when samples agree to many digits.
  std::size_t count_ = 0;
  double mean_ = 0.0;
  double squared_deviations_ = 0.0;
  double summed_seconds_ = 0.0;

  // The last kPlateauWindow noise values recorded after the minimums were met (a ring).
  std::array<double, kPlateauWindow> noise_window_{};
  std::size_t noise_recorded_ = 0;
};

}  // namespace aisp
