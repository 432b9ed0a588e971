// The elementwise kernels of pair gemm_relu (gemm_relu_kernels.cu): 16-byte accesses, a
// grid-stride loop, one pass over the data. Each returns the launch's cudaError_t.
//   launch_relu_f32_inplace       x = max(x, 0) over `count` floats (a multiple of 4)
//   launch_convert_f32_to_bf16    out = bf16(in), round to nearest even (`count` a multiple of 8)
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include <cstddef>

namespace aisp::ch09 {

cudaError_t launch_relu_f32_inplace(float* x, std::size_t count, cudaStream_t stream);
cudaError_t launch_convert_f32_to_bf16(const float* in, __nv_bfloat16* out, std::size_t count,
                                       cudaStream_t stream);

}  // namespace aisp::ch09
