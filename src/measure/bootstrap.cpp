#include "measure/bootstrap.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>

#include "measure/statistics.hpp"

namespace aisp {
namespace {

void require_times(const std::vector<double>& samples, const char* which) {
  if (samples.size() < 2) {
    throw std::invalid_argument(std::string("bootstrap_speedup: ") + which + " has " +
                                std::to_string(samples.size()) +
                                " sample(s); an interval needs at least 2 per variant");
  }
  if (samples.size() > std::numeric_limits<std::uint32_t>::max()) {
    throw std::invalid_argument(std::string("bootstrap_speedup: ") + which + " has " +
                                std::to_string(samples.size()) + " samples; at most 2^32 - 1");
  }
  for (std::size_t i = 0; i < samples.size(); ++i) {
    if (!std::isfinite(samples[i]) || samples[i] <= 0) {
      throw std::invalid_argument(std::string("bootstrap_speedup: ") + which + " sample " +
                                  std::to_string(i) + " is " + std::to_string(samples[i]) +
                                  " ms; times must be finite and > 0");
    }
  }
}

// A uniform index in [0, n) from one engine draw (Lemire's multiply-shift with rejection).
// Written out rather than std::uniform_int_distribution because that one's algorithm differs
// between standard libraries, and the interval must be reproducible from the seed anywhere.
std::uint32_t draw_index(std::mt19937_64& engine, std::uint32_t n) {
  std::uint64_t product = (engine() >> 32) * n;
  auto low = static_cast<std::uint32_t>(product);
  if (low < n) {
    // Products whose low half falls below (2^32 mod n) would make some indices more likely.
    const auto threshold = static_cast<std::uint32_t>((std::uint64_t{1} << 32) % n);
    while (low < threshold) {
      product = (engine() >> 32) * n;
      low = static_cast<std::uint32_t>(product);
    }
  }
  return static_cast<std::uint32_t>(product >> 32);
}

// The median of n draws with replacement from `sorted` (ascending), without materializing them.
// With the samples in ascending order, the value at index i never decreases as i grows, so the
// median of the drawn values is the value at the median of the drawn indices. A histogram of the
// indices (`counts`, reused) finds that in O(n) without comparing values; nth_element on the
// drawn values would cost several times more per resample.
double resampled_median(const std::vector<double>& sorted, std::vector<std::uint32_t>& counts,
                        std::mt19937_64& engine) {
  const auto n = static_cast<std::uint32_t>(sorted.size());
  std::fill(counts.begin(), counts.end(), 0u);
  for (std::uint32_t draw = 0; draw < n; ++draw) {
    ++counts[draw_index(engine, n)];
  }
  // The two middle ranks of the resample (equal for odd n), as numpy's median takes them.
  const std::uint64_t lower_rank = (n - 1) / 2;
  const std::uint64_t upper_rank = n / 2;
  std::uint64_t drawn_so_far = 0;
  double lower = 0.0;
  for (std::uint32_t index = 0;; ++index) {
    const std::uint64_t below = drawn_so_far;
    drawn_so_far += counts[index];
    if (below <= lower_rank && lower_rank < drawn_so_far) {
      lower = sorted[index];
    }
    if (upper_rank < drawn_so_far) {
      return n % 2 == 1 ? sorted[index] : std::lerp(lower, sorted[index], 0.5);
    }
  }
}

}  // namespace

Speedup bootstrap_speedup(const std::vector<double>& baseline_ms,
                          const std::vector<double>& optimized_ms, double confidence, int resamples,
                          std::uint64_t seed) {
  require_times(baseline_ms, "baseline");
  require_times(optimized_ms, "optimized");
  if (!(confidence > 0.0 && confidence < 1.0)) {  // also rejects NaN
    throw std::invalid_argument("bootstrap_speedup: confidence = " + std::to_string(confidence) +
                                " is outside (0, 1); e.g. 0.95 for a 95% interval");
  }
  if (resamples < 1) {
    throw std::invalid_argument("bootstrap_speedup: resamples = " + std::to_string(resamples) +
                                "; need at least 1 (2000 is typical)");
  }

  Speedup speedup;
  speedup.confidence = confidence;
  speedup.resamples = resamples;

  std::vector<double> baseline_sorted = baseline_ms;
  std::vector<double> optimized_sorted = optimized_ms;
  std::sort(baseline_sorted.begin(), baseline_sorted.end());
  std::sort(optimized_sorted.begin(), optimized_sorted.end());
  speedup.value = percentile(baseline_sorted, 0.5) / percentile(optimized_sorted, 0.5);

  // The histograms are reused by every resample: allocation would otherwise dominate.
  std::mt19937_64 engine(seed);
  std::vector<std::uint32_t> baseline_counts(baseline_sorted.size());
  std::vector<std::uint32_t> optimized_counts(optimized_sorted.size());
  std::vector<double> ratios(static_cast<std::size_t>(resamples));
  for (double& ratio : ratios) {
    const double baseline_median = resampled_median(baseline_sorted, baseline_counts, engine);
    const double optimized_median = resampled_median(optimized_sorted, optimized_counts, engine);
    ratio = baseline_median / optimized_median;
  }
  std::sort(ratios.begin(), ratios.end());
  speedup.ci_low = percentile(ratios, (1.0 - confidence) / 2.0);
  speedup.ci_high = percentile(ratios, (1.0 + confidence) / 2.0);

  if (speedup.ci_low > 1.0) {
    speedup.verdict = "faster";
  } else if (speedup.ci_high < 1.0) {
    speedup.verdict = "slower";
  } else {
    speedup.verdict = "no significant difference";
  }
  return speedup;
}

}  // namespace aisp
