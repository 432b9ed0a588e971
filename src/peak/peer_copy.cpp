// GPU-to-GPU copy bandwidth: cudaMemcpyPeerAsync of one buffer from one device to another, with
// peer access enabled when the pair supports it (NVLink or PCIe peer-to-peer); without it the
// driver stages the copy through host memory, and `method` says so. Bytes counted: the bytes
// copied, once (one direction); the faster direction is the nvlink_peer ceiling. Both ways at
// once: both directions' bytes, information only.
#include <string>

#include <fmt/format.h>

#include "aisp/dtype.hpp"
#include "core/random_fill.hpp"
#include "peak/measurements.hpp"

namespace aisp::peak {
namespace {

constexpr char kSourceName[] = "bench_peak.peer_source";

// Enables access from `from` to `to` for its lifetime (if it was not already on) and restores
// the previous state and current device on the way out.
class PeerAccessScope {
 public:
  PeerAccessScope(int from, int to) : from_(from), to_(to) {
    int can_access = 0;
    AISP_CUDA_CHECK(cudaDeviceCanAccessPeer(&can_access, from, to));
    if (can_access == 0) {
      return;
    }
    AISP_CUDA_CHECK(cudaSetDevice(from));
    const cudaError_t status = cudaDeviceEnablePeerAccess(to, 0);
    if (status == cudaErrorPeerAccessAlreadyEnabled) {
      static_cast<void>(cudaGetLastError());
      available_ = true;
    } else {
      AISP_CUDA_CHECK(status);
      available_ = true;
      enabled_here_ = true;
    }
  }
  // Unchecked: a destructor cannot report, and must not hide the error that is unwinding.
  ~PeerAccessScope() {
    if (enabled_here_) {
      static_cast<void>(cudaSetDevice(from_));
      static_cast<void>(cudaDeviceDisablePeerAccess(to_));
    }
    static_cast<void>(cudaSetDevice(from_));
  }
  PeerAccessScope(const PeerAccessScope&) = delete;
  PeerAccessScope& operator=(const PeerAccessScope&) = delete;
  bool available() const { return available_; }

 private:
  int from_;
  int to_;
  bool available_ = false;
  bool enabled_here_ = false;
};

}  // namespace

PeakSamples measure_peer_copy(int from, int to, std::size_t bytes, const RepetitionPlan& plan) {
  const PeerAccessScope peer_access(from, to);
  AISP_CUDA_CHECK(cudaSetDevice(to));
  DeviceMemory destination(bytes);
  AISP_CUDA_CHECK(cudaSetDevice(from));
  DeviceMemory source(bytes);
  CudaStream stream;
  detail::fill_uniform_device(DType::f32, source.get(), bytes / sizeof(float),
                              detail::fill_key(1, kSourceName, sizeof(kSourceName) - 1), -1.0, 1.0,
                              stream.get());
  const std::vector<double> milliseconds = time_stream_repetitions(stream.get(), plan, [&] {
    AISP_CUDA_CHECK(
        cudaMemcpyPeerAsync(destination.get(), to, source.get(), from, bytes, stream.get()));
  });
  PeakSamples samples;
  samples.values =
      rates_per_second(static_cast<double>(bytes) / 1e9, milliseconds_to_seconds(milliseconds));
  samples.method =
      fmt::format("copy of {} from GPU {} to GPU {}, {}, events on GPU {}'s stream, "
                  "bytes copied (one direction)",
                  size_text(bytes), from, to,
                  peer_access.available() ? "peer access enabled"
                                          : "no peer access: the driver stages it through the host",
                  from);
  samples.tool = "cudaMemcpyPeerAsync";
  return samples;
}

PeakSamples measure_peer_copy_both_ways(int first, int second, std::size_t bytes,
                                        const RepetitionPlan& plan) {
  const PeerAccessScope first_to_second(first, second);
  const PeerAccessScope second_to_first(second, first);
  AISP_CUDA_CHECK(cudaSetDevice(second));
  DeviceMemory second_source(bytes), second_destination(bytes);
  CudaStream second_stream;
  CudaEvent joined;  // on `second`: its copy rejoins the timed stream
  detail::fill_uniform_device(DType::f32, second_source.get(), bytes / sizeof(float),
                              detail::fill_key(2, kSourceName, sizeof(kSourceName) - 1), -1.0, 1.0,
                              second_stream.get());
  AISP_CUDA_CHECK(cudaSetDevice(first));
  DeviceMemory first_source(bytes), first_destination(bytes);
  CudaStream stream;
  CudaEvent first_forked;
  detail::fill_uniform_device(DType::f32, first_source.get(), bytes / sizeof(float),
                              detail::fill_key(1, kSourceName, sizeof(kSourceName) - 1), -1.0, 1.0,
                              stream.get());
  AISP_CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<double> milliseconds = time_stream_repetitions(stream.get(), plan, [&] {
    // Both copies start after the timed stream's start event; the timed stream's stop waits for
    // the second GPU's copy, so the time covers both directions running at once.
    AISP_CUDA_CHECK(cudaEventRecord(first_forked.get(), stream.get()));
    AISP_CUDA_CHECK(cudaStreamWaitEvent(second_stream.get(), first_forked.get(), 0));
    AISP_CUDA_CHECK(cudaMemcpyPeerAsync(first_destination.get(), first, second_source.get(),
                                        second, bytes, second_stream.get()));
    AISP_CUDA_CHECK(cudaEventRecord(joined.get(), second_stream.get()));
    AISP_CUDA_CHECK(cudaMemcpyPeerAsync(second_destination.get(), second, first_source.get(),
                                        first, bytes, stream.get()));
    AISP_CUDA_CHECK(cudaStreamWaitEvent(stream.get(), joined.get(), 0));
  });
  PeakSamples samples;
  samples.values = rates_per_second(2.0 * static_cast<double>(bytes) / 1e9,
                                    milliseconds_to_seconds(milliseconds));
  samples.method = fmt::format(
      "copies of {} from GPU {} to GPU {} and from GPU {} to GPU {} at once, each on its source "
      "GPU's stream, {}; events on GPU {}'s stream around both; bytes copied in both directions",
      size_text(bytes), first, second, second, first,
      first_to_second.available() && second_to_first.available()
          ? "peer access enabled"
          : "no peer access: the driver stages them through the host",
      first);
  samples.tool = "cudaMemcpyPeerAsync";
  return samples;
}

}  // namespace aisp::peak
