// Optimized: the one-shot all-reduce fused with the residual add and RMSNorm, over NVLink peer
// stores (all_reduce_rmsnorm_one_shot.hpp), at 1 row of 8192 bf16 (one token): a 16 KiB decode
// message per GPU. Bytes: 16 KiB per GPU; ceiling nvlink_peer.
#include "all_reduce_rmsnorm_one_shot.hpp"

namespace aisp::ch04 {
struct OneShotAllReduceRmsNorm16KB : OneShotAllReduceRmsNorm {
  OneShotAllReduceRmsNorm16KB() : OneShotAllReduceRmsNorm(1) {}
};
}  // namespace aisp::ch04

AISP_VARIANT(aisp::ch04::OneShotAllReduceRmsNorm16KB)
