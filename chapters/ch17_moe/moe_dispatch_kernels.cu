// The MoE ladder's dispatch and combine kernels (moe_layer_kernels.cuh): collecting an expert's
// rows, gathering token rows, the SwiGLU of a GEMM's [g | u] rows, the weighted scatter-add and
// the sorted combine. All memory-bound; each moves its rows once with 16-byte accesses.
//   gather:   assignments·hidden·2 bytes read and written
//   swiglu:   rows·2·inter·2 read, rows·inter·2 written
//   scatter:  rows·hidden·(2 + 4 + 4) (out read, y accumulator read and written)
//   combine:  tokens·top_k·hidden·2 read, tokens·hidden·2 written
//   quantize-scatter (FP8): tokens·hidden·2 read, tokens·top_k·hidden written (at 65536 tokens,
//             hidden 4096, top-2: 0.54 + 0.54 GB, ~0.25 ms at the ~4.3 TB/s copy ceiling, against
//             the plain cast's 0.54 + 0.27 GB)
#include <cstddef>
#include <cstdint>

#include "../common/fp8_e4m3.cuh"
#include "moe_bf16x8.cuh"
#include "moe_layer_kernels.cuh"

namespace aisp::ch17 {
namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;

// Blocks covering `items` at `per_block` each: exact for the one-row-per-warp kernels (at most
// 2^31 / 8 rows), capped for the grid-stride ones (which loop over the rest).
unsigned blocks_for(std::size_t items, unsigned per_block) {
  const std::size_t blocks = (items + per_block - 1) / per_block;
  return static_cast<unsigned>(blocks > 0 ? blocks : 1);
}
unsigned grid_stride_blocks(std::size_t items) {
  const std::size_t blocks = (items + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks > 0 ? (blocks < 16384 ? blocks : 16384) : 1);
}

// Warp-aggregated compaction: one atomic per warp and step.
__global__ void __launch_bounds__(kThreads)
    collect_expert_rows(const int* __restrict__ topk_ids, int assignments, int expert,
                        int* __restrict__ rows, int* __restrict__ counter) {
  const int lane = static_cast<int>(threadIdx.x % 32);
  const int warp = static_cast<int>(blockIdx.x) * kWarps + static_cast<int>(threadIdx.x / 32);
  const int warps = static_cast<int>(gridDim.x) * kWarps;
  for (int first = warp * 32; first < assignments; first += warps * 32) {
    const int a = first + lane;
    const bool mine = a < assignments && topk_ids[a] == expert;
    const unsigned mask = __ballot_sync(0xffffffffu, mine);
    if (mask == 0)
      continue;
    const int leader = __ffs(static_cast<int>(mask)) - 1;
    int base = 0;
    if (lane == leader)
      base = atomicAdd(counter, __popc(mask));
    base = __shfl_sync(0xffffffffu, base, leader);
    if (mine)
      rows[base + __popc(mask & ((1u << lane) - 1u))] = a;
  }
}

// One warp per row.
__global__ void __launch_bounds__(kThreads)
    gather_token_rows(const __nv_bfloat16* __restrict__ x,
                      const int* __restrict__ assignment_of_row, int rows, int top_k, int hidden,
                      __nv_bfloat16* __restrict__ out) {
  const int lane = static_cast<int>(threadIdx.x % 32);
  const int r = static_cast<int>(blockIdx.x) * kWarps + static_cast<int>(threadIdx.x / 32);
  if (r >= rows)
    return;
  const std::size_t token = static_cast<std::size_t>(assignment_of_row[r] / top_k);
  const auto* source = reinterpret_cast<const uint4*>(x + token * hidden);
  auto* destination = reinterpret_cast<uint4*>(out + static_cast<std::size_t>(r) * hidden);
  for (int c = lane; c < hidden / 8; c += 32)
    destination[c] = source[c];
}

// One thread per eight h values.
__global__ void __launch_bounds__(kThreads)
    swiglu_rows(const __nv_bfloat16* __restrict__ gate_up, int rows, int intermediate,
                __nv_bfloat16* __restrict__ h) {
  const std::size_t per_row = static_cast<std::size_t>(intermediate / 8);
  const std::size_t total = per_row * static_cast<std::size_t>(rows);
  for (std::size_t v = blockIdx.x * std::size_t{kThreads} + threadIdx.x; v < total;
       v += std::size_t{gridDim.x} * kThreads) {
    const std::size_t r = v / per_row, c = v % per_row;
    const auto* row = reinterpret_cast<const uint4*>(gate_up + r * 2 * intermediate);
    float g[8], u[8], out[8];
    bf16x8_to_float(row[c], g);
    bf16x8_to_float(row[per_row + c], u);
#pragma unroll
    for (int i = 0; i < 8; ++i)
      out[i] = silu_times(g[i], u[i]);
    reinterpret_cast<uint4*>(h + r * intermediate)[c] = float_to_bf16x8(out);
  }
}

// One warp per row; eight columns per lane and step.
__global__ void __launch_bounds__(kThreads)
    scatter_add_weighted(const __nv_bfloat16* __restrict__ out,
                         const int* __restrict__ assignment_of_row, int rows, int top_k,
                         const float* __restrict__ topk_weights, int hidden,
                         float* __restrict__ y_accumulator) {
  const int lane = static_cast<int>(threadIdx.x % 32);
  const int r = static_cast<int>(blockIdx.x) * kWarps + static_cast<int>(threadIdx.x / 32);
  if (r >= rows)
    return;
  const int a = assignment_of_row[r];
  const float weight = topk_weights[a];
  const auto* source = reinterpret_cast<const uint4*>(out + static_cast<std::size_t>(r) * hidden);
  auto* y = reinterpret_cast<float4*>(y_accumulator + static_cast<std::size_t>(a / top_k) * hidden);
  for (int c = lane; c < hidden / 8; c += 32) {
    float v[8];
    bf16x8_to_float(source[c], v);
    float4 lo = y[2 * c], hi = y[2 * c + 1];
    lo.x += weight * v[0];
    lo.y += weight * v[1];
    lo.z += weight * v[2];
    lo.w += weight * v[3];
    hi.x += weight * v[4];
    hi.y += weight * v[5];
    hi.z += weight * v[6];
    hi.w += weight * v[7];
    y[2 * c] = lo;
    y[2 * c + 1] = hi;
  }
}

__global__ void __launch_bounds__(kThreads)
    round_to_bf16(const float* __restrict__ y_accumulator, std::size_t vectors,
                  __nv_bfloat16* __restrict__ y) {
  for (std::size_t v = blockIdx.x * std::size_t{kThreads} + threadIdx.x; v < vectors;
       v += std::size_t{gridDim.x} * kThreads) {
    const auto* source = reinterpret_cast<const float4*>(y_accumulator) + 2 * v;
    const float4 lo = source[0], hi = source[1];
    const float values[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
    reinterpret_cast<uint4*>(y)[v] = float_to_bf16x8(values);
  }
}

// One thread per (token, eight columns): the token's k rows read where the sort put them.
__global__ void __launch_bounds__(kThreads)
    combine_sorted(const __nv_bfloat16* __restrict__ out_sorted, const int* __restrict__ position,
                   const float* __restrict__ topk_weights, int tokens, int top_k, int hidden,
                   __nv_bfloat16* __restrict__ y) {
  const std::size_t per_row = static_cast<std::size_t>(hidden / 8);
  const std::size_t total = per_row * static_cast<std::size_t>(tokens);
  for (std::size_t v = blockIdx.x * std::size_t{kThreads} + threadIdx.x; v < total;
       v += std::size_t{gridDim.x} * kThreads) {
    const std::size_t t = v / per_row, c = v % per_row;
    float sum[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int j = 0; j < top_k; ++j) {
      const std::size_t a = t * static_cast<std::size_t>(top_k) + j;
      const float weight = topk_weights[a];
      const std::size_t row = static_cast<std::size_t>(position[a]);
      float o[8];
      bf16x8_to_float(reinterpret_cast<const uint4*>(out_sorted + row * hidden)[c], o);
#pragma unroll
      for (int i = 0; i < 8; ++i)
        sum[i] += weight * o[i];
    }
    reinterpret_cast<uint4*>(y + t * hidden)[c] = float_to_bf16x8(sum);
  }
}

// One thread per (token, 16 columns): two 16-byte loads of x, the e4m3 rounding the plain cast
// (fp8_quantize.cuh's launch_cast_bf16_to_e4m3) does, one 16-byte store into each of the token's
// k expert-sorted rows. A warp covers 512 consecutive columns of one token, so every store
// instruction writes 512 contiguous bytes of one sorted row.
__global__ void __launch_bounds__(kThreads)
    quantize_scatter_e4m3(const __nv_bfloat16* __restrict__ x, const int* __restrict__ position,
                          int tokens, int top_k, int hidden, const float* __restrict__ quant_scale,
                          std::uint8_t* __restrict__ x_sorted) {
  const float scale = *quant_scale;
  const std::size_t per_row = static_cast<std::size_t>(hidden / 16);
  const std::size_t total = per_row * static_cast<std::size_t>(tokens);
  for (std::size_t v = blockIdx.x * std::size_t{kThreads} + threadIdx.x; v < total;
       v += std::size_t{gridDim.x} * kThreads) {
    const std::size_t t = v / per_row, c = v % per_row;
    const auto* source = reinterpret_cast<const uint4*>(x + t * hidden) + 2 * c;
    float lo[8], hi[8];
    bf16x8_to_float(source[0], lo);
    bf16x8_to_float(source[1], hi);
    uint4 q;
    q.x = common::pack_e4m3x4(lo[0] * scale, lo[1] * scale, lo[2] * scale, lo[3] * scale);
    q.y = common::pack_e4m3x4(lo[4] * scale, lo[5] * scale, lo[6] * scale, lo[7] * scale);
    q.z = common::pack_e4m3x4(hi[0] * scale, hi[1] * scale, hi[2] * scale, hi[3] * scale);
    q.w = common::pack_e4m3x4(hi[4] * scale, hi[5] * scale, hi[6] * scale, hi[7] * scale);
    for (int j = 0; j < top_k; ++j) {
      const auto row = static_cast<std::size_t>(position[t * static_cast<std::size_t>(top_k) + j]);
      reinterpret_cast<uint4*>(x_sorted + row * hidden)[c] = q;
    }
  }
}

}  // namespace

cudaError_t launch_collect_expert_rows(const int* topk_ids, int assignments, int expert, int* rows,
                                       int* counter, cudaStream_t stream) {
  collect_expert_rows<<<grid_stride_blocks(static_cast<std::size_t>(assignments)), kThreads, 0,
                        stream>>>(topk_ids, assignments, expert, rows, counter);
  return cudaGetLastError();
}

cudaError_t launch_gather_token_rows(const __nv_bfloat16* x, const int* assignment_of_row, int rows,
                                     int top_k, int hidden, __nv_bfloat16* out,
                                     cudaStream_t stream) {
  if (hidden % 8 != 0)
    return cudaErrorInvalidValue;
  if (rows < 1)
    return cudaSuccess;
  gather_token_rows<<<blocks_for(static_cast<std::size_t>(rows), kWarps), kThreads, 0, stream>>>(
      x, assignment_of_row, rows, top_k, hidden, out);
  return cudaGetLastError();
}

cudaError_t launch_swiglu_rows(const __nv_bfloat16* gate_up, int rows, int intermediate,
                               __nv_bfloat16* h, cudaStream_t stream) {
  if (intermediate % 8 != 0)
    return cudaErrorInvalidValue;
  if (rows < 1)
    return cudaSuccess;
  const std::size_t vectors = static_cast<std::size_t>(rows) * (intermediate / 8);
  swiglu_rows<<<grid_stride_blocks(vectors), kThreads, 0, stream>>>(gate_up, rows, intermediate, h);
  return cudaGetLastError();
}

cudaError_t launch_scatter_add_weighted(const __nv_bfloat16* out, const int* assignment_of_row,
                                        int rows, int top_k, const float* topk_weights, int hidden,
                                        float* y_accumulator, cudaStream_t stream) {
  if (hidden % 8 != 0)
    return cudaErrorInvalidValue;
  if (rows < 1)
    return cudaSuccess;
  scatter_add_weighted<<<blocks_for(static_cast<std::size_t>(rows), kWarps), kThreads, 0, stream>>>(
      out, assignment_of_row, rows, top_k, topk_weights, hidden, y_accumulator);
  return cudaGetLastError();
}

cudaError_t launch_round_to_bf16(const float* y_accumulator, std::size_t count, __nv_bfloat16* y,
                                 cudaStream_t stream) {
  if (count % 8 != 0)
    return cudaErrorInvalidValue;
  round_to_bf16<<<grid_stride_blocks(count / 8), kThreads, 0, stream>>>(y_accumulator, count / 8,
                                                                        y);
  return cudaGetLastError();
}

cudaError_t launch_quantize_scatter_e4m3(const __nv_bfloat16* x, const int* position, int tokens,
                                         int top_k, int hidden, const float* quant_scale,
                                         std::uint8_t* x_sorted, cudaStream_t stream) {
  if (hidden % 16 != 0 || top_k < 1)
    return cudaErrorInvalidValue;
  const std::size_t vectors = static_cast<std::size_t>(tokens) * (hidden / 16);
  if (vectors == 0)
    return cudaSuccess;
  quantize_scatter_e4m3<<<grid_stride_blocks(vectors), kThreads, 0, stream>>>(
      x, position, tokens, top_k, hidden, quant_scale, x_sorted);
  return cudaGetLastError();
}

cudaError_t launch_combine_sorted(const __nv_bfloat16* out_sorted, const int* position,
                                  const float* topk_weights, int tokens, int top_k, int hidden,
                                  __nv_bfloat16* y, cudaStream_t stream) {
  if (hidden % 8 != 0)
    return cudaErrorInvalidValue;
  const std::size_t vectors = static_cast<std::size_t>(tokens) * (hidden / 8);
  combine_sorted<<<grid_stride_blocks(vectors), kThreads, 0, stream>>>(
      out_sorted, position, topk_weights, tokens, top_k, hidden, y);
  return cudaGetLastError();
}

}  // namespace aisp::ch17
