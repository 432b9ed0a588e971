// Optimized: MoE token dispatch with ncclAlltoAll of the counts and one group of every pair's
// ncclSend/ncclRecv into buffers allocated once (moe_all_to_all_preallocated.hpp), uniform routing
// (every expert equally likely). Bytes: 16 MiB of token rows per GPU to other GPUs (2 GPUs);
// ceiling nvlink_peer.
#include "moe_all_to_all_preallocated.hpp"

namespace aisp::ch04 {
struct PreallocatedAllToAllUniform : PreallocatedAllToAll {
  PreallocatedAllToAllUniform() : PreallocatedAllToAll(common::MoeRouting::uniform) {}
};
}  // namespace aisp::ch04

AISP_VARIANT(aisp::ch04::PreallocatedAllToAllUniform)
