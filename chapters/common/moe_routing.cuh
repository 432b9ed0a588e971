// Routing a mixture-of-experts layer on the GPU: the synthetic router logits every MoE pair is
// given, the router itself (top-k of each token's logits, their renormalized softmax weights, and
// how many tokens each expert received), and the dispatch that follows it (the token-expert pairs
// sorted by expert, each expert's first row, and where each pair landed). Host launchers over
// kernels compiled once in moe_routing.cu; each takes a stream, launches, and returns the
// cudaError_t for the caller to check. No harness headers: probes link these files directly.
//
// Conventions (moe_shape.hpp has the layer):
//   logits         tokens × experts, f32, row-major
//   topk_ids       tokens × top_k, i32: slot j of token t is its j-th largest logit (ties: the
//                  lower expert index first), so slot 0 is the token's favourite expert
//   topk_weights   tokens × top_k, f32: softmax over the token's k selected logits (= the full
//                  softmax's top-k probabilities renormalized to sum to 1, as Mixtral routes)
//   expert_counts  experts, i32: tokens routed to each expert
//   assignment     a = t·top_k + j: token t's slot j (the rows of the expert GEMMs)
//   sorted_rows    assignments, i32: the assignments ordered by expert, stable (within an expert
//                  in token order); row r of an expert-sorted matrix belongs to assignment
//                  sorted_rows[r], i.e. token sorted_rows[r] / top_k
//   expert_offsets experts + 1, i32: expert e's rows are [offsets[e], offsets[e + 1])
//   position       assignments, i32: the inverse of sorted_rows (position[sorted_rows[r]] = r)
#pragma once

#include <cuda_runtime_api.h>

#include <aisp/benchmark.hpp>

#include <cstddef>

#include "moe_shape.hpp"

namespace aisp::common {

// The logits are a function of a uniform fill in (0, 1) (-log(-log u), plus the routing's
// log-prior): verification's offset and wide-range inputs (docs/integrity.md, "Varied inputs")
// would put u outside (0, 1), where the logarithm is not defined. Every MoE problem that routes
// from these logits declares this domain.
inline aisp::InputDomain moe_logits_input_domain() {
  return aisp::InputDomain{
      false, false,
      "the routing logits are -log(-log u) of a uniform fill u in (0, 1): offset or wide-range "
      "values of u are outside the logarithm's domain"};
}

// In place: `logits` holds values uniform in (0, 1) (a harness fill) and becomes
// log(prior_e) − log(−log(u)) — Gumbel noise plus the routing's log-prior (moe_shape.hpp).
cudaError_t launch_moe_logits_from_uniform(float* logits, int tokens, int experts,
                                           MoeRouting routing, double zipf_exponent,
                                           cudaStream_t stream);

// The router as one kernel: each warp takes a token, finds its top_k logits, writes their ids and
// renormalized softmax weights, and counts them in a block histogram of the experts that is added
// to expert_counts at the end (a cudaMemsetAsync of expert_counts comes first, in this launcher).
cudaError_t launch_moe_route_fused(const float* logits, int tokens, int experts, int top_k,
                                   int* topk_ids, float* topk_weights, int* expert_counts,
                                   cudaStream_t stream);

// ---- dispatch: sort by expert ----
// Scratch bytes launch_moe_sort_by_expert needs for `assignments` keys (CUB's radix sort over
// the bits an expert index needs). Call in setup.
std::size_t moe_sort_temp_bytes(int assignments, int experts);
// iota[i] = i for i < count (the sort's payload; fill once in setup).
cudaError_t launch_moe_iota(int* iota, int count, cudaStream_t stream);
// sorted_rows = the assignments (iota) stably sorted by topk_ids; sorted_experts receives the
// sorted keys (scratch). temp: moe_sort_temp_bytes() bytes.
cudaError_t launch_moe_sort_by_expert(const int* topk_ids, const int* iota, int assignments,
                                      int experts, void* temp, std::size_t temp_bytes,
                                      int* sorted_experts, int* sorted_rows, cudaStream_t stream);
// expert_offsets (experts + 1) from expert_counts: an exclusive prefix sum, one block.
cudaError_t launch_moe_expert_offsets(const int* expert_counts, int experts, int* expert_offsets,
                                      cudaStream_t stream);
// position[sorted_rows[r]] = r.
cudaError_t launch_moe_inverse_permutation(const int* sorted_rows, int assignments, int* position,
                                           cudaStream_t stream);

}  // namespace aisp::common
