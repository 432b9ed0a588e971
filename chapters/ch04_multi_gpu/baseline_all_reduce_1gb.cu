// Baseline: the host-staged all-reduce (all_reduce_host_staged.cuh) of 1 GiB per GPU, a point of
// the size sweep. Bytes: 1 GiB per GPU; 0 FLOPs. Ceiling: nvlink_peer.
#include "all_reduce_host_staged.cuh"

namespace aisp::ch04 {
struct HostStagedAllReduce1GB : HostStagedAllReduce<kOneGiB> {};
}  // namespace aisp::ch04

AISP_VARIANT(aisp::ch04::HostStagedAllReduce1GB)
