// RMSNorm with its input stored in fp32 or in bf16 (rmsnorm_storage_kernel.cu):
//   y[t][i] = x[t][i] / sqrt(mean_i(x[t][i]^2) + eps) · gamma[i], computed in fp32, y stored bf16.
// One block per row; hidden must be a multiple of 2048 and at most 16384 (the row is held in
// registers: 256 threads × up to 64 values). CUDA only; each returns the launch's status.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

namespace aisp::ch19 {

cudaError_t launch_rmsnorm_f32_storage(const float* x, const float* gamma, int tokens, int hidden,
                                       float eps, __nv_bfloat16* y, cudaStream_t stream);
cudaError_t launch_rmsnorm_bf16_storage(const __nv_bfloat16* x, const __nv_bfloat16* gamma,
                                        int tokens, int hidden, float eps, __nv_bfloat16* y,
                                        cudaStream_t stream);

}  // namespace aisp::ch19
