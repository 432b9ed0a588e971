#include "worker/pair_measurement.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <filesystem>
#include <memory>
#include <optional>

#include "aisp/check.hpp"
#include "core/cuda_handles.hpp"
#include "measure/bootstrap.hpp"
#include "measure/interleaved_sampling.hpp"
#include "measure/l2_flusher.hpp"
#include "measure/nvtx_ranges.hpp"
#include "measure/roofline.hpp"
#include "measure/sampling_progress.hpp"
#include "measure/statistics.hpp"
#include "measure/timing_method_choice.hpp"
#include "measure/variant_timer.hpp"
#include "core/secret_seed.hpp"
#include "system/thread_census.hpp"
#include "worker/timed_call_checks.hpp"
#include "system/device_snapshot.hpp"
#include "system/nvml_probe.hpp"
#include "system/system_info.hpp"
#include "verify/pair_verifier.hpp"
#include "worker/library_reference.hpp"
#include "worker/worker_log.hpp"

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
  r.needs_one_process = !a.needs_one_process.empty() ? a.needs_one_process : b.needs_one_process;
  return r;
}

std::string pci_bus_id(int device) {
  char id[32] = {};
  if (cudaDeviceGetPCIBusId(id, sizeof(id), device) != cudaSuccess) {
    cudaGetLastError();
    return {};
  }
  return id;
}

VariantMeasurement summarize_variant(const std::string& stem, const VariantTimer& timer,
                                     SampledVariant& samples, double wall_s) {
  VariantMeasurement m;
  m.variant = stem;
  m.method = timer.method();
  m.runs_per_sample = timer.runs_per_sample();
  m.rotating_sets = timer.method() == TimingMethod::graph_replay ? timer.rotating_sets() : 1;
  m.host_stats = summarize(samples.host_ms);
  m.stats = timer.method() == TimingMethod::host_clock ? m.host_stats : summarize(samples.event_ms);
  m.event_ms = std::move(samples.event_ms);
  m.host_ms = std::move(samples.host_ms);
  m.converged = samples.criterion.converged();
  m.stop_reason = samples.criterion.reason(wall_s);
  m.marks = samples.marks.summarize();
  if (!timer.method_note().empty()) m.stop_reason += "; " + timer.method_note();
  return m;
}

// The hardware key of the visible GPUs ("h200", "2x_h200"), as system_info names it; under
// mpirun the job's: every rank's GPU (each rank sees its own alone).
std::string visible_hardware_key(bool gpu, RankExchange* ranks) {
  SystemInfo info;
  int count = 0;
  if (gpu && ranks != nullptr) {
    cudaDeviceProp props{};
    const bool known = cudaGetDeviceProperties(&props, 0) == cudaSuccess;
    cudaGetLastError();
    const std::vector<std::string> names = ranks_gather(ranks, known ? props.name : "unknown");
    for (std::size_t r = 0; r < names.size(); ++r) {
      GpuInfo g;
      g.index = static_cast<int>(r);
      g.name = names[r];
      info.gpus.push_back(g);
    }
    return hardware_key(info);
  }
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

// Host time a sample costs beyond its events when run() does nothing: flush, synchronize, two
// event records. Subtracted before comparing host and event time.
double calibrate_launch_overhead_ms(L2Flusher& flusher, cudaStream_t stream) {
  const CudaEvent start, stop;
  std::vector<double> overhead;
  for (int i = 0; i < 21; ++i) {
    flusher.flush();
    AISP_CUDA_CHECK(cudaDeviceSynchronize());
    const auto t0 = std::chrono::steady_clock::now();
    AISP_CUDA_CHECK(cudaEventRecord(start.get(), stream));
    AISP_CUDA_CHECK(cudaEventRecord(stop.get(), stream));
    AISP_CUDA_CHECK(cudaDeviceSynchronize());
    const auto t1 = std::chrono::steady_clock::now();
    float event_ms = 0;
    AISP_CUDA_CHECK(cudaEventElapsedTime(&event_ms, start.get(), stop.get()));
    overhead.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count() - event_ms);
  }
  return median(overhead);
}

// Work the events on ctx.stream did not see (a side stream, the legacy default stream, a host
// thread launching later) still delays the device-wide synchronize: host time then exceeds
// event time by more than the calibrated overhead. And no variant runs faster than its roofline
// floor: beyond it, the measurement or the work is wrong.
void check_timing_integrity(PairResult& result, double launch_overhead_ms,
                            const std::string& no_roofline) {
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
  if (!result.roofline && !no_roofline.empty())
    // Not silent: a pair whose ceiling is not measured here cannot be refused as implausible.
    result.verification.checks.push_back(
        {"within_roofline", true, "not checked: " + no_roofline});
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

// One method for the pair (measure/timing_method_choice.hpp): both replayed as a CUDA graph,
// or both timed per call. A capture that fails on one side leaves both per call unless the other
// variant forces graph replay.
void choose_timing_methods(VariantTimer& baseline, VariantTimer& optimized,
                           const MeasurementSettings& settings) {
  const TimingCandidate b = baseline.candidate(), o = optimized.candidate();
  const PairTimingChoice choice = choose_pair_timing(b, o, settings.graph_below_us);
  const bool b_graph = choice.baseline_graph && baseline.use_graph(settings, choice.baseline_note);
  const bool o_graph =
      choice.optimized_graph && optimized.use_graph(settings, choice.optimized_note);
  if (!choice.baseline_graph) baseline.use_per_call(choice.baseline_note);
  if (!choice.optimized_graph) optimized.use_per_call(choice.optimized_note);
  if (b_graph && !o_graph && b.mode != TimingMode::graph && choice.optimized_graph)
    baseline.use_per_call("timed per call like its partner, whose graph capture failed (" +
                          optimized.method_note() + ")");
  if (o_graph && !b_graph && o.mode != TimingMode::graph && choice.baseline_graph)
    optimized.use_per_call("timed per call like its partner, whose graph capture failed (" +
                           baseline.method_note() + ")");
}

// Both variants timed by one method, unless a variant says why not.
void check_timing_methods(std::vector<CheckOutcome>& checks, VariantTimer& baseline,
                          VariantTimer& optimized) {
  const bool same = baseline.method() == optimized.method();
  std::string justification = optimized.instance(0).timing_asymmetry_justification();
  if (justification.empty()) justification = baseline.instance(0).timing_asymmetry_justification();
  const std::string methods =
      fmt::format("baseline {} ({}), optimized {} ({})", timing_method_name(baseline.method()),
                  baseline.method_note(), timing_method_name(optimized.method()),
                  optimized.method_note());
  checks.push_back(
      {"timing_methods_equal", same || !justification.empty(),
       same ? methods
       : !justification.empty()
           ? fmt::format("{}; timed differently on purpose: {}", methods, justification)
           : fmt::format("{}: the variants are timed by different methods, so launch overhead "
                         "counts for one and not the other; use one timing_mode() for both, or "
                         "give timing_asymmetry_justification()",
                         methods)});
}

// Threads alive outside their variant's run(): started in a timing setup or warm-up and still
// running when sampling began, or seen by a timer before a sample or after a CPU run().
void check_timing_threads(std::vector<CheckOutcome>& checks,
                          const std::vector<HostThread>& setup_threads, VariantTimer& baseline,
                          VariantTimer& optimized) {
  std::vector<std::string> seen;
  if (!setup_threads.empty())
    seen.push_back(fmt::format("{} thread(s) started while the timers set up and warmed up, still "
                               "running when sampling began ({})",
                               setup_threads.size(), describe_threads(setup_threads)));
  for (auto [timer, who] : {std::pair{&baseline, "baseline"}, std::pair{&optimized, "optimized"}})
    for (const std::string& sighting : timer->thread_sightings())
      seen.push_back(fmt::format("{}: {}", who, sighting));
  checks.push_back(
      {"no_threads_outside_run", seen.empty(),
       seen.empty() ? "during timing, no thread was alive outside its variant's run()"
                    : fmt::format("{}: a thread alive outside its variant's run() takes a core "
                                  "from the other variant while it is timed, or does work no "
                                  "timer saw; start and join threads inside run()",
                                  fmt::join(seen, "; "))});
}

// Reports where sampling stands: to the orchestrator's display a few times a second, to the log
// every few seconds (a hang or a slow pair then shows how far it got).
class SamplingReporter {
 public:
  static constexpr double kDisplayIntervalSeconds = 0.5;
  static constexpr double kLogIntervalSeconds = 5;

  explicit SamplingReporter(const WorkerChannel& channel) : channel_(&channel) {}

  void operator()(const InterleavedSeries& samples, double t) {
    if (t - last_display_ < kDisplayIntervalSeconds)
      return;
    last_display_ = t;
    const std::string progress = describe_sampling_progress(samples, t);
    channel_->progress(progress);
    if (t - last_log_ >= kLogIntervalSeconds) {
      last_log_ = t;
      worker_log::line("sampling: " + progress);
    }
  }

 private:
  const WorkerChannel* channel_;
  double last_display_ = 0;
  double last_log_ = 0;
};

// AISP_MPI_EVERY_RANK=1 (docs/multi-gpu.md): one-GPU and CPU pairs run on every rank too.
bool every_rank_requested() {
  const char* value = std::getenv("AISP_MPI_EVERY_RANK");
  return value != nullptr && std::string_view(value) == "1";
}

// Under mpirun: whether this rank takes part in the pair, and the exchange it measures with.
// A multi-GPU pair runs on every rank (one GPU each, rank_count() == the job's size); a one-GPU
// or CPU pair on rank 0 alone, in one process like a plain run (or, with AISP_MPI_EVERY_RANK=1,
// on every rank, each its own copy, in lockstep); a pair that drives all its GPUs from one
// process is skipped on every rank with its reason. Returns the skip reason, or empty.
std::string rank_participation(const Requirements& requirements, const MeasurementSettings& settings,
                               RankExchange*& ranks) {
  if (ranks == nullptr) return {};
  if (requirements.cpu_only || requirements.min_gpus <= 1) {
    if (every_rank_requested()) return {};
    const bool rank_zero = ranks->rank() == 0;
    ranks = nullptr;  // rank 0 measures it as in one process, without the others
    return rank_zero ? std::string() : std::string(kRankZeroOnlyReason);
  }
  if (!requirements.needs_one_process.empty())
    return fmt::format("drives its {} GPUs from one process ({}), and under mpirun each rank is a "
                       "process of one GPU: run it without mpirun",
                       requirements.min_gpus, requirements.needs_one_process);
  if (requirements.min_gpus > ranks->size())
    return fmt::format("needs {} GPUs; the mpirun job has {} ranks of one GPU each",
                       requirements.min_gpus, ranks->size());
  if (settings.gpus != 0 && settings.gpus != ranks->size())
    return fmt::format("--gpus {} under an mpirun job of {} ranks: a multi-GPU pair runs on every "
                       "rank (one GPU each); drop --gpus or give it {}",
                       settings.gpus, ranks->size(), ranks->size());
  return {};
}

// Every rank's skip reason joined ("rank 1: ..."), or empty when every rank can run the pair.
std::string ranks_skip_reason(RankExchange* ranks, const std::string& mine) {
  const std::vector<std::string> all = ranks_gather(ranks, mine);
  if (std::all_of(all.begin(), all.end(), [&](const std::string& r) { return r == all.front(); }))
    return all.front();  // every rank alike (no GPU anywhere): said once
  std::string joined;
  for (std::size_t r = 0; r < all.size(); ++r)
    if (!all[r].empty())
      joined += fmt::format("{}rank {}: {}", joined.empty() ? "" : "; ", r, all[r]);
  return joined;
}

// Why the ranks cannot run a pair together when two of them drive the same GPU (NCCL refuses a
// communicator with one GPU twice, and two ranks timing on one GPU would time each other), or
// empty. The same host name and PCI bus id is the same GPU.
std::string shared_gpu_reason(RankExchange* ranks) {
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) != 0) std::snprintf(host, sizeof(host), "?");
  const std::vector<std::string> gpus =
      ranks_gather(ranks, std::string(host) + " " + pci_bus_id(0));
  for (std::size_t a = 0; a < gpus.size(); ++a)
    for (std::size_t b = a + 1; b < gpus.size(); ++b)
      if (gpus[a] == gpus[b])
        return fmt::format("ranks {} and {} drive the same GPU ({}): under mpirun each rank needs "
                           "a GPU of its own; start at most as many ranks per host as it has GPUs "
                           "(or give each its own with CUDA_VISIBLE_DEVICES / AISP_LOCAL_RANK)",
                           a, b, gpus[a]);
  return {};
}

}  // namespace

void measure_pair(const PairInfo& pair, const WorkerRequest& request, const WorkerChannel& channel,
                  PairResult& result, RankExchange* ranks) {
  const MeasurementSettings& settings = request.settings;
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
  if (const std::string reason = rank_participation(requirements, settings, ranks);
      !reason.empty()) {
    worker_log::line(fmt::format("rank {} of {}: {}", request.rank, request.rank_count, reason));
    result.status = PairStatus::skipped;
    result.reason = reason;
    return;
  }
  // Under mpirun this process drives one GPU, its rank's; the pair's other GPUs are the other
  // ranks' (rank_participation has checked min_gpus against the job's size). A one-GPU or CPU
  // pair on every rank (AISP_MPI_EVERY_RANK) is each rank's own: its context sees one process
  // (no ranks, its NCCL a communicator of one), only the harness keeps the ranks in lockstep.
  const bool multi_gpu = !requirements.cpu_only && requirements.min_gpus > 1;
  Requirements local_requirements = requirements;
  if (ranks != nullptr) {
    if (multi_gpu) local_requirements.min_gpus = 1;
    worker_log::line(fmt::format("rank {} of {}: runs the pair in lockstep with the other ranks{}",
                                 ranks->rank(), ranks->size(),
                                 multi_gpu ? ", one GPU each" : " (AISP_MPI_EVERY_RANK=1)"));
  }
  std::string skip_reason;
  if (gpu) {
    const DeviceSnapshot snapshot = probe_device(0);
    if (snapshot.error.empty())
      worker_log::line(fmt::format(
          "GPU 0 of {}: {} (sm_{}), {:.1f} GiB free", snapshot.device_count, snapshot.name,
          snapshot.compute_capability, static_cast<double>(snapshot.free_bytes) / (1u << 30)));
    if (auto reason = unmet_requirement(local_requirements, snapshot)) skip_reason = *reason;
  } else {
    worker_log::line("a CPU-only pair: no CUDA call is made");
  }
  // How many GPUs it runs on: its min_gpus, or --gpus for a multi-GPU pair (docs/multi-gpu.md).
  int visible_gpus = 0;
  if (gpu && skip_reason.empty() && cudaGetDeviceCount(&visible_gpus) != cudaSuccess)
    visible_gpus = 0;
  MeasurementSettings local_settings = settings;
  if (ranks != nullptr) local_settings.gpus = 0;
  const GpuAssignment gpus = skip_reason.empty()
                                 ? assign_gpus(local_requirements, local_settings.gpus, visible_gpus)
                                 : GpuAssignment{};
  if (skip_reason.empty()) skip_reason = gpus.skip_reason;
  // Every rank runs the pair, or none does: a rank that went on alone would wait for the others'
  // collectives until the timeout.
  if (ranks != nullptr) skip_reason = ranks_skip_reason(ranks, skip_reason);
  if (ranks != nullptr && gpu && skip_reason.empty()) skip_reason = shared_gpu_reason(ranks);
  if (!skip_reason.empty()) {
    result.status = PairStatus::skipped;
    result.reason = skip_reason;
    return;
  }
  if (gpus.devices > 1) result.gpus = gpus.devices;
  if (ranks != nullptr) {
    if (multi_gpu) result.gpus = ranks->size();
    result.ranks = ranks->size();
  }

  // GPU pairs only: a CPU pair makes no CUDA call at all. A multi-GPU pair: a stream per GPU.
  std::optional<CudaStream> stream;
  std::optional<RunDeviceStreams> device_streams;
  ContextOptions options;
  options.device = gpu ? 0 : -1;
  options.ranks = multi_gpu ? ranks : nullptr;  // what the context and the timers see
  if (gpus.devices > 1) {
    device_streams.emplace(gpus.devices);
    options.device_streams = device_streams->handles();
    options.stream = options.device_streams.front();
    worker_log::line(fmt::format("runs on {} GPUs (devices 0..{}), one stream each",
                                 gpus.devices, gpus.devices - 1));
  } else if (gpu) {
    stream.emplace();
    options.stream = stream->get();
  }

  channel.phase("verify");
  options.seed = verification_seed(settings.seed);
  Signature signature;
  result.verification = verify_pair(pair.baseline->factory, pair.optimized->factory, options,
                                    &signature, &result.precision);
  result.signature = signature.entries();
  if (result.precision) {
    result.precision->baseline.variant = pair.baseline->stem;
    result.precision->optimized.variant = pair.optimized->stem;
  }
  const bool verified = result.verification.passed;
  // Whether this rank goes on to timing; every rank must agree (below) before any does.
  const bool stop_here = [&] {
    if (!verified) {
      enforce_failed_checks(result, settings.verify_phase, "verification failed: ");
      if (result.status == PairStatus::failed) return true;
      if (!outputs_were_compared(result.verification)) {
        // Nothing to time against: even detect cannot measure a pair whose outputs do not match.
        if (settings.verify_phase == VerifyPhase::detect) {
          result.status = PairStatus::failed;
          result.reason = "verification failed: " + first_failure(result.verification);
        }
        result.reason += "; not timed: its outputs could not be compared";
        return true;
      }
    }
    if (request.verify_only) {
      if (verified) result.status = PairStatus::passed;
      return true;
    }
    return false;
  }();
  if (ranks != nullptr && !ranks_all(ranks, !stop_here) && !stop_here) {
    // This rank's checks let it go on; another rank's did not (its result says why, and the
    // orchestrators' merge reports it).
    result.status = PairStatus::skipped;
    result.reason = "not timed: verification stopped the pair on another rank";
    return;
  }
  if (stop_here) return;

  const NvmlProbe nvml;
  const std::string bus = gpu ? pci_bus_id(0) : std::string{};
  if (gpu) result.gpu_before = nvml.read_state(bus);

  channel.phase("warmup");
  options.seed = settings.seed;
  std::unique_ptr<L2Flusher> flusher;
  if (gpu) flusher = std::make_unique<L2Flusher>(0, options.stream);
  for (int d = 1; d < gpus.devices; ++d)  // a multi-GPU pair: every GPU's L2
    flusher->add_device(d, options.device_streams[static_cast<std::size_t>(d)]);
  const double launch_overhead_ms =
      gpu ? calibrate_launch_overhead_ms(*flusher, options.stream) : 0;
  const std::vector<HostThread> threads_before_timing = host_thread_census();
  VariantTimer baseline(pair.baseline->factory, options, flusher.get(),
                        nvtx_label(pair.target, pair.baseline->stem));
  VariantTimer optimized(pair.optimized->factory, options, flusher.get(),
                         nvtx_label(pair.target, pair.optimized->stem));
  if (gpu)
    worker_log::line(fmt::format("calibrated launch overhead: {:.4f} ms", launch_overhead_ms));
  baseline.warm_up(settings);
  optimized.warm_up(settings);
  choose_timing_methods(baseline, optimized, settings);
  for (const auto& [role, timer] :
       {std::pair{"baseline", &baseline}, std::pair{"optimized", &optimized}})
    worker_log::line(fmt::format("{} timed by {}, {} run{} per sample{}{}", role,
                                 timing_method_name(timer->method()), timer->runs_per_sample(),
                                 timer->runs_per_sample() == 1 ? "" : "s",
                                 timer->method_note().empty() ? "" : "; ", timer->method_note()));
  // The pair's library reference, when a third variant: the third participant of the sampling.
  // Prepared on its own (its own timing method: it is a reference, not a partner in the pair's
  // comparison) and before the thread census, so its setup's threads are not counted against the
  // pair.
  LibraryReferencePlan library = plan_library_reference(pair);
  std::optional<LibraryReferenceTimer> reference;
  if (library.reference != nullptr)
    reference.emplace(*library.reference, library.comparison->library, pair.target, gpu, options,
                      flusher.get(), settings);
  // From here on no thread may be alive that was not before the timers were set up.
  const std::vector<HostThread> threads_after_setup = host_thread_census();
  const std::vector<HostThread> setup_threads =
      threads_started_since(threads_before_timing, threads_after_setup, gpu);
  baseline.watch_threads(threads_after_setup, gpu);
  optimized.watch_threads(threads_after_setup, gpu);

  channel.phase("timing");
  TimedCallChecker checker(baseline, optimized, pair.baseline->factory, pair.optimized->factory,
                           options, ranks_root_value(ranks, draw_secret_seed()));
  std::vector<SampleSource*> sources{&baseline, &checker.optimized_source()};
  // Under mpirun the reference is sampled on every rank or on none (its run() may be a collective).
  if (ranks_all(ranks, reference && reference->timer() != nullptr)) {
    sources.push_back(reference->timer());
    worker_log::line(fmt::format("library reference {} sampled beside the pair",
                                 library.reference->stem));
  }
  InterleavedSeries samples = sample_interleaved(sources, settings, steady_wall_clock(),
                                                 SamplingReporter(channel), ranks);
  if (gpu) result.gpu_after = nvml.read_state(bus);
  {
    // Traces only after the samples: CUPTI is loaded in no process that is still timing.
    std::optional<KernelTracer> tracer;
    if (gpu) tracer.emplace();
    checker.finish(result.verification.checks, tracer ? &*tracer : nullptr);
  }
  check_timing_methods(result.verification.checks, baseline, optimized);
  check_timing_threads(result.verification.checks, setup_threads, baseline, optimized);

  result.baseline =
      summarize_variant(pair.baseline->stem, baseline, samples.samples[0], samples.wall_s);
  result.optimized =
      summarize_variant(pair.optimized->stem, optimized, samples.samples[1], samples.wall_s);
  const bool host = baseline.method() == TimingMethod::host_clock;
  result.speedup = bootstrap_speedup(host ? result.baseline->host_ms : result.baseline->event_ms,
                                     host ? result.optimized->host_ms : result.optimized->event_ms,
                                     settings.confidence, settings.bootstrap_resamples,
                                     settings.seed);
  if (library.comparison) {
    std::optional<VariantMeasurement> reference_samples;
    if (sources.size() > 2)
      reference_samples = summarize_variant(library.reference->stem, *reference->timer(),
                                            samples.samples[2], samples.wall_s);
    else if (reference)
      library.comparison->reason = reference->reason();
    complete_library_comparison(*library.comparison, result, std::move(reference_samples),
                                settings);
    result.library = std::move(library.comparison);
  }
  // A one-GPU pair on every rank (AISP_MPI_EVERY_RANK) is judged against one GPU's ceilings.
  const std::string key = visible_hardware_key(gpu, multi_gpu ? ranks : nullptr);
  std::string no_roofline;
  result.roofline = compute_roofline(workload, result.optimized->stats.median, key,
                                     request.peaks_dir, &no_roofline);
  result.baseline_roofline =
      compute_roofline(workload, result.baseline->stats.median, key, request.peaks_dir, nullptr);
  check_timing_integrity(result, launch_overhead_ms, no_roofline);
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
