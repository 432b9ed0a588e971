// Blackwell's block-scaled formats (fifth-generation tensor cores, tcgen05; cuBLASLt's
// VEC32_UE8M0 and VEC16_UE4M3 scale modes), quantized from bf16 row-major matrices whose columns
// are the GEMM's reduction dimension K:
//   MXFP8  e4m3 elements, one UE8M0 factor (a power of two, byte = exponent + 127) per 32 k:
//          factor 2^ceil(log2(amax/448)), so no element saturates;
//   NVFP4  e2m1 elements (values 0, ±0.5, ±1, ±1.5, ±2, ±3, ±4, ±6; two per byte, the lower k in
//          the low nibble), one UE4M3 factor per 16 k, and one fp32 factor per tensor,
//          g = amax / (448 · 6), so the block factors amax_b / (6 g) fit e4m3's range; an
//          element is e2m1(x / (s_b · g)). The per-tensor factor goes to the GEMM's alpha.
// Both store their block factors in cuBLASLt's tiled layout (block_scale_tiled_index): the
// rows × column-blocks matrix of factors in tiles of 128 rows × 4 column blocks, 512 contiguous
// bytes each, tiles in row-major order; in a tile the factor of (r, c) is at byte
// (r % 32)·16 + (r % 128 / 32)·4 + c % 4. rows and cols must be multiples of 128 (whole tiles).
// Nothing here has run: this project has no Blackwell GPU (the variants that use it declare
// compute capability 10.0 and are skipped elsewhere).
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace aisp::common {

__host__ __device__ inline std::size_t block_scale_tiled_bytes(int rows, int column_blocks) {
  return static_cast<std::size_t>((rows + 127) / 128) * 128 *
         static_cast<std::size_t>((column_blocks + 3) / 4) * 4;
}

__host__ __device__ inline std::size_t block_scale_tiled_index(int row, int column_block,
                                                               int column_blocks) {
  const std::size_t tiles_across = static_cast<std::size_t>((column_blocks + 3) / 4);
  const std::size_t tile = static_cast<std::size_t>(row / 128) * tiles_across +
                           static_cast<std::size_t>(column_block / 4);
  return tile * 512 + static_cast<std::size_t>(row % 32) * 16 +
         static_cast<std::size_t>((row % 128) / 32) * 4 +
         static_cast<std::size_t>(column_block % 4);
}

// x (rows × cols bf16) -> q (rows × cols e4m3) and factors (block_scale_tiled_bytes(rows,
// cols/32) bytes, UE8M0).
cudaError_t launch_quantize_mxfp8(const __nv_bfloat16* x, int rows, int cols, std::uint8_t* q,
                                  std::uint8_t* factors, cudaStream_t stream);

// x -> q (rows × cols/2 bytes, e2m1 pairs) and factors (block_scale_tiled_bytes(rows, cols/16)
// bytes, UE4M3), given the tensor's amax on the device (one float, e.g. from
// launch_absmax_partials_bf16 + launch_e4m3_scales_from_partials's partials reduced).
cudaError_t launch_quantize_nvfp4(const __nv_bfloat16* x, int rows, int cols, const float* amax,
                                  std::uint8_t* q, std::uint8_t* factors, cudaStream_t stream);

// The per-tensor factor NVFP4 uses for a tensor of this amax (the alpha share of the GEMM).
__host__ __device__ inline float nvfp4_tensor_factor(float amax) {
  return amax > 0.0f ? amax / (448.0f * 6.0f) : 1.0f;
}

}  // namespace aisp::common
