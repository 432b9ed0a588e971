#include "measure/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numeric>
#include <stdexcept>
#include <string>

namespace aisp {
namespace {

// Scales the median absolute deviation to the standard deviation of a normal distribution,
// so robust_noise and relative_noise agree on clean data and differ only where outliers are.
constexpr double kMadToStddev = 1.4826;

// The trimmed mean cuts floor(n / 10) samples (10%) from each end: enough to drop the occasional
// preempted or clock-ramping sample without throwing away the shape of the distribution. Integer
// division, because 0.1 * n in floating point can land just below a whole number.
constexpr std::size_t kTrimDivisor = 10;

void require_finite(const std::vector<double>& samples, const char* who) {
  if (samples.empty()) {
    throw std::invalid_argument(std::string(who) + ": no samples; need at least one");
  }
  for (std::size_t i = 0; i < samples.size(); ++i) {
    if (!std::isfinite(samples[i])) {
      throw std::invalid_argument(std::string(who) + ": sample " + std::to_string(i) + " of " +
                                  std::to_string(samples.size()) + " is " +
                                  (std::isnan(samples[i]) ? "NaN" : "infinite") +
                                  "; every sample must be a finite number");
    }
  }
}

// Noise as a fraction of the typical value. Times are positive, but a zero or negative center
// (synthetic data, differences) must not produce a negative or infinite noise figure.
double relative_to(double spread, double center) {
  return center == 0 ? 0.0 : spread / std::abs(center);
}

// The median of `values`, reordering them in place; callers have checked they are non-empty and
// finite.
double median_in_place(std::vector<double>& values) {
  const std::size_t middle = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(middle),
                   values.end());
  const double upper = values[middle];
  if (values.size() % 2 == 1) {
    return upper;
  }
  // nth_element leaves everything below `middle` no greater than it, so the other middle value
  // is the largest of that part.
  const double lower =
      *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(middle));
  return std::lerp(lower, upper, 0.5);
}

}  // namespace

double percentile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) {
    throw std::invalid_argument("percentile: no values; need at least one");
  }
  if (!(q >= 0.0 && q <= 1.0)) {  // also rejects NaN
    throw std::invalid_argument("percentile: q = " + std::to_string(q) +
                                " is outside [0, 1]; pass a fraction, e.g. 0.95 for p95");
  }
  if (!std::is_sorted(sorted.begin(), sorted.end())) {
    throw std::invalid_argument("percentile: values are not sorted ascending; sort them first");
  }
  // numpy "linear": the quantile sits at fractional rank (n - 1) * q.
  const double rank = static_cast<double>(sorted.size() - 1) * q;
  const auto lower = static_cast<std::size_t>(std::floor(rank));
  const std::size_t upper = std::min(lower + 1, sorted.size() - 1);
  // std::lerp is exact at both ends and monotonic, so p0/p100 return min/max exactly.
  return std::lerp(sorted[lower], sorted[upper], rank - static_cast<double>(lower));
}

double median(std::vector<double> samples) {
  require_finite(samples, "median");
  return median_in_place(samples);
}

SampleStats summarize(const std::vector<double>& samples) {
  require_finite(samples, "summarize");

  std::vector<double> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();

  SampleStats stats;
  stats.count = n;
  stats.min = sorted.front();
  stats.max = sorted.back();
  stats.median = percentile(sorted, 0.50);
  stats.p05 = percentile(sorted, 0.05);
  stats.p25 = percentile(sorted, 0.25);
  stats.p75 = percentile(sorted, 0.75);
  stats.p95 = percentile(sorted, 0.95);
  stats.p99 = percentile(sorted, 0.99);

  stats.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(n);

  const std::size_t cut = n / kTrimDivisor;
  const auto kept_begin = sorted.begin() + static_cast<std::ptrdiff_t>(cut);
  const auto kept_end = sorted.end() - static_cast<std::ptrdiff_t>(cut);
  stats.trimmed_mean =
      std::accumulate(kept_begin, kept_end, 0.0) / static_cast<double>(n - 2 * cut);

  // Two passes (mean first, then squared deviations) rather than a running sum of squares: the
  // samples of one kernel agree to many digits, where sum(x^2) - n*mean^2 cancels badly.
  if (n > 1) {
    double squared_deviations = 0.0;
    for (const double x : sorted) {
      squared_deviations += (x - stats.mean) * (x - stats.mean);
    }
    stats.stddev = std::sqrt(squared_deviations / static_cast<double>(n - 1));
  }
  stats.relative_noise = relative_to(stats.stddev, stats.mean);

  std::vector<double> deviations(n);
  std::transform(sorted.begin(), sorted.end(), deviations.begin(),
                 [&](double x) { return std::abs(x - stats.median); });
  stats.robust_noise = relative_to(kMadToStddev * median_in_place(deviations), stats.median);

  return stats;
}

}  // namespace aisp
