// The worker Nsight Compute runs for one variant (`__worker --profile-variant`): the timed
// region exactly as the measurement runs it (same setup, L2 flush per sample, NVTX ranges), with
// no verification and a fixed handful of samples. Its timings are perturbed by the profiler's
// replays and are never reported as measurements.
#include "profile/profile_worker.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <vector>

#include "aisp/check.hpp"
#include "core/cuda_handles.hpp"
#include "core/pair_catalog.hpp"
#include "core/variant_registry.hpp"
#include "measure/l2_flusher.hpp"
#include "measure/nvtx_ranges.hpp"
#include "measure/statistics.hpp"
#include "measure/variant_timer.hpp"
#include "system/device_snapshot.hpp"
#include "worker/worker_channel.hpp"
#include "worker/worker_target.hpp"

namespace aisp {
namespace {

void profile_variant_samples(const std::string& target, const VariantInfo& variant,
                             const MeasurementSettings& settings, const WorkerChannel& channel,
                             std::optional<VariantMeasurement>& slot, PairResult& result) {
  Requirements requirements = variant.factory()->requirements();
  if (requirements.cpu_only) {
    result.status = PairStatus::skipped;
    result.reason = "CPU-only variant: Nsight Compute profiles GPU kernels only";
    return;
  }
  requirements.min_gpus = std::max(requirements.min_gpus, 1);
  if (auto reason = unmet_requirement(requirements, probe_device(0))) {
    result.status = PairStatus::skipped;
    result.reason = *reason;
    return;
  }
  int visible_gpus = 0;
  if (cudaGetDeviceCount(&visible_gpus) != cudaSuccess) visible_gpus = 0;
  const GpuAssignment gpus = assign_gpus(requirements, settings.gpus, visible_gpus);
  if (!gpus.skip_reason.empty()) {
    result.status = PairStatus::skipped;
    result.reason = gpus.skip_reason;
    return;
  }
  const CudaStream stream;
  ContextOptions options;
  options.device = 0;
  options.stream = stream.get();
  options.seed = settings.seed;
  // A multi-GPU variant: a stream per GPU (Nsight Compute profiles the kernels of every one).
  std::optional<RunDeviceStreams> device_streams;
  if (gpus.devices > 1) {
    device_streams.emplace(gpus.devices);
    options.device_streams = device_streams->handles();
    options.stream = options.device_streams.front();
  }
  L2Flusher flusher(0, options.stream);
  for (int d = 1; d < gpus.devices; ++d)
    flusher.add_device(d, options.device_streams[static_cast<std::size_t>(d)]);
  VariantTimer timer(variant.factory, options, &flusher, nvtx_label(target, variant.stem));
  channel.phase("warmup");
  timer.prepare(settings);
  channel.phase("profiled samples");
  std::vector<double> event_ms, host_ms;
  for (int i = 0; i < std::max(settings.fixed_samples, 1); ++i) {
    const TimedSample sample = timer.sample();
    event_ms.push_back(sample.event_ms);
    host_ms.push_back(sample.host_ms);
  }
  VariantMeasurement measurement;
  measurement.variant = variant.stem;
  measurement.method = timer.method();
  measurement.runs_per_sample = timer.runs_per_sample();
  measurement.rotating_sets =
      timer.method() == TimingMethod::graph_replay ? timer.rotating_sets() : 1;
  measurement.host_stats = summarize(host_ms);
  measurement.stats = summarize(event_ms);
  measurement.event_ms = std::move(event_ms);
  measurement.host_ms = std::move(host_ms);
  measurement.stop_reason = fmt::format("profile pass: {} samples under Nsight Compute (not a "
                                        "measurement)",
                                        measurement.stats.count);
  slot = std::move(measurement);
  result.status = PairStatus::passed;
}

}  // namespace

int run_profile_worker(const WorkerRequest& request, int out_fd) {
  const WorkerChannel channel(out_fd);
  PairResult result;
  const std::optional<PairInfo> found = begin_worker_result(request.target, channel, result);
  if (!found) return 2;
  const bool baseline = request.profile_variant == "baseline";
  try {
    profile_variant_samples(request.target, baseline ? *found->baseline : *found->optimized,
                            request.settings, channel,
                            baseline ? result.baseline : result.optimized, result);
  } catch (const CudaError& e) {
    result.status = PairStatus::failed;
    result.reason = fmt::format("CUDA error: {}", e.what());
  } catch (const Unavailable& e) {  // the variant cannot run here: its profile is a skip
    result.status = PairStatus::skipped;
    result.reason = e.what();
  } catch (const std::exception& e) {
    result.status = PairStatus::failed;
    result.reason = fmt::format("error: {}", e.what());
  }
  channel.result(result);
  return 0;
}

}  // namespace aisp
