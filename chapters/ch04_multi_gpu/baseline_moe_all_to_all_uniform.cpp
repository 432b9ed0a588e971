// Baseline: MoE token dispatch by per-pair ncclSend/ncclRecv into buffers cudaMalloc'ed and freed
// every step (moe_all_to_all_send_recv.hpp), uniform routing (every expert equally likely).
// Bytes: 16 MiB of token rows per GPU to other GPUs (2 GPUs); ceiling nvlink_peer.
#include "moe_all_to_all_send_recv.hpp"

namespace aisp::ch04 {
struct PerPeerSendRecvWithAllocationUniform : PerPeerSendRecvWithAllocation {
  PerPeerSendRecvWithAllocationUniform()
      : PerPeerSendRecvWithAllocation(common::MoeRouting::uniform) {}
};
}  // namespace aisp::ch04

AISP_VARIANT(aisp::ch04::PerPeerSendRecvWithAllocationUniform)
