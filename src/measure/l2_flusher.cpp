#include "measure/l2_flusher.hpp"

#include "aisp/check.hpp"

namespace aisp {

L2Flusher::L2Flusher(int device, cudaStream_t stream) : stream_(stream) {
  int l2_bytes = 0, persisting_max = 0;
  AISP_CUDA_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
  AISP_CUDA_CHECK(
      cudaDeviceGetAttribute(&persisting_max, cudaDevAttrMaxPersistingL2CacheSize, device));
  persisting_l2_supported_ = persisting_max > 0;
  // Twice the L2: L2 is split into partitions with their own replacement, so a buffer of exactly
  // the L2 size can leave lines of the previous sample behind.
  bytes_ = static_cast<std::size_t>(l2_bytes > 0 ? l2_bytes : (8 << 20)) * 2;
  AISP_CUDA_CHECK(cudaMalloc(&buffer_, bytes_));
}

L2Flusher::~L2Flusher() { cudaFree(buffer_); }

void L2Flusher::flush() {
  if (persisting_l2_supported_) {
    cudaStreamAttrValue no_window{};
    no_window.accessPolicyWindow.num_bytes = 0;
    no_window.accessPolicyWindow.hitRatio = 0;
    AISP_CUDA_CHECK(
        cudaStreamSetAttribute(stream_, cudaStreamAttributeAccessPolicyWindow, &no_window));
    AISP_CUDA_CHECK(cudaCtxResetPersistingL2Cache());
  }
  // A new value each time, so no layer can recognize the write as a no-op.
  ++fill_value_;
  AISP_CUDA_CHECK(cudaMemsetAsync(buffer_, fill_value_, bytes_, stream_));
}

}  // namespace aisp
