// The shapes of the ch18 forward pairs (the problem class is chapters/common/
// attention_forward_problem.cuh): B 4, H 16, S 4096, BF16, layout [B, H, S, D].
//   attention_forward         D 128, no mask (the ladder: unfused → flash → cuDNN)
//   attention_forward_d64     D 64, no mask
//   attention_causal          D 128, causal: the dense kernel applying the mask vs the one that
//                             skips fully masked tiles
//   attention_sliding_window  D 128, causal window of 1024 keys
#pragma once

#include <cuda_bf16.h>

#include "../common/attention_forward_problem.cuh"
#include "attention_kernels.cuh"

namespace aisp::ch18 {

using attention::ForwardAttentionProblem;
using attention::ForwardShape;
using attention::MaskKind;

inline constexpr ForwardShape kForwardD128{.head_dim = 128};
inline constexpr ForwardShape kForwardD64{.head_dim = 64};
inline constexpr ForwardShape kCausalD128{.head_dim = 128, .mask = MaskKind::causal};
inline constexpr ForwardShape kSlidingWindowD128{
    .head_dim = 128, .mask = MaskKind::sliding_window, .window = 1024};

// The BF16 tensors of a forward problem, as the kernels take them.
inline ForwardTensors forward_tensors(const void* q, const void* k, const void* v, void* o) {
  return {static_cast<const __nv_bfloat16*>(q), static_cast<const __nv_bfloat16*>(k),
          static_cast<const __nv_bfloat16*>(v), static_cast<__nv_bfloat16*>(o)};
}

}  // namespace aisp::ch18
