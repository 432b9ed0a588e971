// Expected values are numpy's defaults (np.percentile "linear", np.std(ddof=1)) worked out by
// hand, so the definitions in docs/statistics.md are what the code does.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "measure/statistics.hpp"

namespace aisp {
namespace {

constexpr double kTight = 1e-12;

TEST(Summarize, FourValuesMatchNumpy) {
  const SampleStats stats = summarize({4, 1, 3, 2});  // unsorted on purpose
  EXPECT_EQ(stats.count, 4u);
  EXPECT_DOUBLE_EQ(stats.min, 1);
  EXPECT_DOUBLE_EQ(stats.max, 4);
  EXPECT_DOUBLE_EQ(stats.mean, 2.5);
  EXPECT_DOUBLE_EQ(stats.median, 2.5);
  EXPECT_DOUBLE_EQ(stats.trimmed_mean, 2.5);  // floor(0.4) = 0 cut from each end
  // np.percentile([1, 2, 3, 4], [5, 25, 75, 95, 99]): rank (n - 1) * q, interpolated.
  EXPECT_NEAR(stats.p05, 1.15, kTight);
  EXPECT_NEAR(stats.p25, 1.75, kTight);
  EXPECT_NEAR(stats.p75, 3.25, kTight);
  EXPECT_NEAR(stats.p95, 3.85, kTight);
  EXPECT_NEAR(stats.p99, 3.97, kTight);
  EXPECT_NEAR(stats.stddev, std::sqrt(5.0 / 3.0), kTight);  // squared deviations sum to 5
  EXPECT_NEAR(stats.relative_noise, std::sqrt(5.0 / 3.0) / 2.5, kTight);
  // |x - 2.5| = {1.5, 0.5, 0.5, 1.5}: MAD = 1.
  EXPECT_NEAR(stats.robust_noise, 1.4826 * 1.0 / 2.5, kTight);
}

TEST(Summarize, OutlierMovesMeanButNotTheRobustFigures) {
  const SampleStats stats = summarize({5, 1, 9, 3, 7, 2, 8, 4, 6, 10, 100});
  EXPECT_EQ(stats.count, 11u);
  EXPECT_DOUBLE_EQ(stats.median, 6);
  EXPECT_NEAR(stats.mean, 155.0 / 11.0, kTight);
  // floor(1.1) = 1 cut from each end: mean of 2..10.
  EXPECT_NEAR(stats.trimmed_mean, 6.0, kTight);
  EXPECT_NEAR(stats.p05, 1.5, kTight);   // rank 0.5
  EXPECT_NEAR(stats.p25, 3.5, kTight);   // rank 2.5
  EXPECT_NEAR(stats.p75, 8.5, kTight);   // rank 7.5
  EXPECT_NEAR(stats.p95, 55.0, kTight);  // rank 9.5: halfway from 10 to 100
  EXPECT_NEAR(stats.p99, 91.0, kTight);  // rank 9.9
  EXPECT_NEAR(stats.stddev, 28.637229424141385, 1e-9);
  EXPECT_NEAR(stats.relative_noise, 2.032319507519711, 1e-12);
  // |x - 6| sorted: 0 1 1 2 2 3 3 4 4 5 94: MAD = 3.
  EXPECT_NEAR(stats.robust_noise, 1.4826 * 3.0 / 6.0, kTight);
}

TEST(Summarize, TrimsTenPercentFromEachEnd) {
  std::vector<double> samples(20, 1.0);
  samples[0] = 1000;  // two at each end are cut when n = 20
  samples[1] = 900;
  samples[2] = -500;
  samples[3] = -400;
  const SampleStats stats = summarize(samples);
  EXPECT_DOUBLE_EQ(stats.trimmed_mean, 1.0);
}

TEST(Summarize, SingleSampleHasNoSpread) {
  const SampleStats stats = summarize({0.25});
  EXPECT_EQ(stats.count, 1u);
  for (const double value : {stats.median, stats.mean, stats.trimmed_mean, stats.min, stats.max,
                             stats.p05, stats.p25, stats.p75, stats.p95, stats.p99}) {
    EXPECT_DOUBLE_EQ(value, 0.25);
  }
  EXPECT_EQ(stats.stddev, 0);
  EXPECT_EQ(stats.relative_noise, 0);
  EXPECT_EQ(stats.robust_noise, 0);
}

TEST(Summarize, ZeroCenterGivesZeroNoiseNotInfinity) {
  const SampleStats stats = summarize({-1, 1});
  EXPECT_EQ(stats.mean, 0);
  EXPECT_EQ(stats.relative_noise, 0);
  EXPECT_EQ(stats.robust_noise, 0);
}

TEST(Summarize, RejectsEmptyAndNonFiniteInput) {
  EXPECT_THROW(summarize({}), std::invalid_argument);
  try {
    summarize({1, 2, std::numeric_limits<double>::quiet_NaN()});
    FAIL() << "NaN accepted";
  } catch (const std::invalid_argument& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("sample 2 of 3"), std::string::npos) << message;
    EXPECT_NE(message.find("NaN"), std::string::npos) << message;
  }
  EXPECT_THROW(summarize({1, std::numeric_limits<double>::infinity()}), std::invalid_argument);
}

TEST(Percentile, EndsAreMinAndMaxExactly) {
  const std::vector<double> sorted = {0.1, 0.2, 0.7};
  EXPECT_EQ(percentile(sorted, 0.0), 0.1);
  EXPECT_EQ(percentile(sorted, 1.0), 0.7);
  EXPECT_EQ(percentile(sorted, 0.5), 0.2);
  EXPECT_NEAR(percentile(sorted, 0.75), 0.45, kTight);
}

TEST(Percentile, RejectsBadInput) {
  EXPECT_THROW(percentile({}, 0.5), std::invalid_argument);
  EXPECT_THROW(percentile({1, 2}, -0.01), std::invalid_argument);
  EXPECT_THROW(percentile({1, 2}, 1.01), std::invalid_argument);
  EXPECT_THROW(percentile({1, 2}, std::numeric_limits<double>::quiet_NaN()), std::invalid_argument);
  EXPECT_THROW(percentile({2, 1}, 0.5), std::invalid_argument);  // not sorted
}

TEST(Median, OddAndEvenCounts) {
  EXPECT_EQ(median({3, 1, 2}), 2);
  EXPECT_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_EQ(median({7}), 7);
  EXPECT_EQ(median({5, 5, 1, 9}), 5);
}

TEST(Median, RejectsEmptyAndNaN) {
  EXPECT_THROW(median({}), std::invalid_argument);
  EXPECT_THROW(median({1, std::numeric_limits<double>::quiet_NaN()}), std::invalid_argument);
}

TEST(Median, AgreesWithPercentile) {
  const std::vector<double> values = {9, 2, 7, 4, 4, 8, 1, 6};
  std::vector<double> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(median(values), percentile(sorted, 0.5));
}

}  // namespace
}  // namespace aisp
