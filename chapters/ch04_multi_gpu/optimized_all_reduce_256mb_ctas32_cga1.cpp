// Optimized, tuned: ncclAllReduce of 256 MiB per GPU on a communicator of the variant's own
// created with minCTAs = maxCTAs = 32 and cgaClusterSize 1 (no thread-block clusters)
// (all_reduce_nccl_configured.hpp). Against the pair's library reference
// (optimized_all_reduce_256mb, the harness's communicator with NCCL's defaults) it measures
// what that knob changes. Bytes: 256 MiB per GPU; 0 FLOPs. Ceiling: nvlink_peer.
#include "all_reduce_nccl_configured.hpp"

namespace aisp::ch04 {
struct NcclAllReduce256MBCtas32Cga1 : NcclConfiguredAllReduce<k256MiB> {
  NcclAllReduce256MBCtas32Cga1() : NcclConfiguredAllReduce<k256MiB>({32, 32, 1}) {}
};
}  // namespace aisp::ch04

AISP_VARIANT(aisp::ch04::NcclAllReduce256MBCtas32Cga1)
