// Optimized: split-K decode attention over a paged KV cache with 16-token pages (vLLM's default
// block size). The cache lives in a pool of 4 KiB pages (16 rows × 128 dims per KV head), each
// sequence's pages scattered over the pool by a shuffled block table; a block copies its chunk's
// 32 block-table entries to shared memory and finds each 16-row step's page there. Everything
// else is the contiguous split-K kernel (decode_attention.cu): the pair shows what paging costs.
// Bytes 2.68 GB of K and V (the 81 KB of block table left out); ceiling: HBM bandwidth.
#include "decode_attention_common.cuh"

namespace aisp::ch18 {

struct DecodePaged16 : DecodePagedProblem<16> {};

}  // namespace aisp::ch18

AISP_VARIANT(aisp::ch18::DecodePaged16)
