// Baseline: the host-staged all-reduce (all_reduce_host_staged.cuh) of 64 KiB per GPU, a point of
// the size sweep. Bytes: 64 KiB per GPU; 0 FLOPs. Ceiling: nvlink_peer.
#include "all_reduce_host_staged.cuh"

namespace aisp::ch04 {
struct HostStagedAllReduce64KB : HostStagedAllReduce<k64KiB> {};
}  // namespace aisp::ch04

AISP_VARIANT(aisp::ch04::HostStagedAllReduce64KB)
