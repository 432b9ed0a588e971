// The sampling loop of a pair: baseline and optimized take samples in turns, alternating which
// goes first, so drift (clocks, temperature) hits both alike while both sample; each variant feeds
// its own stopping criterion and stops once that criterion says so. A 5 ms baseline need not take
// the 1000 samples a 0.5 ms optimized variant needs to reach its time minimum.
//
// It sees samples and a clock through interfaces, so tests drive it with synthetic timings: the
// VariantTimer is the source in a run, a scripted sequence in the unit tests.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "aisp/result.hpp"
#include "core/measurement_settings.hpp"
#include "measure/mark_series.hpp"
#include "measure/stopping_criterion.hpp"

namespace aisp {
class RankExchange;
}

namespace aisp {

struct TimedSample {
  double event_ms = 0;  // device time per run (0 for CPU-only variants)
  double host_ms = 0;   // host wall time per run, device-wide synchronized
  // The run's ctx.mark points in the order reached: ms from the start of run().
  std::vector<std::pair<std::string, double>> marks_ms;
};

// Where one variant's samples come from.
class SampleSource {
 public:
  virtual ~SampleSource() = default;
  virtual TimedSample sample() = 0;
  // host_clock: the sample's time is its host time (a CPU variant); otherwise its event time.
  virtual TimingMethod method() const = 0;
};

// One variant's samples as the loop took them, and the criterion that stopped it.
struct SampledVariant {
  explicit SampledVariant(const MeasurementSettings& settings) : criterion(settings) {}

  std::vector<double> event_ms;  // empty for host-clock variants
  std::vector<double> host_ms;
  MarkSeries marks;
  StoppingCriterion criterion;  // fed event_ms (host_ms for host-clock variants), in seconds
};

struct InterleavedSamples {
  SampledVariant baseline, optimized;
  double wall_s = 0;  // the wall clock when both had stopped
};

// Seconds since sampling began; read after every round (baseline and optimized once each).
using WallClock = std::function<double()>;

// The same loop over any number of sources (a pair's baseline and optimized variant, and its
// library reference as a third): even rounds take one sample of each source in the given order,
// odd rounds in the reverse order, so each neighbour goes first as often as second; a source whose
// criterion has said stop is skipped. `samples` (one per source, in order) and `wall_s` are what
// sample_interleaved returns for two.
struct InterleavedSeries {
  std::vector<SampledVariant> samples;
  double wall_s = 0;
};

// Called after every round with the samples so far and the wall clock's reading: where sampling
// stands, for progress displays (measure/sampling_progress.hpp). Must not take samples.
using RoundObserver = std::function<void(const InterleavedSeries&, double seconds_since_start)>;

// Samples both variants in rounds until both criteria (made from `settings`) say stop: in even
// rounds the baseline samples first, in odd rounds the optimized variant; a variant that has
// stopped is skipped. Exceptions from a source propagate. `after_round`, when set, sees every
// round.
InterleavedSamples sample_interleaved(SampleSource& baseline, SampleSource& optimized,
                                      const MeasurementSettings& settings,
                                      const WallClock& seconds_since_start,
                                      const RoundObserver& after_round = nullptr);

// `ranks`, under `mpirun` (core/rank_exchange.hpp): every rank samples in lockstep. Each sample
// (event and host time) is the largest of the ranks' samples of that call, so every rank records
// the same series, and rank 0's criteria decide when each source stops.
InterleavedSeries sample_interleaved(const std::vector<SampleSource*>& sources,
                                     const MeasurementSettings& settings,
                                     const WallClock& seconds_since_start,
                                     const RoundObserver& after_round = nullptr,
                                     RankExchange* ranks = nullptr);

// A WallClock on the steady clock, starting now.
WallClock steady_wall_clock();

}  // namespace aisp
