// Baseline: the host-staged all-reduce (all_reduce_host_staged.cuh) of 256 MiB per GPU.
// Bytes: 256 MiB per GPU; 0 FLOPs. Ceiling: nvlink_peer.
#include "all_reduce_host_staged.cuh"

namespace aisp::ch04 {
struct HostStagedAllReduce256MB : HostStagedAllReduce<k256MiB> {};
}  // namespace aisp::ch04

AISP_VARIANT(aisp::ch04::HostStagedAllReduce256MB)
