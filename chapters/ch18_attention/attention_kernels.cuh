// Launchers of the ch18 attention kernels, one .cu file each (compiled once, shared by the
// variants, the ch13 KV-cache pairs, the flash-attention lab and scripts/probes/
// attention_probe.cu). No harness types here: plain device pointers, shapes and a stream.
// A launcher throws std::invalid_argument for a shape it was not built for; the caller checks
// the launch itself (AISP_CHECK_LAUNCH()).
#pragma once

#include <cuda.h>  // CUtensorMap (a type only)
#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include "../common/attention_kv_cache.cuh"
#include "../common/attention_shapes.cuh"

namespace aisp::ch18 {

using attention::DecodeShape;
using attention::ForwardShape;

// The forward problem's BF16 tensors, [B, H, S, D] contiguous.
struct ForwardTensors {
  const __nv_bfloat16* q = nullptr;
  const __nv_bfloat16* k = nullptr;
  const __nv_bfloat16* v = nullptr;
  __nv_bfloat16* o = nullptr;
};

// Under a mask: visit every key tile and mask element by element (the dense kernel), or skip the
// tiles no query of the block can see.
enum class MaskedTiles { compute, skip };

// Throws unless the flash kernels were built for the shape (head_dim 64/128, seq % 128 == 0).
void check_flash_shape(const ForwardShape& shape, const char* kernel);

// row_softmax.cu: probs[r][c] = softmax(scores[r][:])[c] in BF16, rows of 4096 FP32 scores.
void launch_row_softmax(const float* scores, __nv_bfloat16* probs, long long rows, int cols,
                        cudaStream_t stream);

// flash_attention_fa2.cu: mma.sync, K/V through shared memory with cp.async.
void launch_flash_fa2(const ForwardShape& shape, const ForwardTensors& tensors, MaskedTiles masked,
                      cudaStream_t stream);

// flash_attention_fa2_tma.cu: the same warps' arithmetic, K/V brought by TMA into a two-stage
// mbarrier pipeline. The tensor maps are encoded once (make_flash_tma_maps, in setup).
struct FlashTmaMaps {
  CUtensorMap q, k, v;
};
FlashTmaMaps make_flash_tma_maps(const ForwardShape& shape, const ForwardTensors& tensors);
void launch_flash_fa2_tma(const ForwardShape& shape, const FlashTmaMaps& maps, __nv_bfloat16* o,
                          MaskedTiles masked, cudaStream_t stream);
// The same kernel with the Q·Kᵀ k-loop rolled (flash_tile_mma_sync.cuh, warp_scores): ptxas no
// longer hoists later k-steps' fragments, and the D 128 kernel fits 255 registers without the
// 136 bytes of spills of the unrolled one. Unmasked, head_dim 128 only.
void launch_flash_fa2_tma_rolled(const ForwardShape& shape, const FlashTmaMaps& maps,
                                 __nv_bfloat16* o, cudaStream_t stream);
#ifdef AISP_ATTENTION_PROBE_SWEEP
// Probe only: compute_keys 64 or 32 per pass, step_unroll 8, 4 (32 only), 2 or 1.
bool launch_flash_fa2_tma_config(const ForwardShape& shape, const FlashTmaMaps& maps,
                                 __nv_bfloat16* o, int compute_keys, int step_unroll,
                                 cudaStream_t stream);
#endif

// flash_attention_fa3.cu: wgmma + TMA, a producer warp and two consumer warpgroups (sm_90a).
// Needs the maps of make_flash_wgmma_maps or make_flash_wgmma_maps_token_major (boxes sized for
// its tiles).
// Where head h of sequence b lives in the maps' 2D matrices and in O: its token s is matrix row
// b·rows_per_batch + h·rows_per_head + s, its dims the columns from h·cols_per_head on; O's rows
// are o_row_pitch elements apart. [B, H, S, D]: {H·S, S, 0, D}; token-major: {S, 0, D, pitch}.
// Block order. heads_per_group 0: the grid is (S / 128, H, B), each head's query blocks in a row
// (under a mask the longest first). heads_per_group G > 0: a 1D grid in groups of G (sequence,
// head)s; within a group the query blocks go from the longest to the shortest with the heads
// fastest, so the scheduler (which dispatches in block order) starts the G heads' longest causal
// blocks together and the last wave holds short ones, while only G heads' K and V are in use at
// a time (the token-major maps set 16).
struct FlashHeadLayout {
  int rows_per_batch = 0;
  int rows_per_head = 0;
  int cols_per_head = 0;
  int o_row_pitch = 0;
  int heads_per_group = 0;
};
struct FlashWgmmaMaps {
  CUtensorMap q, k, v;
  FlashHeadLayout layout;
};
// Q, K, V, O as ForwardTensors say: [B, H, S, D] contiguous.
FlashWgmmaMaps make_flash_wgmma_maps(const ForwardShape& shape, const ForwardTensors& tensors);
// Token-major Q, K, V, O: row b·S + s holds token s of sequence b, head h in the D columns from
// h·D on, rows qkv_row_pitch (Q, K, V) and o_row_pitch (O) elements apart: what a fused QKV
// projection writes ([B·S, 3·H·D], Q | K | V side by side: the three pointers H·D apart, pitch
// 3·H·D) and what the output projection reads ([B·S, H·D]). The kernel reads the heads straight
// out of that matrix; nothing is permuted. Pitches: multiples of 8 elements (16-byte TMA rows).
FlashWgmmaMaps make_flash_wgmma_maps_token_major(const ForwardShape& shape,
                                                 const ForwardTensors& tensors,
                                                 long long qkv_row_pitch, long long o_row_pitch);
void launch_flash_fa3(const ForwardShape& shape, const FlashWgmmaMaps& maps, __nv_bfloat16* o,
                      MaskedTiles masked, cudaStream_t stream);
// The same kernel with the two consumer warpgroups' GEMM issues alternating through named
// barriers (ping-pong: one warpgroup's softmax under the other's MMAs). Unmasked, head_dim 64
// (and 128 in probe builds, -DAISP_ATTENTION_PROBE_SWEEP).
void launch_flash_fa3_pingpong(const ForwardShape& shape, const FlashWgmmaMaps& maps,
                               __nv_bfloat16* o, cudaStream_t stream);
// flash_attention_fa3.cu: the unmasked D 64 rungs past the first: `consumers` warpgroups of 64
// query rows (2 or 3), ping-pong turns (2 only), and how the softmax forms its row sums: fp32
// (FADD), tensor_sums (8 extra columns of P·V against ones; three consumers only).
enum class Fa3D64Softmax { fp32, tensor_sums };
struct Fa3D64Kernel {
  int consumers = 2;
  bool pingpong = false;
  Fa3D64Softmax softmax = Fa3D64Softmax::fp32;
};
void launch_flash_fa3_d64(const ForwardShape& shape, const FlashWgmmaMaps& maps, __nv_bfloat16* o,
                          Fa3D64Kernel kernel, cudaStream_t stream);

// flash_attention_fa3.cu: the causal D 128 kernel that skips masked tiles, its query blocks taken
// in pairs Q − 1 − x and x of one head (Q + 1 key tiles each, S a multiple of 256), one block of
// threads per SM walking the pairs head after head.
void launch_flash_fa3_causal_pairs(const ForwardShape& shape, const FlashWgmmaMaps& maps,
                                   __nv_bfloat16* o, cudaStream_t stream);

// True when this build carries the sm_90a code of the wgmma kernel (false: the kernel traps).
bool flash_fa3_built_for_sm90a();

// decode_attention.cu: one query token per sequence over its KV cache (attention_shapes.cuh:
// DecodeShape; attention_kv_cache.cuh: the paged layout).
struct DecodeTensors {
  const __nv_bfloat16* q = nullptr;  // [B, Hq, D]
  const __nv_bfloat16* k = nullptr;  // contiguous [B, Hkv, max_len, D] or the paged pool
  const __nv_bfloat16* v = nullptr;
  const int* cache_lengths = nullptr;  // [B]
  const int* block_table = nullptr;    // paged only: [B, max_pages_per_sequence]
  __nv_bfloat16* o = nullptr;          // [B, Hq, D]
  float* partial_o = nullptr;          // split-K only: decode_partial_floats(shape)
  float* partial_lse = nullptr;        // split-K only: decode_partial_rows(shape)
};
// The split-K kernels' chunk of cache tokens per block, and their partial-result sizes.
constexpr int kDecodeChunk = 512;
std::size_t decode_partial_rows(const DecodeShape& shape);    // B·Hq·max_chunks
std::size_t decode_partial_floats(const DecodeShape& shape);  // rows·D

// Baseline: one block per (sequence, query head) walks the whole contiguous cache.
void launch_decode_per_head(const DecodeShape& shape, const DecodeTensors& t, cudaStream_t stream);
// Split-K (flash decoding): one block per (sequence, KV head, 512-token chunk) serving the KV
// head's query heads, then a combine kernel. page_size 0: contiguous cache; else the paged pool.
void launch_decode_split_k(const DecodeShape& shape, const DecodeTensors& t, int page_size,
                           cudaStream_t stream);
// The combine step alone: o from the partial outputs and log-sum-exps of kDecodeChunk-token
// chunks (t.partial_o, t.partial_lse, t.cache_lengths -> t.o), for other chunk kernels that write
// the same partials (chapter 19's FP8-cache decode).
void launch_decode_combine(const DecodeShape& shape, const DecodeTensors& t, cudaStream_t stream);

}  // namespace aisp::ch18
