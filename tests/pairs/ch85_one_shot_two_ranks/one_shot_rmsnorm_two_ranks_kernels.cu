// Test-only kernels of ch97:one_shot_rmsnorm_two_ranks: ch04's all_reduce_rmsnorm kernels,
// compiled into the test suite from their one source (the test suite does not link the chapters),
// and the baseline's bf16 add.
#include "../../../chapters/ch04_multi_gpu/all_reduce_rmsnorm_kernels.cu"

#include "one_shot_rmsnorm_two_ranks_problem.hpp"

namespace aisp::test_pairs {
namespace {

__global__ void add_bf16_kernel(const __nv_bfloat162* a, const __nv_bfloat162* b,
                                __nv_bfloat162* out, std::size_t pairs) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < pairs) {
    const float2 x = __bfloat1622float2(a[i]);
    const float2 y = __bfloat1622float2(b[i]);
    out[i] = __floats2bfloat162_rn(x.x + y.x, x.y + y.y);
  }
}

}  // namespace

void launch_add_bf16(const __nv_bfloat16* a, const __nv_bfloat16* b, __nv_bfloat16* out,
                     std::size_t n, cudaStream_t stream) {
  const std::size_t pairs = n / 2;
  const unsigned blocks = static_cast<unsigned>((pairs + 255) / 256);
  add_bf16_kernel<<<blocks, 256, 0, stream>>>(reinterpret_cast<const __nv_bfloat162*>(a),
                                              reinterpret_cast<const __nv_bfloat162*>(b),
                                              reinterpret_cast<__nv_bfloat162*>(out), pairs);
  AISP_CHECK_LAUNCH();
}

}  // namespace aisp::test_pairs
