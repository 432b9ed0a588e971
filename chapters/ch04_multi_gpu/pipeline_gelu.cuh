// The elementwise GELU both pipeline_1f1b variants run between their GEMMs (pipeline_gelu.cu),
// in its exact form gelu(z) = z·Φ(z), Φ the standard normal CDF (erf), and its derivative
// gelu'(z) = Φ(z) + z·φ(z). The forward pass keeps the pre-activation z (the backward pass needs
// it) and writes a = gelu(z); the backward pass turns the gradient of a into the gradient of z.
// bf16 storage, fp32 arithmetic. Bytes per element: forward 2 read + 2 written, backward 4 read
// + 2 written; about 20 FLOPs per element, negligible. Ceiling: HBM bandwidth (each pass is a few
// percent of a layer's GEMM time; fusing it into the GEMM is ch09/ch10's lesson, not this pair's).
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include <cstddef>

namespace aisp::ch04 {

// a[i] = gelu(z[i]) for i < count, on `stream` (the current device's). Every launch is checked;
// `count` must be a multiple of 8 and both pointers 16-byte aligned (8 bf16 per access), else
// std::invalid_argument.
void launch_gelu_forward(const __nv_bfloat16* z, __nv_bfloat16* a, std::size_t count,
                         cudaStream_t stream);

// dz[i] = da[i] · gelu'(z[i]), the same conditions.
void launch_gelu_backward(const __nv_bfloat16* z, const __nv_bfloat16* da, __nv_bfloat16* dz,
                          std::size_t count, cudaStream_t stream);

}  // namespace aisp::ch04
