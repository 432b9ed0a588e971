// What a kernel launch costs when the kernel does nothing: launch then synchronize (the round
// trip a host loop that waits for each kernel pays), launches back to back then one synchronize
// (the rate the host can enqueue and the GPU retire them), and a CUDA graph of such kernels
// replayed (cost per node: the graph_node_launch ceiling launch-bound pairs are divided by). All
// on the host's steady clock; microseconds per launch or node. Every launch is checked, as
// everywhere in aisp; cudaGetLastError costs tens of nanoseconds, which the figures include.
#include <string>

#include "aisp/graph_capture.hpp"
#include "peak/measurements.hpp"

namespace aisp::peak {
namespace {

__global__ void empty_kernel() {}

std::vector<double> microseconds_per(int count, const std::vector<double>& seconds) {
  std::vector<double> microseconds;
  microseconds.reserve(seconds.size());
  for (const double s : seconds) {
    microseconds.push_back(s * 1e6 / count);
  }
  return microseconds;
}

}  // namespace

PeakSamples measure_launch_with_sync(int launches, const RepetitionPlan& plan) {
  CudaStream stream;
  const std::vector<double> seconds = time_host_repetitions(plan, [&] {
    for (int i = 0; i < launches; ++i) {
      empty_kernel<<<1, 1, 0, stream.get()>>>();
      AISP_CHECK_LAUNCH();
      AISP_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
    }
  });
  PeakSamples samples;
  samples.values = microseconds_per(launches, seconds);
  samples.method = std::to_string(launches) +
                   " launches of an empty kernel (1 block of 1 thread), cudaStreamSynchronize "
                   "after each, host clock, per launch";
  samples.tool = "CUDA runtime <<<>>> launch";
  return samples;
}

PeakSamples measure_launch_async(int launches, const RepetitionPlan& plan) {
  CudaStream stream;
  const std::vector<double> seconds = time_host_repetitions(plan, [&] {
    for (int i = 0; i < launches; ++i) {
      empty_kernel<<<1, 1, 0, stream.get()>>>();
      AISP_CHECK_LAUNCH();
    }
    AISP_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  });
  PeakSamples samples;
  samples.values = microseconds_per(launches, seconds);
  samples.method = std::to_string(launches) +
                   " launches of an empty kernel back to back, one cudaStreamSynchronize at the "
                   "end, host clock from the first launch to the end, per launch";
  samples.tool = "CUDA runtime <<<>>> launch";
  return samples;
}

PeakSamples measure_graph_node_cost(int nodes, const RepetitionPlan& plan) {
  CudaStream stream;
  const CapturedGraph graph = capture_graph(stream.get(), [nodes](cudaStream_t capturing) {
    for (int i = 0; i < nodes; ++i) {
      empty_kernel<<<1, 1, 0, capturing>>>();
      AISP_CHECK_LAUNCH();
    }
  });
  graph.upload(stream.get());
  AISP_CUDA_CHECK(cudaStreamSynchronize(stream.get()));

  const std::vector<double> seconds = time_host_repetitions(plan, [&] {
    graph.launch(stream.get());
    AISP_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  });
  PeakSamples samples;
  samples.values = microseconds_per(nodes, seconds);
  samples.method = "a CUDA graph of " + std::to_string(nodes) +
                   " empty kernels captured from one stream (a chain), replayed with "
                   "cudaGraphLaunch + cudaStreamSynchronize, host clock, per node; measured "
                   "before any other figure (a fresh context: later it can read ~35% higher)";
  samples.tool = "CUDA graphs (cudaGraphLaunch)";
  return samples;
}

}  // namespace aisp::peak
