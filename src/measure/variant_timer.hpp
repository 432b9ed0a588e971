// Times one variant: builds its instance(s), warms up, chooses how to time it (per-call events,
// graph replay over rotating input sets, or the host clock for CPU-only variants) and takes one
// sample at a time, so the caller can interleave baseline and optimized samples.
#pragma once

#include <cuda_runtime_api.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "aisp/benchmark.hpp"
#include "aisp/graph_capture.hpp"
#include "aisp/result.hpp"
#include "core/context_state.hpp"
#include "core/rank_exchange.hpp"
#include "core/cuda_handles.hpp"
#include "core/measurement_settings.hpp"
#include "measure/interleaved_sampling.hpp"
#include "measure/kernel_trace.hpp"
#include "measure/l2_flusher.hpp"
#include "measure/mark_recorder.hpp"
#include "measure/timing_method_choice.hpp"
#include "system/thread_census.hpp"

namespace aisp {

class VariantTimer final : public SampleSource {
public:
  // `flusher` and `options.stream` are null for CPU-only variants. `nvtx_label` (nvtx_label() of
  // the target and variant) names the NVTX ranges around setup, warm-up and every sample.
  VariantTimer(BenchmarkFactory factory, ContextOptions options, L2Flusher* flusher,
               const std::string& nvtx_label = {});
  ~VariantTimer() override;
  VariantTimer(const VariantTimer&) = delete;
  VariantTimer& operator=(const VariantTimer&) = delete;

  // Setup, warm-up, and the choice of timing method for this variant alone (warm_up, then
  // choose_pair_timing with itself as partner): for one variant measured on its own (the
  // profile pass). A pair is prepared with warm_up on both timers and one choice for the two
  // (worker/pair_measurement.cpp), so both are timed alike.
  void prepare(const MeasurementSettings& settings);
  // Setup and warm-up; for a GPU variant that may be replayed, five probe calls whose median is
  // candidate().call_us. Leaves it timed per call.
  void warm_up(const MeasurementSettings& settings);
  TimingCandidate candidate() const;
  // Times it by graph replay over rotating input sets (a capture of enough calls for a sample
  // of >= 500 us). False when the capture fails: it stays timed per call and method_note() says
  // why. `follower_note`: prefixed to the note (the pair's choice, when this variant follows).
  bool use_graph(const MeasurementSettings& settings, const std::string& follower_note = {});
  // Times it per call (dropping a graph use_graph built), with `note` as the reason.
  void use_per_call(std::string note);

  TimedSample sample() override;
  // One call made exactly as sample() makes it (the same method, graph replay included), under
  // the probe NVTX range so a profile pass does not count it as a sample: the integrity checks'
  // extra calls (worker/timed_call_checks.cpp).
  TimedSample sample_untimed();

  // The next sample() or sample_untimed() is traced by `tracer` (GPU only); take_trace() gives
  // what it saw.
  void trace_next_call(KernelTracer* tracer) { tracer_ = tracer; }
  KernelTrace take_trace() { return std::move(trace_); }

  // From now on, before every sample (and after every CPU run()), the process's threads are
  // compared with `level`: a thread that is not in it and not exiting is alive outside its own
  // variant's run() (a thread a setup() left running slows the other variant's samples; one a
  // run() left running does work its timer missed). `exempt_cuda`: GPU pairs leave the CUDA
  // driver's helper threads out (thread_census.hpp).
  void watch_threads(const std::vector<HostThread>& level, bool exempt_cuda);
  // What the watch saw, one line per sighting (at most a few).
  const std::vector<std::string>& thread_sightings() const { return thread_sightings_; }

  // The instances it times: one, or the rotating input sets of graph replay.
  std::size_t instance_count() const { return instances_.size(); }
  Benchmark& instance(std::size_t i) { return *instances_[i]; }
  Context& instance_context(std::size_t i) { return *contexts_[i]; }

  TimingMethod method() const override { return method_; }
  int runs_per_sample() const { return runs_per_sample_; }
  int rotating_sets() const { return static_cast<int>(instances_.size()); }
  // Why the method was chosen (e.g. a graph capture that failed and fell back to events).
  const std::string& method_note() const { return method_note_; }
  // Whether run() marks points (ctx.mark); such a variant is timed call by call.
  bool marks_points() const { return !marks_->names_seen().empty(); }
  Benchmark& primary() { return *instances_.front(); }
  Context& primary_context() { return *contexts_.front(); }

private:
  bool cpu_only() const { return options_.device < 0; }
  int devices() const { return run_device_count(options_); }
  int ranks() const { return options_.ranks != nullptr ? options_.ranks->size() : 1; }
  // The primary GPU current again and every GPU of the run idle.
  void synchronize_devices();
  void add_instance();
  void run_all_once();
  TimedSample sample_direct(const std::string& range);
  TimedSample sample_graph(const std::string& range);
  TimedSample sample_host(const std::string& range);
  bool try_build_graph(double run_us, const MeasurementSettings& settings);
  void look_for_threads(const char* when, bool after_run);

  BenchmarkFactory factory_;
  ContextOptions options_;
  L2Flusher* flusher_;
  std::unique_ptr<MarkRecorder> marks_;  // attached to every context this timer makes
  std::vector<std::unique_ptr<Benchmark>> instances_;
  std::vector<std::unique_ptr<Context>> contexts_;
  TimingMethod method_ = TimingMethod::cuda_events;
  int runs_per_sample_ = 1;
  std::string method_note_;
  std::string setup_range_, warmup_range_, probe_range_, sample_range_;  // NVTX range names
  std::optional<CudaEvent> start_, stop_;  // GPU variants only
  // A multi-GPU variant's events on the run's other GPUs (index d - 1 for device d).
  std::vector<CudaEvent> device_starts_, device_stops_;
  CapturedGraph graph_;                    // graph replay only
  TimingMode mode_ = TimingMode::automatic;
  double call_us_ = -1;  // median probe call, when probed
  KernelTracer* tracer_ = nullptr;
  KernelTrace trace_;
  std::vector<HostThread> thread_level_;
  bool watching_threads_ = false, exempt_cuda_threads_ = false;
  std::vector<std::string> thread_sightings_;
  std::size_t samples_taken_ = 0;
};

}  // namespace aisp
