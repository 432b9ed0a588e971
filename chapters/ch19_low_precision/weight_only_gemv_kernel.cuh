// Weight-only quantized GEMV / skinny GEMM for decode (weight_only_gemv_kernel.cu):
//   y (batch × N, bf16) = x (batch × K, bf16) · Wᵀ,  W = q ∘ scales stored as
//   chapters/common/quant_weight_only.cuh describes (INT4 or INT8, bf16 scale per 128 k).
//   launch_weight_only_pack         (setup, untimed) rewrites the stored weights into the fused
//                                   kernel's tile-contiguous layout (below), byte for byte: the
//                                   same integers, in another order;
//   launch_weight_only_gemv_fused   reads that packed layout, dequantizes in registers and
//                                   multiplies on the tensor cores, every weight byte once
//                                   (batch 1..16), through a cp.async ring in shared memory;
//   launch_weight_only_gemv_direct  the same with the loads straight into registers (batch 1..8;
//                                   INT8 from launch_weight_only_pack_int8_nibbles's form);
//   launch_weight_only_gemv_bulk    INT4 at batch 1..2: persistent blocks, each streaming an equal
//                                   contiguous run of the packed tiles with the copy engine into
//                                   an mbarrier ring (optionally launched with PDL);
//   launch_weight_only_dequantize   the unfused way's first pass: W (the stored, row-major
//                                   layout) to bf16 (N × K) in memory, for a cuBLAS GEMM to read.
//
// The packed layout: the rows in tiles of 16 and k in groups of 128. Tile t, group G is one
// contiguous chunk of 16·128·bits/8 bytes (1 KiB INT4, 2 KiB INT8), chunks ordered (t, G), so a
// tile's whole row set over K is one contiguous stream. Inside a chunk, 16-byte piece v (0..L-1,
// L = 2 for INT4, 4 for INT8) of lane l (0..31) sits at byte 512·v + 16·l: lane l = 4g + q holds
// the 32 k = 32q .. 32q+31 of the group for rows g (pieces v < L/2) and g + 8 (v >= L/2), each
// row's bytes copied unchanged from the stored row (INT4 nibbles keep their interleave). One
// 16-byte load per lane then reads 512 contiguous bytes per warp.
//
// N must be a multiple of 16 and K of 128; the fused kernel also needs, except for INT8 at batch
// <= 8, N a multiple of 32 and K of 256 (two 16-row tiles per warp, K split between two warps),
// and for INT4 at batch <= 8 K <= 8192 (its per-group x sums in shared memory). CUDA only (no
// harness headers); each returns the launch's status (cudaErrorInvalidValue for a shape or batch it
// does not take).
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include <cstdint>

namespace aisp::ch19 {

inline constexpr int kWeightOnlyMaxBatch = 16;

cudaError_t launch_weight_only_pack(int bits, const std::uint8_t* w, int n, int k,
                                    std::uint8_t* w_packed, cudaStream_t stream);

cudaError_t launch_weight_only_gemv_fused(int bits, const std::uint8_t* w_packed,
                                          const __nv_bfloat16* scales, const __nv_bfloat16* x,
                                          __nv_bfloat16* y, int n, int k, int batch,
                                          cudaStream_t stream);

// The direct kernel: the same packed weights loaded straight into registers (no shared-memory
// ring), short blocks of one row set, batch 1..8. `two_tiles` (INT4): two 16-row tiles per warp,
// sharing x; `int8_nibbles` (INT8) reads weights packed by launch_weight_only_pack_int8_nibbles:
// each byte u = q + 128 split into two nibbles that become bf16 with one LOP3 each, as INT4's do
// (q = 16 (128 + high) + (128 + low) - 2304), two MMAs per step instead of a 5-instruction
// conversion per pair. N a multiple of 32 (`two_tiles`) or 16, K of 512 (the configurations are
// listed at the launcher).
enum class WeightOnlyDirectShape { two_tiles, int8_nibbles };

cudaError_t launch_weight_only_gemv_direct(int bits, const std::uint8_t* w_packed,
                                           const __nv_bfloat16* scales, const __nv_bfloat16* x,
                                           __nv_bfloat16* y, int n, int k, int batch,
                                           WeightOnlyDirectShape shape, cudaStream_t stream);

// The bulk kernel: INT4, batch 1..2; persistent blocks, 2 per SM, each streaming an equal run of
// whole 16-row tiles of the packed weights through a shared-memory ring that the copy engine fills
// (cp.async.bulk, L2 evict-first), each consumer warp taking two adjacent 128-k groups per 16 KiB
// stage; fp16 fragments (x scaled per call by a power of two into fp16's range, kept in shared
// memory). N a multiple of 16, K of 2048, and the block's shared memory (ring, scales, x, slots)
// small enough for 2 blocks per SM (cudaErrorInvalidValue otherwise). `programmatic_launch`:
// launched with programmatic dependent launch (PDL): the weight copies start before
// griddepcontrol.wait, x is read and y written only after it. Needs sm_90.
cudaError_t launch_weight_only_gemv_bulk(const std::uint8_t* w_packed, const __nv_bfloat16* scales,
                                         const __nv_bfloat16* x, __nv_bfloat16* y, int n, int k,
                                         int batch, bool programmatic_launch, cudaStream_t stream);

// The packed INT8 layout of launch_weight_only_pack with each 32-bit word rewritten as bytes
// q + 128 in the order k + {0, 2, 1, 3} (for launch_weight_only_gemv_direct's int8_nibbles).
cudaError_t launch_weight_only_pack_int8_nibbles(const std::uint8_t* w, int n, int k,
                                                 std::uint8_t* w_packed, cudaStream_t stream);

cudaError_t launch_weight_only_dequantize(int bits, const std::uint8_t* w,
                                          const __nv_bfloat16* scales, int n, int k,
                                          __nv_bfloat16* w_bf16, cudaStream_t stream);

}  // namespace aisp::ch19
