// The wiring between the variant timers and the stopping rule: which time feeds each variant's
// criterion (event time for GPU variants, host time for CPU ones, in seconds), who samples first
// in each round, that each variant stops on its own criterion, and that the time limit reads the
// loop's wall clock. Sources and clock are scripted: nothing here times anything.
#include <gtest/gtest.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "aisp/aisp.hpp"
#include "core/measurement_settings.hpp"
#include "measure/interleaved_sampling.hpp"
#include "measure/variant_timer.hpp"

namespace aisp {
namespace {

// Samples from a function of the sample's index; every call is logged under `name`.
class ScriptedSource final : public SampleSource {
 public:
  ScriptedSource(std::string name, TimingMethod method, std::vector<std::string>& log,
                 std::function<TimedSample(std::size_t)> script)
      : name_(std::move(name)), method_(method), log_(log), script_(std::move(script)) {}

  TimedSample sample() override {
    log_.push_back(name_);
    return script_(taken_++);
  }
  TimingMethod method() const override { return method_; }
  std::size_t taken() const { return taken_; }

 private:
  std::string name_;
  TimingMethod method_;
  std::vector<std::string>& log_;
  std::function<TimedSample(std::size_t)> script_;
  std::size_t taken_ = 0;
};

TimedSample constant(double event_ms, double host_ms) { return {event_ms, host_ms, {}}; }

// A wall clock that moves `step` seconds each time it is read.
WallClock stepping_clock(double step) {
  auto now = std::make_shared<double>(0.0);
  return [now, step] { return *now += step; };
}

MeasurementSettings adaptive(int min_samples, double min_time_s, double max_time_s = 1000) {
  MeasurementSettings settings;
  settings.min_samples = min_samples;
  settings.min_time_s = min_time_s;
  settings.max_noise = 0.005;
  settings.max_time_s = max_time_s;
  return settings;
}

// Event times are constant (noise 0), host times swing by 9×: only the event times let a GPU
// variant converge at its minimum sample count.
TEST(InterleavedSampling, GpuVariantsFeedTheirEventTimes) {
  std::vector<std::string> log;
  const auto swinging_host = [](std::size_t i) { return constant(1.0, i % 2 == 0 ? 1.0 : 9.0); };
  ScriptedSource baseline("B", TimingMethod::cuda_events, log, swinging_host);
  ScriptedSource optimized("O", TimingMethod::graph_replay, log, swinging_host);
  const InterleavedSamples samples =
      sample_interleaved(baseline, optimized, adaptive(3, 0.0), stepping_clock(0.001));
  EXPECT_EQ(baseline.taken(), 3u);
  EXPECT_EQ(optimized.taken(), 3u);
  EXPECT_EQ(samples.baseline.event_ms, (std::vector<double>{1.0, 1.0, 1.0}));
  EXPECT_EQ(samples.baseline.host_ms, (std::vector<double>{1.0, 9.0, 1.0}));
  EXPECT_TRUE(samples.optimized.criterion.converged());
  EXPECT_EQ(samples.optimized.criterion.noise(), 0.0);
}

// A CPU variant has no event time: its host time feeds the criterion and no event time is kept.
TEST(InterleavedSampling, HostClockVariantsFeedTheirHostTimes) {
  std::vector<std::string> log;
  ScriptedSource baseline("B", TimingMethod::host_clock, log,
                          [](std::size_t) { return constant(0.0, 4.0); });
  ScriptedSource optimized("O", TimingMethod::host_clock, log,
                           [](std::size_t i) { return constant(7.0 * i, 2.0); });
  const InterleavedSamples samples =
      sample_interleaved(baseline, optimized, adaptive(4, 0.0), stepping_clock(0.001));
  EXPECT_TRUE(samples.baseline.event_ms.empty());
  EXPECT_TRUE(samples.optimized.event_ms.empty());
  EXPECT_EQ(samples.optimized.host_ms.size(), 4u);
  EXPECT_EQ(samples.optimized.criterion.noise(), 0.0) << "fed the (varying) event times";
  EXPECT_EQ(samples.baseline.criterion.count(), 4u);
}

// Sample times are milliseconds, the criterion's minimum time is in seconds: 100 ms samples reach
// min_time 0.45 s after 5 samples (after 2 if milliseconds were taken for seconds).
TEST(InterleavedSampling, MillisecondsBecomeSeconds) {
  std::vector<std::string> log;
  ScriptedSource baseline("B", TimingMethod::cuda_events, log,
                          [](std::size_t) { return constant(100.0, 100.0); });
  ScriptedSource optimized("O", TimingMethod::host_clock, log,
                           [](std::size_t) { return constant(0.0, 100.0); });
  sample_interleaved(baseline, optimized, adaptive(2, 0.45), stepping_clock(0.001));
  EXPECT_EQ(baseline.taken(), 5u);
  EXPECT_EQ(optimized.taken(), 5u);
}

// Rounds alternate who samples first, and a variant whose criterion is met stops sampling while
// the other goes on: a 1 ms baseline meets min_time 9.6 ms after 10 samples, a 0.25 ms optimized
// variant after 39.
TEST(InterleavedSampling, AlternatesAndStopsEachVariantOnItsOwn) {
  std::vector<std::string> log;
  ScriptedSource baseline("B", TimingMethod::cuda_events, log,
                          [](std::size_t) { return constant(1.0, 1.0); });
  ScriptedSource optimized("O", TimingMethod::cuda_events, log,
                           [](std::size_t) { return constant(0.25, 0.25); });
  const InterleavedSamples samples =
      sample_interleaved(baseline, optimized, adaptive(2, 0.0096), stepping_clock(0.001));
  EXPECT_EQ(baseline.taken(), 10u);
  EXPECT_EQ(optimized.taken(), 39u);
  ASSERT_GE(log.size(), 6u);
  EXPECT_EQ(std::vector<std::string>(log.begin(), log.begin() + 6),
            (std::vector<std::string>{"B", "O", "O", "B", "B", "O"}));
  EXPECT_EQ(std::vector<std::string>(log.end() - 29, log.end()), std::vector<std::string>(29, "O"))
      << "the baseline sampled after its criterion was met";
  EXPECT_TRUE(samples.baseline.criterion.converged());
  EXPECT_TRUE(samples.optimized.criterion.converged());
}

// Samples that never settle stop at --max-time, read off the loop's clock after each round, and
// the stop is recorded as unconverged.
TEST(InterleavedSampling, TimeLimitReadsTheWallClock) {
  std::vector<std::string> log;
  const auto noisy = [](std::size_t i) {
    return constant(1.0 + static_cast<double>(i % 7), 1.0 + static_cast<double>(i % 7));
  };
  ScriptedSource baseline("B", TimingMethod::cuda_events, log, noisy);
  ScriptedSource optimized("O", TimingMethod::cuda_events, log, noisy);
  const InterleavedSamples samples =
      sample_interleaved(baseline, optimized, adaptive(2, 0.0, 2.0), stepping_clock(0.5));
  // The clock reads 0.5, 1.0, 1.5, 2.0 after rounds 1-4: both stop after the fourth round.
  EXPECT_EQ(baseline.taken(), 4u);
  EXPECT_EQ(optimized.taken(), 4u);
  EXPECT_DOUBLE_EQ(samples.wall_s, 2.5);  // read once more after the loop
  EXPECT_FALSE(samples.baseline.criterion.converged());
  EXPECT_NE(samples.baseline.criterion.reason(samples.wall_s).find("time limit"),
            std::string::npos);
}

TEST(InterleavedSampling, FixedSamplesIgnoreTheClock) {
  std::vector<std::string> log;
  const auto noisy = [](std::size_t i) { return constant(1.0 + static_cast<double>(i), 1.0); };
  ScriptedSource baseline("B", TimingMethod::cuda_events, log, noisy);
  ScriptedSource optimized("O", TimingMethod::cuda_events, log, noisy);
  MeasurementSettings settings;
  settings.fixed_samples = 6;
  sample_interleaved(baseline, optimized, settings, stepping_clock(100.0));
  EXPECT_EQ(baseline.taken(), 6u);
  EXPECT_EQ(optimized.taken(), 6u);
}

TEST(InterleavedSampling, MarksAreGatheredPerVariant) {
  std::vector<std::string> log;
  ScriptedSource baseline("B", TimingMethod::host_clock, log, [](std::size_t i) {
    return TimedSample{0.0, 2.0, {{"first_token", 0.5 + 0.25 * static_cast<double>(i)}}};
  });
  ScriptedSource optimized("O", TimingMethod::host_clock, log,
                           [](std::size_t) { return constant(0.0, 1.0); });
  MeasurementSettings settings;
  settings.fixed_samples = 3;
  InterleavedSamples samples =
      sample_interleaved(baseline, optimized, settings, stepping_clock(0.001));
  const std::vector<MarkMeasurement> marks = samples.baseline.marks.summarize();
  ASSERT_EQ(marks.size(), 1u);
  EXPECT_EQ(marks[0].name, "first_token");
  EXPECT_EQ(marks[0].ms, (std::vector<double>{0.5, 0.75, 1.0}));
  EXPECT_TRUE(samples.optimized.marks.summarize().empty());
}

// A third source (a pair's library reference) joins the rounds: forward order in even rounds,
// reverse in odd ones, and each source stops on its own criterion.
TEST(InterleavedSampling, ThreeSourcesAlternateForwardAndBackward) {
  std::vector<std::string> log;
  ScriptedSource baseline("B", TimingMethod::host_clock, log,
                          [](std::size_t) { return constant(0.0, 4.0); });
  ScriptedSource optimized("O", TimingMethod::host_clock, log,
                           [](std::size_t) { return constant(0.0, 2.0); });
  ScriptedSource reference("R", TimingMethod::host_clock, log,
                           [](std::size_t) { return constant(0.0, 1.0); });
  MeasurementSettings settings;
  settings.fixed_samples = 3;
  const InterleavedSeries series =
      sample_interleaved({&baseline, &optimized, &reference}, settings, stepping_clock(0.001));
  EXPECT_EQ(log, (std::vector<std::string>{"B", "O", "R", "R", "O", "B", "B", "O", "R"}));
  ASSERT_EQ(series.samples.size(), 3u);
  EXPECT_EQ(series.samples[2].host_ms, (std::vector<double>{1.0, 1.0, 1.0}));
  EXPECT_EQ(series.samples[1].host_ms, (std::vector<double>{2.0, 2.0, 2.0}));
  EXPECT_GT(series.wall_s, 0.0);
}

TEST(InterleavedSampling, ThreeSourcesStopEachOnItsOwn) {
  std::vector<std::string> log;
  // The reference's times swing, so it needs more samples than the steady variants' minimum.
  ScriptedSource baseline("B", TimingMethod::host_clock, log,
                          [](std::size_t) { return constant(0.0, 4.0); });
  ScriptedSource optimized("O", TimingMethod::host_clock, log,
                           [](std::size_t) { return constant(0.0, 2.0); });
  ScriptedSource reference("R", TimingMethod::host_clock, log,
                           [](std::size_t i) { return constant(0.0, i % 2 == 0 ? 1.0 : 3.0); });
  const InterleavedSeries series = sample_interleaved(
      {&baseline, &optimized, &reference}, adaptive(3, 0.0, 0.05), stepping_clock(0.001));
  EXPECT_EQ(baseline.taken(), 3u);
  EXPECT_EQ(optimized.taken(), 3u);
  EXPECT_GT(reference.taken(), 3u);
  EXPECT_EQ(series.samples[2].host_ms.size(), reference.taken());
}

TEST(InterleavedSampling, AnExceptionFromASourcePropagates) {
  std::vector<std::string> log;
  ScriptedSource baseline("B", TimingMethod::host_clock, log,
                          [](std::size_t) { return constant(0.0, 1.0); });
  ScriptedSource optimized("O", TimingMethod::host_clock, log, [](std::size_t i) -> TimedSample {
    if (i == 2)
      throw std::runtime_error("kernel fault in sample 2");
    return constant(0.0, 1.0);
  });
  EXPECT_THROW(sample_interleaved(baseline, optimized, adaptive(100, 0.0), stepping_clock(0.001)),
               std::runtime_error);
}

// A CPU variant through the real VariantTimer: host-clock samples of a run() that does a fixed
// amount of work, stopped by the criterion at the fixed count.
struct CountingCpuVariant : Benchmark {
  Tensor x, y;
  Signature signature() const override { return Signature().set("n", 64); }
  Requirements requirements() const override { return Requirements::cpu(); }
  void setup(Context& ctx) override {
    x = ctx.alloc("x", DType::f32, 64, Role::input, Memory::host);
    y = ctx.alloc("y", DType::f32, 64, Role::output, Memory::host);
    ctx.fill_uniform(x);
  }
  void run(Context&) override {
    for (int i = 0; i < 64; ++i)
      y.as<float>()[i] = 2.0f * x.as<float>()[i];
  }
  std::vector<Tensor> outputs() const override { return {y}; }
  Workload workload() const override { return {}; }
};

TEST(InterleavedSampling, CpuVariantTimersAreHostClockSources) {
  ContextOptions options;  // device -1: CPU only, no CUDA call
  const BenchmarkFactory factory = [] { return std::make_unique<CountingCpuVariant>(); };
  VariantTimer baseline(factory, options, nullptr);
  VariantTimer optimized(factory, options, nullptr);
  MeasurementSettings settings;
  settings.warmup_runs = 1;
  settings.fixed_samples = 3;
  baseline.prepare(settings);
  optimized.prepare(settings);
  EXPECT_EQ(baseline.method(), TimingMethod::host_clock);
  InterleavedSamples samples =
      sample_interleaved(baseline, optimized, settings, stepping_clock(0.001));
  EXPECT_EQ(samples.baseline.host_ms.size(), 3u);
  EXPECT_TRUE(samples.baseline.event_ms.empty());
  EXPECT_EQ(samples.optimized.criterion.count(), 3u);
  EXPECT_TRUE(samples.optimized.criterion.converged());
}

}  // namespace
}  // namespace aisp
