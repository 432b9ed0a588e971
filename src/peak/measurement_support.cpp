// What every measurement of src/peak/ shares: warm-up then timed repetitions (events on the
// stream for device work, the host's steady clock for work the host waits for), the grid that
// fills the GPU, and the conversion of times to rates.
#include <algorithm>
#include <chrono>

#include "aisp/check.hpp"
#include "peak/measurements.hpp"

namespace aisp::peak {
namespace {

// A warm-up that never ends (work of zero measured time) stops after this many calls.
constexpr int kMaxWarmupCalls = 10000;

}  // namespace

std::vector<double> time_stream_repetitions(cudaStream_t stream, const RepetitionPlan& plan,
                                            const std::function<void()>& enqueue) {
  CudaEvent start;
  CudaEvent stop;
  const auto timed_call = [&] {
    AISP_CUDA_CHECK(cudaEventRecord(start.get(), stream));
    enqueue();
    AISP_CUDA_CHECK(cudaEventRecord(stop.get(), stream));
    AISP_CUDA_CHECK(cudaEventSynchronize(stop.get()));
    float milliseconds = 0;
    AISP_CUDA_CHECK(cudaEventElapsedTime(&milliseconds, start.get(), stop.get()));
    return static_cast<double>(milliseconds);
  };
  double warmup_ms = 0;
  for (int call = 0; call < kMaxWarmupCalls && (call == 0 || warmup_ms < plan.warmup_s * 1e3);
       ++call) {
    warmup_ms += timed_call();
  }
  std::vector<double> milliseconds;
  milliseconds.reserve(static_cast<std::size_t>(plan.repetitions));
  for (int repetition = 0; repetition < plan.repetitions; ++repetition) {
    milliseconds.push_back(timed_call());
  }
  return milliseconds;
}

std::vector<double> time_host_repetitions(const RepetitionPlan& plan,
                                          const std::function<void()>& run) {
  using Clock = std::chrono::steady_clock;
  const auto timed_call = [&] {
    const Clock::time_point begin = Clock::now();
    run();
    return std::chrono::duration<double>(Clock::now() - begin).count();
  };
  double warmup_s = 0;
  for (int call = 0; call < kMaxWarmupCalls && (call == 0 || warmup_s < plan.warmup_s); ++call) {
    warmup_s += timed_call();
  }
  std::vector<double> seconds;
  seconds.reserve(static_cast<std::size_t>(plan.repetitions));
  for (int repetition = 0; repetition < plan.repetitions; ++repetition) {
    seconds.push_back(timed_call());
  }
  return seconds;
}

int full_grid_blocks(const void* kernel, int threads, int sm_count) {
  int blocks_per_sm = 0;
  AISP_CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kernel, threads, 0));
  return std::max(blocks_per_sm, 1) * std::max(sm_count, 1);
}

std::vector<double> rates_per_second(double amount, const std::vector<double>& seconds) {
  std::vector<double> rates;
  rates.reserve(seconds.size());
  for (const double s : seconds) {
    rates.push_back(amount / s);
  }
  return rates;
}

std::vector<double> milliseconds_to_seconds(std::vector<double> milliseconds) {
  for (double& value : milliseconds) {
    value *= 1e-3;
  }
  return milliseconds;
}

}  // namespace aisp::peak
