// Baseline: ncclAllReduce, then the residual + RMSNorm kernel (all_reduce_rmsnorm_nccl.hpp), at
// 1 row(s) of 8192 bf16: a 16 KiB decode message per GPU. Bytes: 16 KiB per GPU; ceiling
// nvlink_peer.
#include "all_reduce_rmsnorm_nccl.hpp"

namespace aisp::ch04 {
struct NcclAllReduceThenRmsNorm16KB : NcclAllReduceThenRmsNorm {
  NcclAllReduceThenRmsNorm16KB() : NcclAllReduceThenRmsNorm(1) {}
};
}  // namespace aisp::ch04

AISP_VARIANT(aisp::ch04::NcclAllReduceThenRmsNorm16KB)
