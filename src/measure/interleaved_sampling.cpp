#include "measure/interleaved_sampling.hpp"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <utility>

#include "core/rank_exchange.hpp"

namespace aisp {
namespace {

void take_sample(SampleSource& source, SampledVariant& variant, RankExchange* ranks) {
  TimedSample sample = source.sample();
  if (ranks != nullptr) {  // the slowest rank's time is the job's
    const std::vector<double> slowest = ranks_max(ranks, {sample.event_ms, sample.host_ms});
    sample.event_ms = slowest[0];
    sample.host_ms = slowest[1];
  }
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
  InterleavedSeries series =
      sample_interleaved({&baseline, &optimized}, settings, seconds_since_start, after_round);
  return InterleavedSamples{std::move(series.samples[0]), std::move(series.samples[1]),
                            series.wall_s};
}

InterleavedSeries sample_interleaved(const std::vector<SampleSource*>& sources,
                                     const MeasurementSettings& settings,
                                     const WallClock& seconds_since_start,
                                     const RoundObserver& after_round, RankExchange* ranks) {
  InterleavedSeries series;
  series.samples.reserve(sources.size());
  for (std::size_t i = 0; i < sources.size(); ++i)
    series.samples.emplace_back(settings);
  std::vector<bool> done(sources.size(), false);
  const auto all_done = [&done] {
    return std::all_of(done.begin(), done.end(), [](bool d) { return d; });
  };
  for (std::size_t round = 0; !all_done(); ++round) {
    for (std::size_t k = 0; k < sources.size(); ++k) {
      const std::size_t i = round % 2 == 0 ? k : sources.size() - 1 - k;
      if (!done[i])
        take_sample(*sources[i], series.samples[i], ranks);
    }
    const double t = seconds_since_start();
    for (std::size_t i = 0; i < sources.size(); ++i)
      done[i] = done[i] || series.samples[i].criterion.should_stop(t);
    done = ranks_root_value(ranks, done);
    if (after_round)
      after_round(series, t);
  }
  series.wall_s = seconds_since_start();
  return series;
}

WallClock steady_wall_clock() {
  const auto start = std::chrono::steady_clock::now();
  return [start] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
}

}  // namespace aisp
