#include "measure/variant_timer.hpp"

#include <fmt/format.h>
#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>
#include <utility>

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
    for (int d = 1; d < devices(); ++d) {
      const ScopedDevice on(d);  // an event belongs to the device current when it is created
      device_starts_.emplace_back();
      device_stops_.emplace_back();
    }
  }
}

void VariantTimer::synchronize_devices() {
  // A multi-GPU run() may leave another device current; the harness's own work is on the first.
  if (devices() > 1) AISP_CUDA_CHECK(cudaSetDevice(options_.device));
  synchronize_run_devices(options_);
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
    synchronize_devices();
}

void VariantTimer::run_all_once() {
  for (std::size_t i = 0; i < instances_.size(); ++i) {
    marks_->begin_run();
    instances_[i]->run(*contexts_[i]);
    if (!cpu_only())
      AISP_CUDA_CHECK(cudaGetLastError());
  }
  if (!cpu_only())
    synchronize_devices();
}

void VariantTimer::warm_up(const MeasurementSettings& settings) {
  add_instance();
  {
    NvtxRange range(warmup_range_);
    for (int i = 0; i < settings.warmup_runs; ++i)
      run_all_once();
  }
  mode_ = instances_.front()->timing_mode();
  if (cpu_only()) {
    method_ = TimingMethod::host_clock;
    return;
  }
  method_ = TimingMethod::cuda_events;
  if (mode_ == TimingMode::direct || marks_points() || devices() > 1 || ranks() > 1)
    return;
  // Probe the per-call time to decide whether launch overhead would dominate. The probes are
  // not timed samples, so they carry their own NVTX range name.
  std::vector<double> probe;
  for (int i = 0; i < 5; ++i)
    probe.push_back(sample_direct(probe_range_).event_ms);
  call_us_ = median(probe) * 1e3;
}

TimingCandidate VariantTimer::candidate() const {
  TimingCandidate c;
  c.cpu_only = cpu_only();
  c.mode = mode_;
  c.marks = marks_points();  // the probes above may have been its first calls (warmup_runs 0)
  c.call_us = call_us_;
  c.devices = cpu_only() ? 1 : devices();
  c.ranks = ranks();
  return c;
}

void VariantTimer::prepare(const MeasurementSettings& settings) {
  warm_up(settings);
  const TimingCandidate self = candidate();
  const PairTimingChoice choice = choose_pair_timing(self, self, settings.graph_below_us);
  if (choice.baseline_graph)
    use_graph(settings);
  else
    use_per_call(choice.baseline_note);
}

bool VariantTimer::use_graph(const MeasurementSettings& settings, const std::string& follower_note) {
  if (cpu_only()) return false;
  const bool built = try_build_graph(std::max(call_us_, 0.0), settings);
  if (built) method_ = TimingMethod::graph_replay;
  if (!follower_note.empty()) method_note_ = follower_note + "; " + method_note_;
  return built;
}

void VariantTimer::use_per_call(std::string note) {
  if (method_ == TimingMethod::graph_replay) {
    graph_ = CapturedGraph();
    AISP_CUDA_CHECK(cudaDeviceSynchronize());
  }
  runs_per_sample_ = 1;
  if (!cpu_only()) method_ = TimingMethod::cuda_events;
  method_note_ = std::move(note);
}

void VariantTimer::watch_threads(const std::vector<HostThread>& level, bool exempt_cuda) {
  thread_level_ = level;
  exempt_cuda_threads_ = exempt_cuda;
  watching_threads_ = true;
}

void VariantTimer::look_for_threads(const char* when, bool after_run) {
  constexpr std::size_t kMaxSightings = 3;
  if (!watching_threads_ || thread_sightings_.size() >= kMaxSightings) return;
  // One directory read while nothing has changed; the census (a stat per thread) only when the
  // count differs from the level's.
  if (host_thread_count() == static_cast<long>(thread_level_.size())) return;
  const std::vector<HostThread> started =
      threads_started_since(thread_level_, host_thread_census(), exempt_cuda_threads_);
  if (started.empty()) return;
  thread_sightings_.push_back(fmt::format("{} sample {}: {} thread(s) alive that were not before "
                                          "timing began ({})",
                                          when, samples_taken_ + 1, started.size(),
                                          describe_threads(started)));
  // The pair fails on it. Threads a run() left may still be writing its buffers: let them end
  // before the next call (a thread a setup() started may live as long as its variant: no wait).
  if (!after_run) return;
  const auto deadline = Clock::now() + std::chrono::seconds(2);
  while (!threads_started_since(thread_level_, host_thread_census(), exempt_cuda_threads_).empty() &&
         Clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
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
  method_note_ = fmt::format("{:.2f} us per call{}: graph of {} calls over {} rotating input sets",
                             run_us,
                             mode_ == TimingMode::graph ? " (the variant asks for graph replay)"
                             : run_us < settings.graph_below_us
                                 ? fmt::format(" < {:.0f} us", settings.graph_below_us)
                                 : std::string{},
                             runs_per_sample_, rotating);
  // One untimed replay, so the first timed one does not pay the graph upload.
  graph_.launch(stream);
  AISP_CUDA_CHECK(cudaDeviceSynchronize());
  return true;
}

TimedSample VariantTimer::sample() {
  look_for_threads("before", false);
  TimedSample taken;
  if (cpu_only())
    taken = sample_host(sample_range_);
  else
    taken = method_ == TimingMethod::graph_replay ? sample_graph(sample_range_)
                                                  : sample_direct(sample_range_);
  ++samples_taken_;
  return taken;
}

TimedSample VariantTimer::sample_untimed() {
  if (cpu_only()) return sample_host(probe_range_);
  return method_ == TimingMethod::graph_replay ? sample_graph(probe_range_)
                                               : sample_direct(probe_range_);
}

TimedSample VariantTimer::sample_host(const std::string& range_name) {
  NvtxRange range(range_name);
  const auto begin = Clock::now();
  marks_->begin_run(begin);
  instances_.front()->run(*contexts_.front());
  const auto end = Clock::now();
  // Outside the timed region: a thread still running now is work the host clock did not see.
  look_for_threads("after run() returned in", true);
  return {0.0, elapsed_ms(begin, end), marks_->resolve(nullptr)};
}

TimedSample VariantTimer::sample_direct(const std::string& range_name) {
  cudaStream_t stream = options_.stream;
  flusher_->flush();
  synchronize_devices();
  KernelTracer* tracer = std::exchange(tracer_, nullptr);
  if (tracer != nullptr) tracer->begin();
  NvtxRange range(range_name);
  const auto begin = Clock::now();
  marks_->begin_run(begin);
  AISP_CUDA_CHECK(cudaEventRecord(start_->get(), stream));
  // Every other GPU of a multi-GPU run: its own start and stop on its own stream (all idle now).
  for (std::size_t i = 0; i < device_starts_.size(); ++i)
    AISP_CUDA_CHECK(cudaEventRecord(device_starts_[i].get(), options_.device_streams[i + 1]));
  instances_.front()->run(*contexts_.front());
  AISP_CUDA_CHECK(cudaGetLastError());
  for (std::size_t i = 0; i < device_stops_.size(); ++i)
    AISP_CUDA_CHECK(cudaEventRecord(device_stops_[i].get(), options_.device_streams[i + 1]));
  AISP_CUDA_CHECK(cudaEventRecord(stop_->get(), stream));
  if (tracer != nullptr) {
    // The trace's end marker on the first GPU's stream, after every GPU's stop: work still
    // running on some GPU's stream after its stop is what the trace looks for.
    for (const CudaEvent& stop : device_stops_)
      AISP_CUDA_CHECK(cudaStreamWaitEvent(stream, stop.get(), 0));
    tracer->end_on(stream);
  }
  synchronize_devices();
  const auto end = Clock::now();
  if (tracer != nullptr) trace_ = tracer->finish();
  float event_ms = 0;
  AISP_CUDA_CHECK(cudaEventElapsedTime(&event_ms, start_->get(), stop_->get()));
  // The sample is the slowest GPU's time from its start to its stop.
  for (std::size_t i = 0; i < device_starts_.size(); ++i) {
    float device_ms = 0;
    AISP_CUDA_CHECK(
        cudaEventElapsedTime(&device_ms, device_starts_[i].get(), device_stops_[i].get()));
    event_ms = std::max(event_ms, device_ms);
  }
  return {event_ms, elapsed_ms(begin, end), marks_->resolve(start_->get())};
}

TimedSample VariantTimer::sample_graph(const std::string& range_name) {
  cudaStream_t stream = options_.stream;
  flusher_->flush();
  AISP_CUDA_CHECK(cudaDeviceSynchronize());
  KernelTracer* tracer = std::exchange(tracer_, nullptr);
  if (tracer != nullptr) tracer->begin();
  NvtxRange range(range_name);
  const auto begin = Clock::now();
  AISP_CUDA_CHECK(cudaEventRecord(start_->get(), stream));
  graph_.launch(stream);
  AISP_CUDA_CHECK(cudaEventRecord(stop_->get(), stream));
  if (tracer != nullptr) tracer->end_on(stream);
  AISP_CUDA_CHECK(cudaDeviceSynchronize());
  const auto end = Clock::now();
  if (tracer != nullptr) trace_ = tracer->finish();
  float event_ms = 0;
  AISP_CUDA_CHECK(cudaEventElapsedTime(&event_ms, start_->get(), stop_->get()));
  const double runs = runs_per_sample_;
  return {event_ms / runs, elapsed_ms(begin, end) / runs, {}};
}

}  // namespace aisp
