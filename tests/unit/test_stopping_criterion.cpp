// The stopping rule, driven by synthetic sample sequences and synthetic wall times: nothing
// here reads a clock. Sample times are powers of two where sums must be exact.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/measurement_settings.hpp"
#include "measure/statistics.hpp"
#include "measure/stopping_criterion.hpp"

namespace aisp {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

MeasurementSettings adaptive(int min_samples, double min_time_s) {
  MeasurementSettings settings;
  settings.min_samples = min_samples;
  settings.min_time_s = min_time_s;
  return settings;
}

// The criterion reads the run's settings themselves: no copy of their defaults to drift apart.
TEST(StoppingCriterion, StopsByTheRunSettingsDefaults) {
  const MeasurementSettings defaults;
  StoppingCriterion criterion(defaults);
  // Constant samples: noise 0, so the minimums alone decide. 1 s each meets min_time at once.
  for (int i = 1; i < defaults.min_samples; ++i) {
    criterion.add(1.0);
    EXPECT_FALSE(criterion.should_stop(0.0)) << "after " << criterion.count();
  }
  criterion.add(1.0);
  EXPECT_TRUE(criterion.should_stop(0.0));
  EXPECT_TRUE(criterion.converged());
}

TEST(StoppingCriterion, ConstantSequenceStopsAtMinSamples) {
  // 0.125 s each: min_time (0.5 s) is met after 4 samples, min_samples after 10.
  StoppingCriterion criterion(adaptive(10, 0.5));
  for (int i = 0; i < 9; ++i) {
    criterion.add(0.125);
    EXPECT_FALSE(criterion.should_stop(0.0)) << "after " << criterion.count();
  }
  criterion.add(0.125);
  EXPECT_TRUE(criterion.should_stop(0.0));
  EXPECT_TRUE(criterion.converged());
  EXPECT_EQ(criterion.count(), 10u);
  EXPECT_EQ(criterion.noise(), 0.0);
  EXPECT_EQ(criterion.reason(0.0), "noise 0.00% <= 0.50% after 10 samples");
}

TEST(StoppingCriterion, ConstantSequenceStopsAtMinTime) {
  // 0.0625 s each: min_samples (3) is met first, min_time (0.5 s) after 8 samples.
  StoppingCriterion criterion(adaptive(3, 0.5));
  for (int i = 0; i < 7; ++i) {
    criterion.add(0.0625);
    EXPECT_FALSE(criterion.should_stop(0.0)) << "after " << criterion.count();
  }
  criterion.add(0.0625);
  EXPECT_TRUE(criterion.should_stop(0.0));
  EXPECT_TRUE(criterion.converged());
  EXPECT_EQ(criterion.reason(0.0), "noise 0.00% <= 0.50% after 8 samples");
}

TEST(StoppingCriterion, NeverStopsOnNoiseWithOneSample) {
  // One sample has no measurable spread; its noise of 0 must not count as converged.
  StoppingCriterion criterion(adaptive(1, 0.0));
  criterion.add(1.0);
  EXPECT_FALSE(criterion.should_stop(0.0));
  EXPECT_FALSE(criterion.should_stop(1000.0));
  criterion.add(1.0);
  EXPECT_TRUE(criterion.should_stop(0.0));
}

TEST(StoppingCriterion, NoisyAlternatingSequenceHitsTheTimeLimit) {
  // 1 s / 2 s alternating: noise about 33%, far above 0.5%. 15 samples: the plateau window
  // (20 noise values after the minimums) cannot have filled yet.
  StoppingCriterion criterion(adaptive(10, 0.5));
  for (int i = 0; i < 15; ++i) {
    criterion.add(i % 2 == 0 ? 1.0 : 2.0);
    EXPECT_FALSE(criterion.should_stop(19.9)) << "after " << criterion.count();
  }
  EXPECT_TRUE(criterion.should_stop(20.0));
  EXPECT_FALSE(criterion.converged());
  EXPECT_GT(criterion.noise(), 0.3);
  const std::string reason = criterion.reason(20.0);
  EXPECT_TRUE(contains(reason, "time limit 20 s reached at noise ")) << reason;
  EXPECT_TRUE(contains(reason, "% after 15 samples")) << reason;
  EXPECT_FALSE(contains(reason, "before the minimum")) << reason;
}

TEST(StoppingCriterion, DriftingNoiseNeverPlateausAndHitsTheTimeLimit) {
  // Every other sample grows, so the noise keeps rising and never settles.
  StoppingCriterion criterion(adaptive(10, 0.0));
  for (int i = 0; i < 500; ++i) {
    criterion.add(i % 2 == 0 ? 1.0 : 1.0 + 0.01 * i);
    ASSERT_FALSE(criterion.should_stop(5.0)) << "after " << criterion.count();
  }
  EXPECT_TRUE(criterion.should_stop(20.0));
  EXPECT_FALSE(criterion.converged());
}

TEST(StoppingCriterion, TimeLimitCutsShortTheMinimums) {
  // Slow samples: the wall clock runs out before min_samples; the reason says so.
  StoppingCriterion criterion(adaptive(10, 0.5));
  for (int i = 0; i < 3; ++i) {
    criterion.add(8.0);
  }
  EXPECT_FALSE(criterion.should_stop(19.0));
  EXPECT_TRUE(criterion.should_stop(24.0));
  EXPECT_FALSE(criterion.converged());
  const std::string reason = criterion.reason(24.0);
  EXPECT_TRUE(contains(reason, "time limit 20 s reached at noise 0.00% after 3 samples")) << reason;
  EXPECT_TRUE(contains(reason, "before the minimum of 10 samples")) << reason;
}

TEST(StoppingCriterion, ConvergedReasonWinsOverTheTimeLimit) {
  StoppingCriterion criterion(adaptive(2, 0.0));
  criterion.add(1.0);
  criterion.add(1.0);
  EXPECT_TRUE(criterion.should_stop(100.0));
  EXPECT_TRUE(criterion.converged());
  EXPECT_EQ(criterion.reason(100.0), "noise 0.00% <= 0.50% after 2 samples");
}

TEST(StoppingCriterion, NoisySteadySequenceStopsAsPlateaued) {
  // 1.0 / 1.1 alternating: noise about 5%, never below 0.5%. With 100 samples behind it the
  // noise estimate barely moves, so once 20 values are recorded after the minimums (samples
  // 100..119) the plateau rule stops it.
  StoppingCriterion criterion(adaptive(100, 0.0));
  for (int i = 0; i < 118; ++i) {
    criterion.add(i % 2 == 0 ? 1.0 : 1.1);
    ASSERT_FALSE(criterion.should_stop(0.0)) << "after " << criterion.count();
  }
  criterion.add(1.0);
  EXPECT_TRUE(criterion.should_stop(0.0));
  EXPECT_TRUE(criterion.converged());
  EXPECT_EQ(criterion.count(), 119u);
  EXPECT_GT(criterion.noise(), 0.04);
  const std::string reason = criterion.reason(0.0);
  EXPECT_TRUE(contains(reason, "noise plateaued at 4.")) << reason;
  EXPECT_TRUE(contains(reason, "% after 119 samples")) << reason;
}

TEST(StoppingCriterion, FixedSamplesStopsAtExactlyThatCount) {
  MeasurementSettings settings;
  settings.fixed_samples = 5;
  StoppingCriterion criterion(settings);
  for (int i = 0; i < 4; ++i) {
    criterion.add(i % 2 == 0 ? 1.0 : 3.0);
    // Neither noise nor the time limit matter in fixed mode.
    EXPECT_FALSE(criterion.should_stop(1000.0)) << "after " << criterion.count();
    EXPECT_FALSE(criterion.converged());
  }
  criterion.add(1.0);
  EXPECT_TRUE(criterion.should_stop(0.0));
  EXPECT_TRUE(criterion.converged());
  EXPECT_EQ(criterion.reason(0.0), "fixed 5 samples");
}

TEST(StoppingCriterion, NoiseAgreesWithSummarize) {
  const std::vector<double> samples = {1.5e-3, 1.52e-3, 1.49e-3, 1.61e-3, 1.5e-3, 1.47e-3};
  StoppingCriterion criterion(MeasurementSettings{});
  for (const double sample : samples) {
    criterion.add(sample);
  }
  EXPECT_NEAR(criterion.noise(), summarize(samples).relative_noise, 1e-12);
}

TEST(StoppingCriterion, RejectsInvalidSettingsAndSamples) {
  const auto with = [](auto change) {
    MeasurementSettings settings;
    change(settings);
    return settings;
  };
  EXPECT_THROW(StoppingCriterion(with([](MeasurementSettings& s) { s.fixed_samples = -1; })),
               std::invalid_argument);
  EXPECT_THROW(StoppingCriterion(with([](MeasurementSettings& s) { s.min_samples = -1; })),
               std::invalid_argument);
  EXPECT_THROW(StoppingCriterion(with([](MeasurementSettings& s) { s.min_time_s = -0.1; })),
               std::invalid_argument);
  EXPECT_THROW(StoppingCriterion(with([](MeasurementSettings& s) {
                 s.max_noise = std::numeric_limits<double>::quiet_NaN();
               })),
               std::invalid_argument);
  EXPECT_THROW(StoppingCriterion(with([](MeasurementSettings& s) { s.max_time_s = 0; })),
               std::invalid_argument);

  StoppingCriterion criterion(MeasurementSettings{});
  EXPECT_THROW(criterion.add(-1.0), std::invalid_argument);
  EXPECT_THROW(criterion.add(std::numeric_limits<double>::quiet_NaN()), std::invalid_argument);
  EXPECT_THROW(criterion.add(std::numeric_limits<double>::infinity()), std::invalid_argument);
  EXPECT_EQ(criterion.count(), 0u);
}

}  // namespace
}  // namespace aisp
