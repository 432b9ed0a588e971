// Optimized: RoPE and the cache append fused into one kernel. What changed vs the baseline: the
// thread that rotates a K row's chunk writes it straight into its page (the block-table lookup
// moves into the RoPE kernel), and V is copied into its page by the same launch; the rotated K
// never makes the round trip through memory. Same loop, angles and rotation code as the
// baseline's kernels (rope_kv_append_kernels.cu), so the outputs agree to the bit.
// Bytes 50.3 MB (the baseline moves 58.7 MB); one launch instead of two. Ceiling: HBM bandwidth.
#include "rope_kv_append_common.cuh"

namespace aisp::ch13 {

struct RopeAppendFused : RopeKvAppendProblem {
  void run(aisp::Context& ctx) override {
    launch_rope_append_fused(step(), q(), k(), v(), q_rot(), k_pages(), v_pages(), block_table(),
                             layout(), ctx.stream());
    AISP_CHECK_LAUNCH();
  }
};

}  // namespace aisp::ch13

AISP_VARIANT(aisp::ch13::RopeAppendFused)
