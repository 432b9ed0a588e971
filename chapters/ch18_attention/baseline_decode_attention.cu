// Baseline: decode attention with one thread block per (sequence, query head), each walking its
// sequence's whole contiguous cache (decode_attention.cu, launch_decode_per_head). 32 × 32 = 1024
// blocks of very different lengths (8k–32k tokens): the long sequences' blocks run on alone at
// the end, and the 4 query heads that share a KV head read its K and V 4 times (from L2 when the
// 4 blocks run side by side, which their adjacent block indices make likely).
// Bytes: 2.68 GB of K and V; FLOPs 10.7 G. Ceiling: HBM bandwidth.
#include "decode_attention_common.cuh"

namespace aisp::ch18 {

struct DecodePerHead : DecodeAttentionProblem {
  void run(aisp::Context& ctx) override {
    DecodeTensors t;
    t.q = q_tensor().as<const __nv_bfloat16>();
    t.k = k_cache().as<const __nv_bfloat16>();
    t.v = v_cache().as<const __nv_bfloat16>();
    t.cache_lengths = cache_lengths().as<const int>();
    t.o = o_tensor().as<__nv_bfloat16>();
    launch_decode_per_head(shape(), t, ctx.stream());
    AISP_CHECK_LAUNCH();
  }
};

}  // namespace aisp::ch18

AISP_VARIANT(aisp::ch18::DecodePerHead)
