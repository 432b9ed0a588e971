// The MoE ladder's plain CUDA kernels (everything but the grouped GEMMs, moe_grouped_gemm.cuh,
// and the routing, chapters/common/moe_routing.cuh): host launchers over kernels compiled once in
// moe_token_loop_kernels.cu and moe_dispatch_kernels.cu. Each launches on the stream and returns
// the cudaError_t for the caller to check. No harness headers (the probe links these files).
// Layouts: moe_routing.cuh's conventions; x and y tokens × hidden, W13 experts × 2·inter ×
// hidden (gate rows, then up rows), W2 experts × hidden × inter, all bf16 row-major.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace aisp::ch17 {

// ---- the per-token loop (baseline): two launches per token ----
// h_token[j, i] = bf16(silu(x_t·W1_e[i]) · (x_t·W3_e[i])) for the token's k slots (e = its j-th
// expert): one warp per (slot, i), a GEMV over the expert's gate and up rows.
cudaError_t launch_token_gate_up_swiglu(const __nv_bfloat16* x_row, const __nv_bfloat16* w13,
                                        const int* token_experts, int top_k, int hidden,
                                        int intermediate, __nv_bfloat16* h_token,
                                        cudaStream_t stream);
// y_row[c] = bf16(Σ_j weight_j · (h_token[j] · W2_{e_j}[c])): one warp per output column.
cudaError_t launch_token_down_combine(const __nv_bfloat16* h_token, const __nv_bfloat16* w2,
                                      const int* token_experts, const float* token_weights,
                                      int top_k, int hidden, int intermediate, __nv_bfloat16* y_row,
                                      cudaStream_t stream);

// ---- dispatch and combine ----
// rows[n] = the assignments routed to `expert`, in no particular order (n = its count);
// *counter must be 0 before (the caller clears it), and ends as the count.
cudaError_t launch_collect_expert_rows(const int* topk_ids, int assignments, int expert, int* rows,
                                       int* counter, cudaStream_t stream);
// out[r] = x[assignment_of_row[r] / top_k] for r < rows: the tokens' rows gathered.
cudaError_t launch_gather_token_rows(const __nv_bfloat16* x, const int* assignment_of_row, int rows,
                                     int top_k, int hidden, __nv_bfloat16* out,
                                     cudaStream_t stream);
// h[r, i] = bf16(silu(gate_up[r, i]) · gate_up[r, inter + i]): the SwiGLU of a GEMM's output
// rows [g | u] (rows × 2·inter) into rows × inter.
cudaError_t launch_swiglu_rows(const __nv_bfloat16* gate_up, int rows, int intermediate,
                               __nv_bfloat16* h, cudaStream_t stream);
// y_accumulator[token] += topk_weights[a] · out[r] for every row r (a = assignment_of_row[r],
// token = a / top_k). A token appears at most once per call (one expert's rows).
cudaError_t launch_scatter_add_weighted(const __nv_bfloat16* out, const int* assignment_of_row,
                                        int rows, int top_k, const float* topk_weights, int hidden,
                                        float* y_accumulator, cudaStream_t stream);
// x_sorted[position[t·k + j]] = e4m3(x[t] · *quant_scale) for every token t and slot j < k: the
// FP8 cast of x and the dispatch into expert order in one pass (x read once, each of its k copies
// written once), so the first grouped GEMM can load A by TMA instead of gathering rows
// (MoeTileSchedule::sorted_a_multicast). x_sorted: tokens·k × hidden e4m3 bytes; hidden % 16 == 0.
cudaError_t launch_quantize_scatter_e4m3(const __nv_bfloat16* x, const int* position, int tokens,
                                         int top_k, int hidden, const float* quant_scale,
                                         std::uint8_t* x_sorted, cudaStream_t stream);
// y = bf16(y_accumulator).
cudaError_t launch_round_to_bf16(const float* y_accumulator, std::size_t count, __nv_bfloat16* y,
                                 cudaStream_t stream);
// y[t] = bf16(Σ_j topk_weights[t, j] · out_sorted[position[t·k + j]]): the un-permutation and
// the weighted sum in one pass (fp32 sum, slots in order).
cudaError_t launch_combine_sorted(const __nv_bfloat16* out_sorted, const int* position,
                                  const float* topk_weights, int tokens, int top_k, int hidden,
                                  __nv_bfloat16* y, cudaStream_t stream);

}  // namespace aisp::ch17
