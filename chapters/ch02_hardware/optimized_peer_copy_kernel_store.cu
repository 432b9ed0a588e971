// Optimized: a kernel on GPU 0 loads its own memory and stores straight into GPU 1's, through the
// peer mapping (a plain pointer into the other GPU's memory, usable once peer access is enabled).
// The stores travel over NVLink as posted writes; no copy engine is involved, so this is also how
// a fused kernel (a reduction, an all-gather inside a GEMM epilogue) writes its result to a peer.
// 16-byte vector loads and stores, four in flight per thread, a grid of 4 blocks per SM. Needs
// peer access between the two GPUs; without it the variant is skipped with the reason.
// Bytes: 256 MiB, once (read locally, stored remotely); 0 FLOPs. Ceiling: nvlink_peer.
#include "peer_copy_common.cuh"

namespace aisp::ch02 {
namespace {

constexpr int kThreads = 256;
constexpr int kVectorsPerThread = 4;

// Each thread copies kVectorsPerThread float4s per step, all loads issued before the stores.
__global__ void store_to_peer(const float4* __restrict__ source, float4* __restrict__ peer,
                              std::size_t vectors) {
  const std::size_t step = static_cast<std::size_t>(gridDim.x) * blockDim.x * kVectorsPerThread;
  for (std::size_t base = static_cast<std::size_t>(blockIdx.x) * blockDim.x * kVectorsPerThread +
                          threadIdx.x;
       base < vectors; base += step) {
    float4 v[kVectorsPerThread];
#pragma unroll
    for (int k = 0; k < kVectorsPerThread; ++k) {
      const std::size_t i = base + static_cast<std::size_t>(k) * blockDim.x;
      if (i < vectors) v[k] = source[i];
    }
#pragma unroll
    for (int k = 0; k < kVectorsPerThread; ++k) {
      const std::size_t i = base + static_cast<std::size_t>(k) * blockDim.x;
      if (i < vectors) peer[i] = v[k];
    }
  }
}

}  // namespace

struct KernelStorePeerCopy : PeerCopyProblem {
  void setup(aisp::Context& ctx) override {
    if (!ctx.peer_access(kSourceDevice, kDestinationDevice))
      throw aisp::Unavailable("GPU 0 cannot store into GPU 1's memory: the two GPUs have no peer "
                              "access (cudaDeviceCanAccessPeer is 0; no NVLink or PCIe "
                              "peer-to-peer between them); run it on GPUs that have it");
    PeerCopyProblem::setup(ctx);
    blocks_ = static_cast<unsigned>(4 * ctx.device_properties().multiProcessorCount);
  }

  void run(aisp::Context& ctx) override {
    static_assert(kBytes % sizeof(float4) == 0, "whole float4s");
    store_to_peer<<<blocks_, kThreads, 0, ctx.stream(kSourceDevice)>>>(
        reinterpret_cast<const float4*>(source()), reinterpret_cast<float4*>(destination()),
        kBytes / sizeof(float4));
    AISP_CHECK_LAUNCH();
  }

 private:
  unsigned blocks_ = 0;
};

}  // namespace aisp::ch02

AISP_VARIANT(aisp::ch02::KernelStorePeerCopy)
