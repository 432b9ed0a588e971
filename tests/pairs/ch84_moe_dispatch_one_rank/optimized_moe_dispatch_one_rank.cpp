// Test-only: ch04's preallocated exchange (ncclAlltoAll of the counts, grouped send/recv), one
// rank on one GPU.
#include "moe_dispatch_one_rank.hpp"

namespace aisp::test_pairs {
struct PreallocatedAllToAllOneRank : OneRank<ch04::PreallocatedAllToAll> {};
}  // namespace aisp::test_pairs

AISP_VARIANT(aisp::test_pairs::PreallocatedAllToAllOneRank)
