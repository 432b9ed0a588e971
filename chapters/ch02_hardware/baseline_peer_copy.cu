// Baseline: the copy staged through pinned host memory, as code that knows nothing of peer
// access does it: GPU 0 copies to the host, GPU 1 copies from the host. It is the best such a
// copy can do: 8 MiB chunks, so GPU 1's upload of chunk i overlaps GPU 0's download of chunk
// i + 1 (an event per chunk orders the two streams). Every byte still crosses PCIe twice, so it
// is bounded by the slower of device-to-host and host-to-device pinned bandwidth, not by NVLink.
// Bytes: 256 MiB counted once (the problem's); 0 FLOPs. Ceiling: nvlink_peer (the problem's);
// the host_to_device_pinned and device_to_host_pinned ceilings bound this variant itself.
#include "peer_copy_common.cuh"

namespace aisp::ch02 {

struct HostStagedPeerCopy : PeerCopyProblem {
  static constexpr std::size_t kChunkBytes = std::size_t{8} << 20;
  static constexpr std::size_t kChunks = kBytes / kChunkBytes;
  static_assert(kBytes % kChunkBytes == 0, "whole chunks");

  void setup(aisp::Context& ctx) override {
    PeerCopyProblem::setup(ctx);
    staging_ = ctx.alloc("staging", aisp::DType::f32, kCount, aisp::Role::scratch,
                         aisp::Memory::pinned);
    {
      const aisp::ScopedDevice on(kSourceDevice);  // recorded on GPU 0's stream
      chunk_ready_.resize(kChunks);
      for (cudaEvent_t& e : chunk_ready_)
        AISP_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    }
    const aisp::ScopedDevice on(kDestinationDevice);  // recorded on GPU 1's stream
    AISP_CUDA_CHECK(cudaEventCreateWithFlags(&uploads_done_, cudaEventDisableTiming));
    AISP_CUDA_CHECK(cudaEventRecord(uploads_done_, ctx.stream(kDestinationDevice)));
  }

  void run(aisp::Context& ctx) override {
    cudaStream_t down = ctx.stream(kSourceDevice), up = ctx.stream(kDestinationDevice);
    auto* staging = staging_.as<unsigned char>();
    const auto* from = reinterpret_cast<const unsigned char*>(source());
    auto* to = reinterpret_cast<unsigned char*>(destination());
    {
      const aisp::ScopedDevice on(kSourceDevice);
      // The staging buffer is reused by the next call: its downloads wait for this call's
      // uploads of the previous call to finish reading it.
      AISP_CUDA_CHECK(cudaStreamWaitEvent(down, uploads_done_, 0));
      for (std::size_t c = 0; c < kChunks; ++c) {
        const std::size_t offset = c * kChunkBytes;
        AISP_CUDA_CHECK(cudaMemcpyAsync(staging + offset, from + offset, kChunkBytes,
                                        cudaMemcpyDeviceToHost, down));
        AISP_CUDA_CHECK(cudaEventRecord(chunk_ready_[c], down));
      }
    }
    const aisp::ScopedDevice on(kDestinationDevice);
    for (std::size_t c = 0; c < kChunks; ++c) {
      const std::size_t offset = c * kChunkBytes;
      AISP_CUDA_CHECK(cudaStreamWaitEvent(up, chunk_ready_[c], 0));
      AISP_CUDA_CHECK(cudaMemcpyAsync(to + offset, staging + offset, kChunkBytes,
                                      cudaMemcpyHostToDevice, up));
    }
    AISP_CUDA_CHECK(cudaEventRecord(uploads_done_, up));
  }

  void teardown(aisp::Context& /*ctx*/) override {
    for (cudaEvent_t e : chunk_ready_) static_cast<void>(cudaEventDestroy(e));
    chunk_ready_.clear();
    if (uploads_done_ != nullptr) static_cast<void>(cudaEventDestroy(uploads_done_));
    uploads_done_ = nullptr;
  }

 private:
  aisp::Tensor staging_;
  std::vector<cudaEvent_t> chunk_ready_;
  cudaEvent_t uploads_done_ = nullptr;
};

}  // namespace aisp::ch02

AISP_VARIANT(aisp::ch02::HostStagedPeerCopy)
