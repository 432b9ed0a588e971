// The progress line of a pair's sampling (measure/sampling_progress.hpp) from criteria fed
// synthetic sample times: what each variant still needs, or why it stopped, and the wall time
// against the limit; and the sampling loop's round observer that feeds it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/measurement_settings.hpp"
#include "measure/interleaved_sampling.hpp"
#include "measure/sampling_progress.hpp"

namespace aisp {
namespace {

MeasurementSettings adaptive() {
  MeasurementSettings settings;
  settings.min_samples = 10;
  settings.min_time_s = 0.5;
  settings.max_noise = 0.005;
  settings.max_time_s = 20;
  return settings;
}

void feed(StoppingCriterion& criterion, const std::vector<double>& seconds) {
  for (const double s : seconds)
    criterion.add(s);
}

// A baseline and an optimized variant, sampled under `settings`.
InterleavedSeries two(const MeasurementSettings& settings) {
  InterleavedSeries series;
  series.samples.emplace_back(settings);
  series.samples.emplace_back(settings);
  return series;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(SamplingProgress, SaysWhatEachVariantStillNeeds) {
  InterleavedSeries samples = two(adaptive());
  feed(samples.samples[0].criterion, {0.01, 0.01, 0.01});
  const std::string text = describe_sampling_progress(samples, 4.2);
  EXPECT_EQ(text, "baseline 3 of min 10 samples, 0.03 of min 0.5 s, noise 0.00%; optimized 0 of "
                  "min 10 samples, 0.00 of min 0.5 s, noise 0.00%; 4.2 s of max 20 s");
}

TEST(SamplingProgress, OnlyTheMinimumsStillMissingAreNamed) {
  InterleavedSeries samples = two(adaptive());
  feed(samples.samples[0].criterion, {0.3, 0.3});                       // time met, samples not
  feed(samples.samples[1].criterion, std::vector<double>(12, 0.001));  // samples met, time not
  const std::string text = describe_sampling_progress(samples, 1.0);
  EXPECT_TRUE(contains(text, "baseline 2 of min 10 samples, noise 0.00%;")) << text;
  EXPECT_TRUE(contains(text, "optimized 12 samples, 0.01 of min 0.5 s, noise 0.00%;")) << text;
}

TEST(SamplingProgress, NoiseAgainstTheTargetThenWhyItStopped) {
  InterleavedSeries samples = two(adaptive());
  std::vector<double> noisy;
  for (int i = 0; i < 40; ++i)
    noisy.push_back(i % 2 == 0 ? 0.1 : 0.2);
  feed(samples.samples[0].criterion, noisy);
  feed(samples.samples[1].criterion, std::vector<double>(60, 0.05));
  const std::string text = describe_sampling_progress(samples, 7.0);
  EXPECT_TRUE(contains(text, "baseline 40 samples, noise 33.76% (target 0.50%)")) << text;
  EXPECT_TRUE(contains(text, "optimized done: noise 0.00% <= 0.50% after 60 samples")) << text;
  EXPECT_TRUE(contains(text, "; 7.0 s of max 20 s")) << text;
  // Past the time limit the noisy variant has stopped too, and says so.
  EXPECT_TRUE(contains(describe_sampling_progress(samples, 21.0),
                       "baseline done: time limit 20 s reached at noise 33.76% after 40 samples"));
}

TEST(SamplingProgress, FixedSamplesCountAgainstTheirNumber) {
  MeasurementSettings settings;
  settings.fixed_samples = 100;
  InterleavedSeries samples = two(settings);
  feed(samples.samples[0].criterion, std::vector<double>(57, 0.001));
  feed(samples.samples[1].criterion, std::vector<double>(56, 0.001));
  EXPECT_EQ(describe_sampling_progress(samples, 1.25),
            "baseline 57 of 100 samples; optimized 56 of 100 samples; 1.2 s");
}

// A third source, the library reference, is named as such.
TEST(SamplingProgress, ALibraryReferenceIsTheThirdSource) {
  MeasurementSettings settings;
  settings.fixed_samples = 10;
  InterleavedSeries series = two(settings);
  series.samples.emplace_back(settings);
  feed(series.samples[2].criterion, {0.001, 0.001});
  EXPECT_TRUE(contains(describe_sampling_progress(series, 0.5),
                       "; library reference 2 of 10 samples; 0.5 s"));
}

class ConstantSource final : public SampleSource {
 public:
  TimedSample sample() override { return {1.0, 1.0, {}}; }
  TimingMethod method() const override { return TimingMethod::cuda_events; }
};

// The observer sees every round, after both variants sampled in it, with the clock's reading.
TEST(SamplingProgress, TheLoopReportsEveryRound) {
  MeasurementSettings settings;
  settings.fixed_samples = 4;
  ConstantSource baseline, optimized;
  double now = 0;
  std::vector<std::size_t> counts;
  std::vector<double> times;
  sample_interleaved(
      baseline, optimized, settings, [&] { return now += 0.5; },
      [&](const InterleavedSeries& s, double t) {
        counts.push_back(s.samples[0].criterion.count());
        times.push_back(t);
      });
  EXPECT_EQ(counts, (std::vector<std::size_t>{1, 2, 3, 4}));
  EXPECT_EQ(times, (std::vector<double>{0.5, 1.0, 1.5, 2.0}));
}

}  // namespace
}  // namespace aisp
