// Optimized: one cudaMemcpyPeerAsync on GPU 0's stream. With peer access (enabled by the harness
// where cudaDeviceCanAccessPeer allows it) the copy engine moves the bytes straight over NVLink:
// no host memory, no second hop, and NVLink's bandwidth instead of PCIe's. Without peer access
// the driver itself stages the copy through the host, and it is no faster than the baseline.
// Bytes: 256 MiB, once; 0 FLOPs. Ceiling: nvlink_peer (it is the copy bench peak measures).
#include "peer_copy_common.cuh"

namespace aisp::ch02 {

struct MemcpyPeerCopy : PeerCopyProblem {
  void run(aisp::Context& ctx) override {
    AISP_CUDA_CHECK(cudaMemcpyPeerAsync(destination(), kDestinationDevice, source(),
                                        kSourceDevice, kBytes, ctx.stream(kSourceDevice)));
  }
};

}  // namespace aisp::ch02

AISP_VARIANT(aisp::ch02::MemcpyPeerCopy)
