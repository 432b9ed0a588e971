// Test-only baseline: ch04's per-pair send/recv with per-step allocation, one rank on one GPU.
#include "moe_dispatch_one_rank.hpp"

namespace aisp::test_pairs {
struct SendRecvWithAllocationOneRank : OneRank<ch04::PerPeerSendRecvWithAllocation> {};
}  // namespace aisp::test_pairs

AISP_VARIANT(aisp::test_pairs::SendRecvWithAllocationOneRank)
