// The router as a framework composes it (the moe_router pair's baseline): topk(logits), then
// softmax(the selected logits), then bincount(ids) — three kernels and a memset, each reading what
// the previous one wrote. chapters/common/moe_routing.cuh has the fused
// router and the conventions (ids largest logit first, ties to the lower expert; weights the
// softmax over the selected k). Host launchers over moe_router_kernels.cu; no harness headers.
#pragma once

#include <cuda_runtime_api.h>

namespace aisp::ch17 {

// The top_k largest logits of each token (ties: the lower expert first): their experts and values.
cudaError_t launch_router_topk(const float* logits, int tokens, int experts, int top_k,
                               int* topk_ids, float* topk_logits, cudaStream_t stream);
// topk_weights[t, j] = softmax over j of topk_logits[t, :].
cudaError_t launch_router_softmax(const float* topk_logits, int tokens, int top_k,
                                  float* topk_weights, cudaStream_t stream);
// expert_counts[e] = how many of the tokens·top_k ids are e (cleared first, in this launcher).
cudaError_t launch_router_histogram(const int* topk_ids, int assignments, int experts,
                                    int* expert_counts, cudaStream_t stream);

}  // namespace aisp::ch17
