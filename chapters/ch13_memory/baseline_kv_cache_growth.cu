// Baseline: the KV cache grown by reallocation at every decode step. Step t allocates K and V
// buffers one token longer (cudaMallocAsync, the stream-ordered pool: no device-wide sync),
// copies the t tokens of every (sequence, KV head) row into them (cudaMemcpy2DAsync, row pitch
// growing by one token), appends the step's token (one kernel for K and V) and frees the old
// buffers. The last step's buffers are the result tensors. Over 512 steps the copies move
// Σ t = 130 816 token rows × 64 heads × 512 bytes × 2 (read + write) = 8.6 GB, against the
// 33.6 MB the problem needs; and each step costs 7 stream operations.
// Ceiling: HBM bandwidth (the copies) and the per-operation enqueue cost.
#include "kv_cache_growth_common.cuh"

namespace aisp::ch13 {

struct KvCacheReallocCopy : KvCacheGrowthProblem {
  void run(aisp::Context& ctx) override {
    const cudaStream_t stream = ctx.stream();
    constexpr std::size_t kTokenBytes = kHeadDim * sizeof(__nv_bfloat16);
    __nv_bfloat16 *k_old = nullptr, *v_old = nullptr;
    for (int t = 0; t < kSteps; ++t) {
      const std::size_t tokens = static_cast<std::size_t>(t) + 1;
      __nv_bfloat16 *k_new = k_cache(), *v_new = v_cache();
      if (t + 1 < kSteps) {
        AISP_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&k_new),
                                        kRows * tokens * kTokenBytes, stream));
        AISP_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&v_new),
                                        kRows * tokens * kTokenBytes, stream));
      }
      if (t > 0) {
        AISP_CUDA_CHECK(cudaMemcpy2DAsync(k_new, tokens * kTokenBytes, k_old, t * kTokenBytes,
                                          t * kTokenBytes, kRows, cudaMemcpyDeviceToDevice,
                                          stream));
        AISP_CUDA_CHECK(cudaMemcpy2DAsync(v_new, tokens * kTokenBytes, v_old, t * kTokenBytes,
                                          t * kTokenBytes, kRows, cudaMemcpyDeviceToDevice,
                                          stream));
        AISP_CUDA_CHECK(cudaFreeAsync(k_old, stream));
        AISP_CUDA_CHECK(cudaFreeAsync(v_old, stream));
      }
      launch_append_contiguous({k_new, v_new, new_k(t), new_v(t)}, kRows, static_cast<int>(tokens),
                               t, kHeadDim, stream);
      AISP_CHECK_LAUNCH();
      k_old = k_new;
      v_old = v_new;
    }
  }
};

}  // namespace aisp::ch13

AISP_VARIANT(aisp::ch13::KvCacheReallocCopy)
