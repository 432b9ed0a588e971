#include "worker/worker.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <optional>

#include "aisp/benchmark.hpp"
#include "aisp/check.hpp"
#include "core/measurement_settings.hpp"
#include "core/pair_catalog.hpp"
#include "worker/pair_measurement.hpp"
#include "worker/worker_channel.hpp"
#include "worker/worker_log.hpp"
#include "worker/worker_rank_exchange.hpp"
#include "worker/worker_target.hpp"

namespace aisp {
namespace {

void log_request(const WorkerRequest& request) {
  const char* tmpdir = std::getenv("TMPDIR");
  worker_log::line(fmt::format("worker {} {} (pid {})",
                               request.verify_only ? "verifying (no timing)" : "measuring",
                               request.target, getpid()));
  worker_log::line(
      fmt::format("settings: {}", measurement_settings_to_json(request.settings).dump()));
  worker_log::line(fmt::format("peaks directory: {}; scratch under {}", request.peaks_dir.string(),
                               tmpdir != nullptr ? tmpdir : "the system's temp directory"));
}

void log_variant(const char* role, const std::optional<VariantMeasurement>& m) {
  if (!m)
    return;
  worker_log::line(fmt::format("{} {}: {}, {} run{} per sample, {} samples, median {:.6g} ms; "
                               "stopped: {}",
                               role, m->variant, timing_method_name(m->method), m->runs_per_sample,
                               m->runs_per_sample == 1 ? "" : "s", m->stats.count, m->stats.median,
                               m->stop_reason));
}

void log_result(const PairResult& result) {
  for (const CheckOutcome& check : result.verification.checks)
    worker_log::line(
        fmt::format("check {} {}: {}", check.passed ? "ok  " : "FAIL", check.check, check.detail));
  log_variant("baseline", result.baseline);
  log_variant("optimized", result.optimized);
  if (result.speedup)
    worker_log::line(fmt::format("speedup {:.4g}x [{:.4g}, {:.4g}] at {:g}: {}",
                                 result.speedup->value, result.speedup->ci_low,
                                 result.speedup->ci_high, result.speedup->confidence,
                                 result.speedup->verdict));
  worker_log::line(fmt::format("result: {}{}{} after {:.3f} s", pair_status_name(result.status),
                               result.reason.empty() ? "" : ": ", result.reason,
                               result.wall_seconds));
}

}  // namespace

int run_worker(const WorkerRequest& request, int out_fd, int reply_fd) {
  worker_log::start();
  log_request(request);
  const WorkerChannel channel(out_fd);
  std::optional<WorkerRankExchange> ranks;
  if (request.rank_count > 1)
    ranks.emplace(channel, reply_fd, request.rank, request.rank_count, kWorkerSharedMemoryFd);
  PairResult result;
  const std::optional<PairInfo> found = begin_worker_result(request.target, channel, result);
  if (!found) {
    worker_log::line(fmt::format("result: {}", result.reason));
    return 2;
  }
  worker_log::line(fmt::format("pair {}: {} against {}", found->target, found->optimized->stem,
                               found->baseline->stem));
  const auto start = std::chrono::steady_clock::now();
  try {
    measure_pair(*found, request, channel, result, ranks ? &*ranks : nullptr);
  } catch (const CudaError& e) {
    result.status = PairStatus::failed;
    result.reason = e.code() == cudaErrorMemoryAllocation
                        ? fmt::format("out of device memory: {}", e.what())
                        : fmt::format("CUDA error: {}", e.what());
    worker_log::line(fmt::format("CUDA error (code {}): {}", e.code(), e.what()));
  } catch (const RankExchangeError& e) {
    // Another rank left the pair (a crash, a skip, a failure its own result reports) or the
    // orchestrator went away: this rank cannot go on alone.
    result.status = PairStatus::failed;
    result.reason = fmt::format("rank {} of {}: {}", request.rank, request.rank_count, e.what());
    worker_log::line(fmt::format("rank exchange ended: {}", e.what()));
  } catch (const Unavailable& e) {
    // A variant found in setup() that it cannot run here (docs/contract.md): a skip, not a
    // failure, whether verification or timing set it up.
    result.status = PairStatus::skipped;
    result.reason = e.what();
    worker_log::line(fmt::format("unavailable here: {}", e.what()));
  } catch (const std::bad_alloc&) {
    result.status = PairStatus::failed;
    result.reason = "out of host memory (std::bad_alloc)";
    worker_log::line("exception: std::bad_alloc (out of host memory)");
  } catch (const std::exception& e) {
    result.status = PairStatus::failed;
    result.reason = fmt::format("error: {}", e.what());
    worker_log::line(fmt::format("exception: {}", e.what()));
  }
  result.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (result.status == PairStatus::failed) {
    // A failed pair reports no speedup, whatever was measured before the failure.
    result.speedup.reset();
    if (result.library)
      result.library->fraction.reset();
  }
  log_result(result);
  channel.result(result);
  return 0;
}

}  // namespace aisp
