#include "measure/interleaved_sampling.hpp"

#include <chrono>
#include <cstddef>

namespace aisp {
namespace {

void take_sample(SampleSource& source, SampledVariant& variant) {
  const TimedSample sample = source.sample();
  const bool host = source.method() == TimingMethod::host_clock;
  if (!host) {
    variant.event_ms.push_back(sample.event_ms);
  }
  variant.host_ms.push_back(sample.host_ms);
  variant.marks.add(sample.marks_ms);
  variant.criterion.add((host ? sample.host_ms : sample.event_ms) * 1e-3);
}

}  // namespace

InterleavedSamples sample_interleaved(SampleSource& baseline, SampleSource& optimized,
                                      const MeasurementSettings& settings,
                                      const WallClock& seconds_since_start,
                                      const RoundObserver& after_round) {
  InterleavedSamples samples{SampledVariant(settings), SampledVariant(settings), 0.0};
  bool baseline_done = false, optimized_done = false;
  for (std::size_t round = 0; !(baseline_done && optimized_done); ++round) {
    if (round % 2 == 0) {
      if (!baseline_done)
        take_sample(baseline, samples.baseline);
      if (!optimized_done)
        take_sample(optimized, samples.optimized);
    } else {
      if (!optimized_done)
        take_sample(optimized, samples.optimized);
      if (!baseline_done)
        take_sample(baseline, samples.baseline);
    }
    const double t = seconds_since_start();
    baseline_done = baseline_done || samples.baseline.criterion.should_stop(t);
    optimized_done = optimized_done || samples.optimized.criterion.should_stop(t);
    if (after_round)
      after_round(samples, t);
  }
  samples.wall_s = seconds_since_start();
  return samples;
}

WallClock steady_wall_clock() {
  const auto start = std::chrono::steady_clock::now();
  return [start] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
}

}  // namespace aisp
