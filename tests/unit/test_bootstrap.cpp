// The bootstrap speedup on synthetic samples from a seeded generator. Uniform noise is built
// from raw mt19937_64 bits (not a std:: distribution) so the inputs are the same everywhere.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

#include "measure/bootstrap.hpp"

namespace aisp {
namespace {

constexpr double kConfidence = 0.95;
constexpr int kResamples = 2000;
constexpr std::uint64_t kSeed = 20261121;

// `count` samples of center +- spread (uniform).
std::vector<double> noisy(double center, double spread, int count, std::uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::vector<double> samples(static_cast<std::size_t>(count));
  for (double& sample : samples) {
    const double unit = static_cast<double>(engine() >> 11) * 0x1.0p-53;  // [0, 1)
    sample = center + spread * (2.0 * unit - 1.0);
  }
  return samples;
}

TEST(BootstrapSpeedup, SameDistributionIsNoSignificantDifference) {
  const std::vector<double> baseline = noisy(1.0, 0.05, 500, 1);
  const std::vector<double> optimized = noisy(1.0, 0.05, 500, 2);
  const Speedup speedup = bootstrap_speedup(baseline, optimized, kConfidence, kResamples, kSeed);
  EXPECT_NEAR(speedup.value, 1.0, 0.02);
  EXPECT_LT(speedup.ci_low, 1.0);
  EXPECT_GT(speedup.ci_high, 1.0);
  EXPECT_EQ(speedup.verdict, "no significant difference");
  EXPECT_EQ(speedup.confidence, kConfidence);
  EXPECT_EQ(speedup.resamples, kResamples);
}

TEST(BootstrapSpeedup, IdenticalSamplesAreNoSignificantDifference) {
  const std::vector<double> samples = noisy(3.0, 0.3, 200, 7);
  const Speedup speedup = bootstrap_speedup(samples, samples, kConfidence, kResamples, kSeed);
  EXPECT_EQ(speedup.value, 1.0);
  EXPECT_LT(speedup.ci_low, 1.0);
  EXPECT_GT(speedup.ci_high, 1.0);
  EXPECT_EQ(speedup.verdict, "no significant difference");
}

TEST(BootstrapSpeedup, ClearlyFasterIsFaster) {
  const std::vector<double> baseline = noisy(2.0, 0.02, 300, 3);
  const std::vector<double> optimized = noisy(1.0, 0.01, 300, 4);
  const Speedup speedup = bootstrap_speedup(baseline, optimized, kConfidence, kResamples, kSeed);
  EXPECT_NEAR(speedup.value, 2.0, 0.05);
  EXPECT_GT(speedup.ci_low, 1.9);
  EXPECT_LT(speedup.ci_high, 2.1);
  EXPECT_LE(speedup.ci_low, speedup.value);
  EXPECT_GE(speedup.ci_high, speedup.value);
  EXPECT_EQ(speedup.verdict, "faster");
}

TEST(BootstrapSpeedup, ClearlySlowerIsSlower) {
  const std::vector<double> baseline = noisy(1.0, 0.01, 300, 5);
  const std::vector<double> optimized = noisy(2.0, 0.02, 300, 6);
  const Speedup speedup = bootstrap_speedup(baseline, optimized, kConfidence, kResamples, kSeed);
  EXPECT_NEAR(speedup.value, 0.5, 0.02);
  EXPECT_LT(speedup.ci_high, 1.0);
  EXPECT_EQ(speedup.verdict, "slower");
}

TEST(BootstrapSpeedup, TwoSamplesGiveTheExactResampledMedians) {
  // Resamples of {1, 3} have median 1, 2 or 3 (probabilities 1/4, 1/2, 1/4); the optimized
  // median is always 1. So the 95% interval runs from 1 to 3 and does not claim a speedup.
  const Speedup speedup = bootstrap_speedup({1.0, 3.0}, {1.0, 1.0}, kConfidence, kResamples, kSeed);
  EXPECT_EQ(speedup.value, 2.0);
  EXPECT_EQ(speedup.ci_low, 1.0);
  EXPECT_EQ(speedup.ci_high, 3.0);
  EXPECT_EQ(speedup.verdict, "no significant difference");
}

TEST(BootstrapSpeedup, WiderConfidenceGivesAWiderInterval) {
  const std::vector<double> baseline = noisy(1.2, 0.2, 100, 8);
  const std::vector<double> optimized = noisy(1.0, 0.2, 100, 9);
  const Speedup narrow = bootstrap_speedup(baseline, optimized, 0.5, kResamples, kSeed);
  const Speedup wide = bootstrap_speedup(baseline, optimized, 0.99, kResamples, kSeed);
  EXPECT_LT(wide.ci_low, narrow.ci_low);
  EXPECT_GT(wide.ci_high, narrow.ci_high);
}

TEST(BootstrapSpeedup, SameSeedSameInterval) {
  const std::vector<double> baseline = noisy(1.1, 0.1, 400, 10);
  const std::vector<double> optimized = noisy(1.0, 0.1, 400, 11);
  const Speedup first = bootstrap_speedup(baseline, optimized, kConfidence, kResamples, kSeed);
  const Speedup second = bootstrap_speedup(baseline, optimized, kConfidence, kResamples, kSeed);
  EXPECT_EQ(first.value, second.value);
  EXPECT_EQ(first.ci_low, second.ci_low);
  EXPECT_EQ(first.ci_high, second.ci_high);
  EXPECT_EQ(first.verdict, second.verdict);

  const Speedup other = bootstrap_speedup(baseline, optimized, kConfidence, kResamples, kSeed + 1);
  EXPECT_EQ(other.value, first.value);  // the point estimate does not depend on the seed
  EXPECT_TRUE(other.ci_low != first.ci_low || other.ci_high != first.ci_high);
}

TEST(BootstrapSpeedup, RejectsInvalidInput) {
  const std::vector<double> good = {1.0, 1.1, 0.9};
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(bootstrap_speedup({}, good, kConfidence, kResamples, kSeed), std::invalid_argument);
  EXPECT_THROW(bootstrap_speedup(good, {}, kConfidence, kResamples, kSeed), std::invalid_argument);
  EXPECT_THROW(bootstrap_speedup({1.0}, good, kConfidence, kResamples, kSeed),
               std::invalid_argument);
  EXPECT_THROW(bootstrap_speedup(good, {1.0, nan}, kConfidence, kResamples, kSeed),
               std::invalid_argument);
  EXPECT_THROW(bootstrap_speedup(good, {1.0, 0.0}, kConfidence, kResamples, kSeed),
               std::invalid_argument);
  EXPECT_THROW(bootstrap_speedup(good, good, 0.0, kResamples, kSeed), std::invalid_argument);
  EXPECT_THROW(bootstrap_speedup(good, good, 1.0, kResamples, kSeed), std::invalid_argument);
  EXPECT_THROW(bootstrap_speedup(good, good, nan, kResamples, kSeed), std::invalid_argument);
  EXPECT_THROW(bootstrap_speedup(good, good, kConfidence, 0, kSeed), std::invalid_argument);
}

}  // namespace
}  // namespace aisp
