#include "measure/variant_timer.hpp"

#include <fmt/format.h>
#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "aisp/check.hpp"
#include "measure/nvtx_ranges.hpp"
#include "measure/statistics.hpp"

namespace aisp {
namespace {

using Clock = std::chrono::steady_clock;

double elapsed_ms(Clock::time_point begin, Clock::time_point end) {
  return std::chrono::duration<double, std::milli>(end - begin).count();
}

// Graph replays are sized so one sample lasts at least this long: long enough that the single
// graph launch and event resolution (about 0.5 us) are well under 1% of the sample.
constexpr double kGraphSampleTargetUs = 500.0;
// Rotating input sets cover at least this many L2 sizes, so replays do not run from a warm L2.
constexpr double kRotationL2Multiple = 3.0;
constexpr int kMaxRotatingSets = 32;

class NvtxRange {
public:
  explicit NvtxRange(const std::string& name) { nvtxRangePushA(name.c_str()); }
  ~NvtxRange() { nvtxRangePop(); }
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;
};

}  // namespace

VariantTimer::VariantTimer(BenchmarkFactory factory, ContextOptions options, L2Flusher* flusher,
                           const std::string& nvtx_label)
    : factory_(std::move(factory)), options_(std::move(options)), flusher_(flusher),
      setup_range_(nvtx_range_name(kNvtxSetup, nvtx_label)),
      warmup_range_(nvtx_range_name(kNvtxWarmup, nvtx_label)),
      probe_range_(nvtx_range_name(kNvtxProbe, nvtx_label)),
      sample_range_(nvtx_range_name(kNvtxSample, nvtx_label)) {
  marks_ = std::make_unique<MarkRecorder>(!cpu_only());
  if (!cpu_only()) {
    start_.emplace();
    stop_.emplace();
  }
}

VariantTimer::~VariantTimer() {
  graph_ = CapturedGraph();  // before the instances whose buffers it replays
  for (std::size_t i = 0; i < instances_.size(); ++i) {
    try {
      instances_[i]->teardown(*contexts_[i]);
    } catch (...) {
      // Teardown failures after timing cannot change the measurement; the worker's final device
      // check reports a broken context.
    }
  }
  instances_.clear();
  contexts_.clear();
}

void VariantTimer::add_instance() {
  NvtxRange range(setup_range_);
  contexts_.push_back(make_context(options_));
  contexts_.back()->state().marks = marks_.get();
  instances_.push_back(factory_());
  instances_.back()->setup(*contexts_.back());
  if (!cpu_only())
    AISP_CUDA_CHECK(cudaDeviceSynchronize());
}

void VariantTimer::run_all_once() {
  for (std::size_t i = 0; i < instances_.size(); ++i) {
    marks_->begin_run();
    instances_[i]->run(*contexts_[i]);
    if (!cpu_only())
      AISP_CUDA_CHECK(cudaGetLastError());
  }
  if (!cpu_only())
    AISP_CUDA_CHECK(cudaDeviceSynchronize());
}

void VariantTimer::prepare(const MeasurementSettings& settings) {
  add_instance();
  {
    NvtxRange range(warmup_range_);
    for (int i = 0; i < settings.warmup_runs; ++i)
      run_all_once();
  }
  if (cpu_only()) {
    method_ = TimingMethod::host_clock;
    return;
  }
  method_ = TimingMethod::cuda_events;
  const TimingMode mode = instances_.front()->timing_mode();
  if (mode == TimingMode::direct) {
    method_note_ = "the variant asks for per-call timing";
    return;
  }
  constexpr const char* kMarkedNote = "run() marks points (ctx.mark): timed per call";
  if (marks_points()) {
    method_note_ = kMarkedNote;
    return;
  }
  // Probe the per-call time to decide whether launch overhead would dominate. The probes are
  // not timed samples, so they carry their own NVTX range name.
  std::vector<double> probe;
  for (int i = 0; i < 5; ++i)
    probe.push_back(sample_direct(probe_range_).event_ms);
  const double run_us = median(probe) * 1e3;
  if (marks_points()) {  // warm-up ran no call (warmup_runs 0); the probes did
    method_note_ = kMarkedNote;
    return;
  }
  if (mode == TimingMode::automatic && run_us >= settings.graph_below_us) {
    method_note_ = fmt::format("{:.1f} us per call >= {:.0f} us: timed per call", run_us,
                               settings.graph_below_us);
    return;
  }
  if (!try_build_graph(run_us, settings))
    return;
  method_ = TimingMethod::graph_replay;
}

bool VariantTimer::try_build_graph(double run_us, const MeasurementSettings& settings) {
  // Rotating sets: extra instances with their own buffers, so consecutive replays do not find
  // the previous call's data in L2.
  const double footprint = static_cast<double>(contexts_.front()->state().allocated_bytes);
  const double l2 = static_cast<double>(contexts_.front()->device_properties().l2CacheSize);
  const int sets =
      std::clamp(static_cast<int>(std::ceil(kRotationL2Multiple * l2 / std::max(footprint, 1.0))),
                 1, kMaxRotatingSets);
  try {
    while (static_cast<int>(instances_.size()) < sets)
      add_instance();
  } catch (const CudaError& e) {
    if (e.code() != cudaErrorMemoryAllocation)
      throw;
    cudaGetLastError();  // clear the allocation failure; fewer sets is still a valid measurement
  }
  const int rotating = static_cast<int>(instances_.size());
  const int calls =
      std::max(rotating, static_cast<int>(std::ceil(kGraphSampleTargetUs / std::max(run_us, 0.1))));
  runs_per_sample_ = (calls + rotating - 1) / rotating * rotating;

  cudaStream_t stream = options_.stream;
  std::string failure;
  try {
    graph_ = capture_graph(stream, [&](cudaStream_t) {
      for (int k = 0; k < runs_per_sample_; ++k)
        instances_[k % rotating]->run(*contexts_[k % rotating]);
    });
  } catch (const GraphCaptureError& e) {
    failure = cudaGetErrorString(static_cast<cudaError_t>(e.code()));
  } catch (const std::exception& e) {
    failure = e.what();
  }
  if (!failure.empty()) {
    cudaGetLastError();
    graph_ = CapturedGraph();
    runs_per_sample_ = 1;
    method_note_ = fmt::format("graph capture failed ({}); timed per call", failure);
    AISP_CUDA_CHECK(cudaDeviceSynchronize());
    return false;
  }
  method_note_ = fmt::format("{:.2f} us per call < {:.0f} us: graph of {} calls over {} rotating "
                             "input sets",
                             run_us, settings.graph_below_us, runs_per_sample_, rotating);
  // One untimed replay, so the first timed one does not pay the graph upload.
  graph_.launch(stream);
  AISP_CUDA_CHECK(cudaDeviceSynchronize());
  return true;
}

TimedSample VariantTimer::sample() {
  if (cpu_only()) {
    NvtxRange range(sample_range_);
    const auto begin = Clock::now();
    marks_->begin_run(begin);
    instances_.front()->run(*contexts_.front());
    const auto end = Clock::now();
    return {0.0, elapsed_ms(begin, end), marks_->resolve(nullptr)};
  }
  return method_ == TimingMethod::graph_replay ? sample_graph() : sample_direct(sample_range_);
}

TimedSample VariantTimer::sample_direct(const std::string& range_name) {
  cudaStream_t stream = options_.stream;
  flusher_->flush();
  AISP_CUDA_CHECK(cudaDeviceSynchronize());
  NvtxRange range(range_name);
  const auto begin = Clock::now();
  marks_->begin_run(begin);
  AISP_CUDA_CHECK(cudaEventRecord(start_->get(), stream));
  instances_.front()->run(*contexts_.front());
  AISP_CUDA_CHECK(cudaGetLastError());
  AISP_CUDA_CHECK(cudaEventRecord(stop_->get(), stream));
  AISP_CUDA_CHECK(cudaDeviceSynchronize());
  const auto end = Clock::now();
  float event_ms = 0;
  AISP_CUDA_CHECK(cudaEventElapsedTime(&event_ms, start_->get(), stop_->get()));
  return {event_ms, elapsed_ms(begin, end), marks_->resolve(start_->get())};
}

TimedSample VariantTimer::sample_graph() {
  cudaStream_t stream = options_.stream;
  flusher_->flush();
  AISP_CUDA_CHECK(cudaDeviceSynchronize());
  NvtxRange range(sample_range_);
  const auto begin = Clock::now();
  AISP_CUDA_CHECK(cudaEventRecord(start_->get(), stream));
  graph_.launch(stream);
  AISP_CUDA_CHECK(cudaEventRecord(stop_->get(), stream));
  AISP_CUDA_CHECK(cudaDeviceSynchronize());
  const auto end = Clock::now();
  float event_ms = 0;
  AISP_CUDA_CHECK(cudaEventElapsedTime(&event_ms, start_->get(), stop_->get()));
  const double runs = runs_per_sample_;
  return {event_ms / runs, elapsed_ms(begin, end) / runs, {}};
}

}  // namespace aisp
