#include "run/pair_measurement.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include "aisp/check.hpp"
#include "measure/bootstrap.hpp"
#include "measure/l2_flusher.hpp"
#include "measure/mark_series.hpp"
#include "measure/nvtx_ranges.hpp"
#include "measure/roofline.hpp"
#include "measure/statistics.hpp"
#include "measure/stopping_criterion.hpp"
#include "measure/variant_timer.hpp"
#include "run/device_snapshot.hpp"
#include "system/nvml_probe.hpp"
#include "system/system_info.hpp"
#include "verify/pair_verifier.hpp"

namespace aisp {
namespace {

// The stricter of the two variants' requirements: the pair runs only where both can.
Requirements combined(const Requirements& a, const Requirements& b) {
  Requirements r;
  r.cpu_only = a.cpu_only && b.cpu_only;
  r.min_compute_capability = std::max(a.min_compute_capability, b.min_compute_capability);
  r.features = a.features;
  for (Feature f : b.features)
    if (std::find(r.features.begin(), r.features.end(), f) == r.features.end())
      r.features.push_back(f);
  r.min_gpus = r.cpu_only ? 0 : std::max({a.min_gpus, b.min_gpus, 1});
  r.min_free_device_bytes = std::max(a.min_free_device_bytes, b.min_free_device_bytes);
  return r;
}

class MeasurementStream {
 public:
  explicit MeasurementStream(bool gpu) {
    if (gpu) AISP_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  }
  ~MeasurementStream() {
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
  }
  MeasurementStream(const MeasurementStream&) = delete;
  MeasurementStream& operator=(const MeasurementStream&) = delete;
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

std::string pci_bus_id(int device) {
  char id[32] = {};
  if (cudaDeviceGetPCIBusId(id, sizeof(id), device) != cudaSuccess) {
    cudaGetLastError();
    return {};
  }
  return id;
}

VariantMeasurement summarize_variant(const std::string& stem, const VariantTimer& timer,
                                     std::vector<double> event_ms, std::vector<double> host_ms,
                                     const StoppingCriterion& criterion, double wall_s) {
  VariantMeasurement m;
  m.variant = stem;
  m.method = timer.method();
  m.runs_per_sample = timer.runs_per_sample();
  m.rotating_sets = timer.method() == TimingMethod::graph_replay ? timer.rotating_sets() : 1;
  m.host_stats = summarize(host_ms);
  m.stats = timer.method() == TimingMethod::host_clock ? m.host_stats : summarize(event_ms);
  m.event_ms = std::move(event_ms);
  m.host_ms = std::move(host_ms);
  m.converged = criterion.converged();
  m.stop_reason = criterion.reason(wall_s);
  if (!timer.method_note().empty()) m.stop_reason += "; " + timer.method_note();
  return m;
}

// The hardware key of the visible GPUs ("h200", "2x_h200"), as system_info names it.
std::string visible_hardware_key(bool gpu) {
  SystemInfo info;
  int count = 0;
  if (gpu && cudaGetDeviceCount(&count) == cudaSuccess) {
    for (int d = 0; d < count; ++d) {
      cudaDeviceProp props{};
      if (cudaGetDeviceProperties(&props, d) != cudaSuccess) continue;
      GpuInfo g;
      g.index = d;
      g.name = props.name;
      info.gpus.push_back(g);
    }
  }
  cudaGetLastError();
  return hardware_key(info);
}

std::filesystem::path peaks_dir() {
  const char* dir = std::getenv("AISP_PEAKS_DIR");
  return dir != nullptr ? std::filesystem::path(dir) : std::filesystem::path("artifacts/peaks");
}

// Host time a sample costs beyond its events when run() does nothing: flush, synchronize, two
// event records. Subtracted before comparing host and event time.
double calibrate_launch_overhead_ms(L2Flusher& flusher, cudaStream_t stream) {
  cudaEvent_t start, stop;
  AISP_CUDA_CHECK(cudaEventCreate(&start));
  AISP_CUDA_CHECK(cudaEventCreate(&stop));
  std::vector<double> overhead;
  for (int i = 0; i < 21; ++i) {
    flusher.flush();
    AISP_CUDA_CHECK(cudaDeviceSynchronize());
    const auto t0 = std::chrono::steady_clock::now();
    AISP_CUDA_CHECK(cudaEventRecord(start, stream));
    AISP_CUDA_CHECK(cudaEventRecord(stop, stream));
    AISP_CUDA_CHECK(cudaDeviceSynchronize());
    const auto t1 = std::chrono::steady_clock::now();
    float event_ms = 0;
    AISP_CUDA_CHECK(cudaEventElapsedTime(&event_ms, start, stop));
    overhead.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count() - event_ms);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return median(overhead);
}

// Work the events on ctx.stream did not see (a side stream, the legacy default stream, a host
// thread launching later) still delays the device-wide synchronize: host time then exceeds
// event time by more than the calibrated overhead. And no variant runs faster than its roofline
// floor: beyond it, the measurement or the work is wrong.
void check_timing_integrity(PairResult& result, double launch_overhead_ms) {
  constexpr double kRooflineSlack = 1.10;  // ceilings are medians of measurements themselves
  for (const auto* m : {&*result.baseline, &*result.optimized}) {
    if (m->method != TimingMethod::host_clock) {
      const double unexplained =
          m->host_stats.median - m->stats.median - launch_overhead_ms / m->runs_per_sample;
      const double allowed = 0.10 * m->stats.median + 0.05 / m->runs_per_sample;
      result.verification.checks.push_back(
          {"work_inside_stream", unexplained <= allowed,
           fmt::format("{}: host median {:.4f} ms vs event median {:.4f} ms per run; {:.4f} ms "
                       "unexplained after {:.4f} ms of calibrated overhead (allowed {:.4f} ms){}",
                       m->variant, m->host_stats.median, m->stats.median, unexplained,
                       launch_overhead_ms / m->runs_per_sample, allowed,
                       unexplained <= allowed ? ""
                                              : ": work ran outside ctx.stream or after run() "
                                                "returned")});
    }
  }
  for (const auto& [roofline, who] :
       {std::pair{&result.roofline, "optimized"}, std::pair{&result.baseline_roofline, "baseline"}}) {
    if (!roofline->has_value()) continue;
    const Roofline& r = **roofline;
    result.verification.checks.push_back(
        {"within_roofline", r.fraction <= kRooflineSlack,
         fmt::format("{}: {:.1f}% of the {} floor ({:.4f} ms){}", who, 100 * r.fraction, r.ceiling,
                     r.floor_ms,
                     r.fraction <= kRooflineSlack
                         ? ""
                         : ": faster than the hardware allows; the workload is overstated, the "
                           "work is incomplete or the timing missed it")});
  }
}

// Whether verification got as far as comparing the outputs (both variants declared the same
// harness-owned outputs): only then may a pair with a failed check still be timed.
bool outputs_were_compared(const Verification& verification) {
  return std::any_of(verification.checks.begin(), verification.checks.end(),
                     [](const CheckOutcome& c) { return c.check == "within_tolerance"; });
}

// What a failed check does to the pair, by phase (docs/integrity.md): gate fails it and drops
// its speedup; quarantine marks it quarantined (reports show no speedup, the orchestrator
// records it in quarantine.json); detect leaves it passed, the failed checks listed in its
// verification for the reports to warn about.
void enforce_failed_checks(PairResult& result, VerifyPhase phase, std::string_view what) {
  const std::string failure = std::string(what) + first_failure(result.verification);
  switch (phase) {
  case VerifyPhase::gate:
    result.status = PairStatus::failed;
    result.reason = failure;
    result.speedup.reset();
    return;
  case VerifyPhase::quarantine:
    result.status = PairStatus::quarantined;
    result.reason = "quarantined (--verify-phase quarantine): " + failure;
    return;
  case VerifyPhase::detect:
    result.status = PairStatus::passed;
    result.reason.clear();
    return;
  }
}

}  // namespace

void measure_pair(const PairInfo& pair, const MeasurementSettings& settings, bool verify_only,
                  const WorkerChannel& channel, PairResult& result) {
  const auto baseline_probe = pair.baseline->factory();
  const auto optimized_probe = pair.optimized->factory();
  const Workload workload = baseline_probe->workload();
  result.signature = baseline_probe->signature().entries();
  result.bytes = workload.bytes;
  result.flops = workload.flops;
  result.launches = workload.launches;
  for (const auto& c : workload.counters) result.counters_per_run.emplace_back(c.name, c.per_run);

  const Requirements requirements =
      combined(baseline_probe->requirements(), optimized_probe->requirements());
  const bool gpu = !requirements.cpu_only;
  if (gpu) {
    const DeviceSnapshot snapshot = probe_device(0);
    if (auto reason = unmet_requirement(requirements, snapshot)) {
      result.status = PairStatus::skipped;
      result.reason = *reason;
      return;
    }
  }

  MeasurementStream stream(gpu);
  ContextOptions options;
  options.device = gpu ? 0 : -1;
  options.stream = stream.get();

  channel.phase("verify");
  options.seed = verification_seed(settings.seed);
  Signature signature;
  result.verification =
      verify_pair(pair.baseline->factory, pair.optimized->factory, options, &signature);
  result.signature = signature.entries();
  const bool verified = result.verification.passed;
  if (!verified) {
    enforce_failed_checks(result, settings.verify_phase, "verification failed: ");
    if (result.status == PairStatus::failed) {
      return;
    }
    if (!outputs_were_compared(result.verification)) {
      // Nothing to time against: even detect cannot measure a pair whose outputs do not match up.
      if (settings.verify_phase == VerifyPhase::detect) {
        result.status = PairStatus::failed;
        result.reason = "verification failed: " + first_failure(result.verification);
      }
      result.reason += "; not timed: its outputs could not be compared";
      return;
    }
  }
  if (verify_only) {
    if (verified) result.status = PairStatus::passed;
    return;
  }

  const NvmlProbe nvml;
  const std::string bus = gpu ? pci_bus_id(0) : std::string{};
  if (gpu) result.gpu_before = nvml.read_state(bus);

  channel.phase("warmup");
  options.seed = settings.seed;
  std::unique_ptr<L2Flusher> flusher;
  if (gpu) flusher = std::make_unique<L2Flusher>(0, stream.get());
  const double launch_overhead_ms = gpu ? calibrate_launch_overhead_ms(*flusher, stream.get()) : 0;
  VariantTimer baseline(pair.baseline->factory, options, flusher.get(),
                        nvtx_label(pair.target, pair.baseline->stem));
  VariantTimer optimized(pair.optimized->factory, options, flusher.get(),
                         nvtx_label(pair.target, pair.optimized->stem));
  baseline.prepare(settings);
  optimized.prepare(settings);

  channel.phase("timing");
  const StoppingSettings stopping = stopping_settings_from(settings);
  StoppingCriterion baseline_stop(stopping), optimized_stop(stopping);
  std::vector<double> b_event, b_host, o_event, o_host;
  MarkSeries b_marks, o_marks;
  const auto start = std::chrono::steady_clock::now();
  auto wall = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  auto take = [](VariantTimer& timer, StoppingCriterion& stop, std::vector<double>& events,
                 std::vector<double>& hosts, MarkSeries& marks) {
    const TimedSample s = timer.sample();
    const bool host = timer.method() == TimingMethod::host_clock;
    if (!host) events.push_back(s.event_ms);
    hosts.push_back(s.host_ms);
    marks.add(s.marks_ms);
    stop.add((host ? s.host_ms : s.event_ms) * 1e-3);
  };
  // Interleaved, alternating which goes first, so drift (clocks, temperature) hits both alike
  // while both sample. A variant stops sampling once its own criterion is met: a 5 ms baseline
  // need not take the 1000 samples a 0.5 ms optimized variant needs to reach its time minimum.
  bool baseline_done = false, optimized_done = false;
  for (std::size_t round = 0; !(baseline_done && optimized_done); ++round) {
    if (round % 2 == 0) {
      if (!baseline_done) take(baseline, baseline_stop, b_event, b_host, b_marks);
      if (!optimized_done) take(optimized, optimized_stop, o_event, o_host, o_marks);
    } else {
      if (!optimized_done) take(optimized, optimized_stop, o_event, o_host, o_marks);
      if (!baseline_done) take(baseline, baseline_stop, b_event, b_host, b_marks);
    }
    const double t = wall();
    baseline_done = baseline_done || baseline_stop.should_stop(t);
    optimized_done = optimized_done || optimized_stop.should_stop(t);
  }
  const double wall_s = wall();
  if (gpu) result.gpu_after = nvml.read_state(bus);

  result.baseline = summarize_variant(pair.baseline->stem, baseline, std::move(b_event),
                                      std::move(b_host), baseline_stop, wall_s);
  result.optimized = summarize_variant(pair.optimized->stem, optimized, std::move(o_event),
                                       std::move(o_host), optimized_stop, wall_s);
  result.baseline->marks = b_marks.summarize();
  result.optimized->marks = o_marks.summarize();
  const bool host = baseline.method() == TimingMethod::host_clock;
  result.speedup = bootstrap_speedup(host ? result.baseline->host_ms : result.baseline->event_ms,
                                     host ? result.optimized->host_ms : result.optimized->event_ms,
                                     settings.confidence, settings.bootstrap_resamples,
                                     settings.seed);
  const std::string key = visible_hardware_key(gpu);
  result.roofline = compute_roofline(workload, result.optimized->stats.median, key, peaks_dir(), nullptr);
  result.baseline_roofline =
      compute_roofline(workload, result.baseline->stats.median, key, peaks_dir(), nullptr);
  check_timing_integrity(result, launch_overhead_ms);
  result.verification.passed =
      std::all_of(result.verification.checks.begin(), result.verification.checks.end(),
                  [](const CheckOutcome& c) { return c.passed; });
  if (!result.verification.passed) {
    enforce_failed_checks(result, settings.verify_phase,
                          verified ? "integrity check failed during timing: "
                                   : "verification failed: ");
    return;
  }
  result.status = PairStatus::passed;
}

}  // namespace aisp
