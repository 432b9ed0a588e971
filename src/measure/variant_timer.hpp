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
#include "core/cuda_handles.hpp"
#include "core/measurement_settings.hpp"
#include "measure/interleaved_sampling.hpp"
#include "measure/l2_flusher.hpp"
#include "measure/mark_recorder.hpp"

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

  // Setup, warm-up, and the choice of timing method.
  void prepare(const MeasurementSettings& settings);
  TimedSample sample() override;

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
  void add_instance();
  void run_all_once();
  TimedSample sample_direct(const std::string& range);
  TimedSample sample_graph();
  bool try_build_graph(double run_us, const MeasurementSettings& settings);

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
  CapturedGraph graph_;                    // graph replay only
};

}  // namespace aisp
