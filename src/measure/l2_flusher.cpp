#include "measure/l2_flusher.hpp"

#include "aisp/check.hpp"
#include "aisp/context.hpp"

namespace aisp {

namespace {

// Twice the L2: L2 is split into partitions with their own replacement, so a buffer of exactly the
// L2 size can leave lines of the previous sample behind.
std::size_t flush_bytes(int device) {
  int l2_bytes = 0;
  AISP_CUDA_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
  return static_cast<std::size_t>(l2_bytes > 0 ? l2_bytes : (8 << 20)) * 2;
}

}  // namespace

L2Flusher::L2Flusher(int device, cudaStream_t stream)
    : stream_(stream), buffer_(flush_bytes(device)) {
  int persisting_max = 0;
  AISP_CUDA_CHECK(
      cudaDeviceGetAttribute(&persisting_max, cudaDevAttrMaxPersistingL2CacheSize, device));
  persisting_l2_supported_ = persisting_max > 0;
}

void L2Flusher::add_device(int device, cudaStream_t stream) {
  const ScopedDevice on(device);  // its buffer on that GPU
  other_devices_.emplace_back(device, std::make_unique<L2Flusher>(device, stream));
}

void L2Flusher::flush() {
  for (auto& [device, flusher] : other_devices_) {
    const ScopedDevice on(device);  // the persisting-L2 reset applies to the current device
    flusher->flush();
  }
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
  AISP_CUDA_CHECK(cudaMemsetAsync(buffer_.get(), fill_value_, buffer_.bytes(), stream_));
}

}  // namespace aisp
