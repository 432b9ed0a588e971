// Optimized: the one-shot all-reduce fused with the residual add and RMSNorm, over NVLink peer
// stores (all_reduce_rmsnorm_one_shot.hpp), at 16 rows of 8192 bf16 (16 tokens): a 256 KiB decode
// message per GPU. Bytes: 256 KiB per GPU; ceiling nvlink_peer.
#include "all_reduce_rmsnorm_one_shot.hpp"

namespace aisp::ch04 {
struct OneShotAllReduceRmsNorm256KB : OneShotAllReduceRmsNorm {
  OneShotAllReduceRmsNorm256KB() : OneShotAllReduceRmsNorm(16) {}
};
}  // namespace aisp::ch04

AISP_VARIANT(aisp::ch04::OneShotAllReduceRmsNorm256KB)
