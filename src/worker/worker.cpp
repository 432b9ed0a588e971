#include "worker/worker.hpp"

#include <fmt/format.h>

#include <chrono>

#include "aisp/benchmark.hpp"
#include "aisp/check.hpp"
#include "core/pair_catalog.hpp"
#include "worker/pair_measurement.hpp"
#include "worker/worker_channel.hpp"
#include "worker/worker_target.hpp"

namespace aisp {

int run_worker(const WorkerRequest& request, int out_fd) {
  const WorkerChannel channel(out_fd);
  PairResult result;
  const std::optional<PairInfo> found = begin_worker_result(request.target, channel, result);
  if (!found) return 2;
  const auto start = std::chrono::steady_clock::now();
  try {
    measure_pair(*found, request, channel, result);
  } catch (const CudaError& e) {
    result.status = PairStatus::failed;
    result.reason = e.code() == cudaErrorMemoryAllocation
                        ? fmt::format("out of device memory: {}", e.what())
                        : fmt::format("CUDA error: {}", e.what());
  } catch (const Unavailable& e) {
    // A variant found in setup() that it cannot run here (docs/contract.md): a skip, not a
    // failure, whether verification or timing set it up.
    result.status = PairStatus::skipped;
    result.reason = e.what();
  } catch (const std::bad_alloc&) {
    result.status = PairStatus::failed;
    result.reason = "out of host memory (std::bad_alloc)";
  } catch (const std::exception& e) {
    result.status = PairStatus::failed;
    result.reason = fmt::format("error: {}", e.what());
  }
  result.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (result.status == PairStatus::failed) {
    // A failed pair reports no speedup, whatever was measured before the failure.
    result.speedup.reset();
    if (result.library)
      result.library->fraction.reset();
  }
  channel.result(result);
  return 0;
}

}  // namespace aisp
