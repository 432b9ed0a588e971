// Optimized: ncclAllReduce (all_reduce_nccl.cuh) of 64 KiB per GPU, the pair's library reference,
// a point of the size sweep. Bytes: 64 KiB per GPU; 0 FLOPs. Ceiling: nvlink_peer.
#include "all_reduce_nccl.cuh"

namespace aisp::ch04 {
struct NcclAllReduce64KB : NcclAllReduce<k64KiB> {};
}  // namespace aisp::ch04

AISP_VARIANT(aisp::ch04::NcclAllReduce64KB)
