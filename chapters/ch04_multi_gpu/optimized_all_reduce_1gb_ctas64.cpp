// Optimized, tuned: ncclAllReduce of 1 GiB per GPU on a communicator of the variant's own
// created with minCTAs = maxCTAs = 64 (64 channels) (all_reduce_nccl_configured.hpp). Against the
// pair's library reference (optimized_all_reduce_1gb, the harness's communicator with NCCL's
// defaults) it measures what that knob changes. Bytes: 1 GiB per GPU; 0 FLOPs. Ceiling:
// nvlink_peer.
#include "all_reduce_nccl_configured.hpp"

namespace aisp::ch04 {
struct NcclAllReduce1GBCtas64 : NcclConfiguredAllReduce<kOneGiB> {
  NcclAllReduce1GBCtas64() : NcclConfiguredAllReduce<kOneGiB>({64, 64, -1}) {}
};
}  // namespace aisp::ch04

AISP_VARIANT(aisp::ch04::NcclAllReduce1GBCtas64)
