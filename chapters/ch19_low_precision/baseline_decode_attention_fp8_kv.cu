// Baseline of decode_attention_fp8_kv: decode attention over the BF16 KV cache with chapter 18's
// split-K kernel (chapters/ch18_attention/decode_attention.cu, launch_decode_split_k: one block per
// (sequence, KV head, 512-token chunk), the group's 4 query heads on the MMA's M, then a combine
// kernel), measured there at 3.7 TB/s on the H200 (ch18 README). Reads 2.684 GB of K and V: twice
// the pair's byte count (decode_attention_fp8_kv_problem.cuh), so at most half its ceiling.
#include "decode_attention_fp8_kv_problem.cuh"

namespace aisp::ch19 {

struct DecodeBf16CacheSplitK : DecodeFp8KvProblem {
  void run(aisp::Context& ctx) override {
    ch18::launch_decode_split_k(shape(), tensors(k_cache(), v_cache()), 0, ctx.stream());
    AISP_CHECK_LAUNCH();
  }
};

}  // namespace aisp::ch19

AISP_VARIANT(aisp::ch19::DecodeBf16CacheSplitK)
