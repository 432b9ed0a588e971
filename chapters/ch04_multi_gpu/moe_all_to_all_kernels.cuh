// The packing kernel of the moe_all_to_all pairs (moe_all_to_all_kernels.cu), shared by both
// variants: after the router and the sort by expert (chapters/common/moe_routing.cuh), each GPU
// copies its tokens into a send buffer in expert order, so the rows for GPU g (experts
// [g·E/G, (g+1)·E/G)) are one contiguous run, and counts them per destination GPU.
// Bytes: rows x hidden x 2 read (a token once per expert it goes to) and written; HBM-bound, a few
// microseconds at the pairs' 32 MiB.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

namespace aisp::ch04 {

// send[r] = x[sorted_rows[r] / top_k] for r < rows (rows = tokens x top_k; `hidden` a multiple of
// 8, at most 8192), and send_counts[g] = expert_offsets[(g+1)·E/G] - expert_offsets[g·E/G] for
// g < gpus (experts a multiple of gpus). One launch on `stream`; throws std::invalid_argument on
// bad sizes; checked.
void launch_moe_pack_by_destination(const __nv_bfloat16* x, const int* sorted_rows, int rows,
                                    int top_k, int hidden, const int* expert_offsets, int experts,
                                    int gpus, __nv_bfloat16* send, int* send_counts,
                                    cudaStream_t stream);

}  // namespace aisp::ch04
