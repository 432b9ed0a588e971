// Optimized: ncclAllReduce (all_reduce_nccl.cuh) of 1 GiB per GPU, the pair's library reference,
// a point of the size sweep. Bytes: 1 GiB per GPU; 0 FLOPs. Ceiling: nvlink_peer.
#include "all_reduce_nccl.cuh"

namespace aisp::ch04 {
struct NcclAllReduce1GB : NcclAllReduce<kOneGiB> {};
}  // namespace aisp::ch04

AISP_VARIANT(aisp::ch04::NcclAllReduce1GB)
