// Baseline: the host-staged all-reduce (all_reduce_host_staged.cuh) of 16 MiB per GPU, a point of
// the size sweep. Bytes: 16 MiB per GPU; 0 FLOPs. Ceiling: nvlink_peer.
#include "all_reduce_host_staged.cuh"

namespace aisp::ch04 {
struct HostStagedAllReduce16MB : HostStagedAllReduce<k16MiB> {};
}  // namespace aisp::ch04

AISP_VARIANT(aisp::ch04::HostStagedAllReduce16MB)
