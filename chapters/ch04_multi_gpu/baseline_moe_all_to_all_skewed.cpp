// Baseline: MoE token dispatch by per-pair ncclSend/ncclRecv into buffers cudaMalloc'ed and freed
// every step (moe_all_to_all_send_recv.hpp), Zipf-skewed routing (s = 1: about three quarters of
// the pairs to GPU 0's experts on 2 GPUs). Bytes: 16 MiB of token rows per GPU to other GPUs (2
// GPUs); ceiling nvlink_peer.
#include "moe_all_to_all_send_recv.hpp"

namespace aisp::ch04 {
struct PerPeerSendRecvWithAllocationSkewed : PerPeerSendRecvWithAllocation {
  PerPeerSendRecvWithAllocationSkewed() : PerPeerSendRecvWithAllocation(common::MoeRouting::zipf) {}
};
}  // namespace aisp::ch04

AISP_VARIANT(aisp::ch04::PerPeerSendRecvWithAllocationSkewed)
