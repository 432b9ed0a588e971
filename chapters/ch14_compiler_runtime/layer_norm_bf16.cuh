// Row-wise LayerNorm on bf16 rows (fp32 math, two-pass variance, biased as torch.nn.LayerNorm):
// y = (x - mean) / sqrt(var + eps) · gamma + beta. Compiled once (layer_norm_bf16.cu); used by the
// three-kernel ln_gelu_mask baseline and by both transformer_block variants.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

namespace aisp::ch14 {

// Row lengths this launcher has a kernel for (one instantiation each, in layer_norm_bf16.cu).
inline constexpr int kLayerNormCols = 4096;

// x, y: rows × cols row-major; gamma, beta: cols. Throws std::invalid_argument for a row length
// other than kLayerNormCols or pointers not 16-byte aligned; launch errors are checked.
void launch_layer_norm_bf16(const __nv_bfloat16* x, const __nv_bfloat16* gamma,
                            const __nv_bfloat16* beta, __nv_bfloat16* y, int rows, int cols,
                            float eps, cudaStream_t stream);

}  // namespace aisp::ch14
