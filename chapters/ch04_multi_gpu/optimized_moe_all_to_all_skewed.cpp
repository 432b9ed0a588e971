// Optimized: MoE token dispatch with ncclAlltoAll of the counts and one group of every pair's
// ncclSend/ncclRecv into buffers allocated once (moe_all_to_all_preallocated.hpp), Zipf-skewed
// routing (s = 1: about three quarters of the pairs to GPU 0's experts on 2 GPUs). Bytes: 16 MiB of
// token rows per GPU to other GPUs (2 GPUs); ceiling nvlink_peer.
#include "moe_all_to_all_preallocated.hpp"

namespace aisp::ch04 {
struct PreallocatedAllToAllSkewed : PreallocatedAllToAll {
  PreallocatedAllToAllSkewed() : PreallocatedAllToAll(common::MoeRouting::zipf) {}
};
}  // namespace aisp::ch04

AISP_VARIANT(aisp::ch04::PreallocatedAllToAllSkewed)
