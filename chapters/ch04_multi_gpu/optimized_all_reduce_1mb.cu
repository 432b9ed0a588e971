// Optimized: ncclAllReduce (all_reduce_nccl.cuh) of 1 MiB per GPU, the pair's library
// reference. Bytes: 1 MiB per GPU; 0 FLOPs. Ceiling: nvlink_peer.
#include "all_reduce_nccl.cuh"

namespace aisp::ch04 {
struct NcclAllReduce1MB : NcclAllReduce<kOneMiB> {};
}  // namespace aisp::ch04

AISP_VARIANT(aisp::ch04::NcclAllReduce1MB)
