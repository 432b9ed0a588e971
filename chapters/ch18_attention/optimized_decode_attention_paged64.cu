// Optimized: split-K decode attention over a paged KV cache with 64-token pages (16 KiB per KV
// head and page), scattered over the pool by a shuffled block table. As the 16-token variant,
// with a quarter of the block-table lookups and longer contiguous runs per page.
// Bytes 2.68 GB of K and V; ceiling: HBM bandwidth.
#include "decode_attention_common.cuh"

namespace aisp::ch18 {

struct DecodePaged64 : DecodePagedProblem<64> {};

}  // namespace aisp::ch18

AISP_VARIANT(aisp::ch18::DecodePaged64)
