// Optimized: split-K decode attention ("flash decoding") over the contiguous cache. What changed
// vs the baseline: each sequence's cache is cut into 512-token chunks, one block per (sequence,
// KV head, chunk) — ~10k equal blocks instead of 1024 unequal ones, so all SMs stream until the
// end — and each block serves the 4 query heads that share its KV head, so K and V are read once.
// Each block writes an FP32 partial output with its log-sum-exp; a small kernel combines a
// sequence's chunks (33.6 MB of partials, 1.3% of the bytes). Same per-warp arithmetic as the
// baseline (decode_attention.cu). Bytes 2.68 GB of K and V; ceiling: HBM bandwidth.
#include "decode_attention_common.cuh"

namespace aisp::ch18 {

struct DecodeSplitK : DecodeSplitKProblem {
  void run(aisp::Context& ctx) override {
    launch_decode_split_k(shape(), tensors(k_cache(), v_cache()), 0, ctx.stream());
    AISP_CHECK_LAUNCH();
  }
};

}  // namespace aisp::ch18

AISP_VARIANT(aisp::ch18::DecodeSplitK)
