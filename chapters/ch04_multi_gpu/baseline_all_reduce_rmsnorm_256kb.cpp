// Baseline: ncclAllReduce, then the residual + RMSNorm kernel (all_reduce_rmsnorm_nccl.hpp), at
// 16 row(s) of 8192 bf16: a 256 KiB decode message per GPU. Bytes: 256 KiB per GPU; ceiling
// nvlink_peer.
#include "all_reduce_rmsnorm_nccl.hpp"

namespace aisp::ch04 {
struct NcclAllReduceThenRmsNorm256KB : NcclAllReduceThenRmsNorm {
  NcclAllReduceThenRmsNorm256KB() : NcclAllReduceThenRmsNorm(16) {}
};
}  // namespace aisp::ch04

AISP_VARIANT(aisp::ch04::NcclAllReduceThenRmsNorm256KB)
