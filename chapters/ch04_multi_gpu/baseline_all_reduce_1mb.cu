// Baseline: the host-staged all-reduce (all_reduce_host_staged.cuh) of 1 MiB per GPU.
// Bytes: 1 MiB per GPU; 0 FLOPs. Ceiling: nvlink_peer.
#include "all_reduce_host_staged.cuh"

namespace aisp::ch04 {
struct HostStagedAllReduce1MB : HostStagedAllReduce<kOneMiB> {};
}  // namespace aisp::ch04

AISP_VARIANT(aisp::ch04::HostStagedAllReduce1MB)
