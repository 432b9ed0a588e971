// GPU-to-GPU copy bandwidth: cudaMemcpyPeerAsync of one buffer from one device to another, with
// peer access enabled when the pair supports it (NVLink or PCIe peer-to-peer); without it the
// driver stages the copy through host memory, and `method` says so. Bytes counted: the bytes
// copied, once (one direction). Information only: no Ceiling holds it.
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

}  // namespace aisp::peak
