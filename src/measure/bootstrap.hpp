// The speedup of an optimized variant over its baseline, with a percentile-bootstrap confidence
// interval: a speedup is claimed only when the whole interval lies above 1.
// docs/statistics.md states the method and the verdict rule.
#pragma once

#include <cstdint>
#include <vector>

#include "aisp/result.hpp"

namespace aisp {

// value = median(baseline_ms) / median(optimized_ms). The interval resamples each vector with
// replacement, independently, `resamples` times (std::mt19937_64 seeded with `seed`, so the same
// inputs and seed give the same interval everywhere) and takes the (1 - confidence) / 2 and
// (1 + confidence) / 2 quantiles of the resampled ratios of medians.
// verdict: "faster" when ci_low > 1, "slower" when ci_high < 1, else "no significant difference".
// Throws std::invalid_argument when a vector has fewer than two samples (one sample shows no
// spread, so its interval would be a single point), holds a sample that is not a finite positive
// time, or when confidence is not in (0, 1) or resamples < 1.
Speedup bootstrap_speedup(const std::vector<double>& baseline_ms,
                          const std::vector<double>& optimized_ms, double confidence, int resamples,
                          std::uint64_t seed);

}  // namespace aisp
