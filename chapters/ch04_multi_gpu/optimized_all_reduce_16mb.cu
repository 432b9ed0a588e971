// Optimized: ncclAllReduce (all_reduce_nccl.cuh) of 16 MiB per GPU, the pair's library reference,
// a point of the size sweep. Bytes: 16 MiB per GPU; 0 FLOPs. Ceiling: nvlink_peer.
#include "all_reduce_nccl.cuh"

namespace aisp::ch04 {
struct NcclAllReduce16MB : NcclAllReduce<k16MiB> {};
}  // namespace aisp::ch04

AISP_VARIANT(aisp::ch04::NcclAllReduce16MB)
