// Descriptive statistics of a variant's samples: the numbers a result reports (median, mean,
// trimmed mean, percentiles, noise). Definitions follow numpy's defaults so a reader can
// reproduce any figure from the raw samples; docs/statistics.md states them.
#pragma once

#include <vector>

#include "aisp/result.hpp"

namespace aisp {

// Every field of SampleStats for `samples` (any unit; the harness passes milliseconds).
// Throws std::invalid_argument when `samples` is empty or holds a NaN or infinity.
SampleStats summarize(const std::vector<double>& samples);

// The q-quantile (q in [0, 1]) of ascending `sorted` values, interpolating linearly between the
// closest ranks: numpy.percentile's default ("linear"). Throws std::invalid_argument when
// `sorted` is empty or not ascending, or q is outside [0, 1].
double percentile(const std::vector<double>& sorted, double q);

// The median (mean of the two middle values for an even count). Throws std::invalid_argument
// when `samples` is empty or holds a NaN or infinity.
double median(std::vector<double> samples);

}  // namespace aisp
