// A warp's top-k of one token's logits, the selection every MoE router here shares (the fused
// router in moe_routing.cu, chapter 17's unfused top-k kernel): lane l holds logits l, l + 32, ...
// (-inf past `experts`); k rounds of a warp-wide arg-max pick the slots in order, the larger logit
// first and the lower expert on a tie (moe_reference.hpp's host router uses the same rule). After
// round j every lane calls on_slot(j, logit, expert) with the same values, so a caller can keep a
// running softmax denominator or let lane j keep slot j.
#pragma once

#include <climits>
#include <cmath>

namespace aisp::common {

template <int kPerLane, class OnSlot>
__device__ __forceinline__ void warp_top_k(const float (&value)[kPerLane], int experts, int top_k,
                                           int lane, OnSlot&& on_slot) {
  unsigned taken = 0;  // bit i: this lane's logit i is already a slot
  for (int j = 0; j < top_k; ++j) {
    float best = -INFINITY;
    int best_expert = INT_MAX;
#pragma unroll
    for (int i = 0; i < kPerLane; ++i) {
      const int e = lane + 32 * i;
      if (e < experts && ((taken >> i) & 1u) == 0 &&
          (value[i] > best || (value[i] == best && e < best_expert))) {
        best = value[i];
        best_expert = e;
      }
    }
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) {
      const float other = __shfl_xor_sync(0xffffffffu, best, offset);
      const int other_expert = __shfl_xor_sync(0xffffffffu, best_expert, offset);
      if (other > best || (other == best && other_expert < best_expert)) {
        best = other;
        best_expert = other_expert;
      }
    }
    if (best_expert % 32 == lane)
      taken |= 1u << (best_expert / 32);
    on_slot(j, best, best_expert);
  }
}

}  // namespace aisp::common
