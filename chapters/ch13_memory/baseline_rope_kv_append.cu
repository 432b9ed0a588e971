// Baseline: RoPE and the KV-cache append as separate kernels. Kernel 1 rotates Q (into q_rot) and
// K (into a scratch tensor); kernel 2 copies the rotated K and V into the step's pages through
// the block table. The rotated K goes to memory and comes back (8.4 MB more than the 50.3 MB the
// problem needs) and the step costs two launches. Both kernels are the fused kernel's loop
// (rope_kv_append_kernels.cu: one block per token, 16-byte accesses, angles once per thread), so
// the pair differs by the fusion only. Ceiling: HBM bandwidth.
#include "rope_kv_append_common.cuh"

namespace aisp::ch13 {

struct RopeThenAppend : RopeKvAppendProblem {
  void setup(aisp::Context& ctx) override {
    RopeKvAppendProblem::setup(ctx);
    k_rot_ = ctx.alloc("k_rot", aisp::DType::bf16, kKvElements, aisp::Role::scratch);
  }
  void run(aisp::Context& ctx) override {
    launch_rope_qk(step(), q(), k(), q_rot(), k_rot_.as<__nv_bfloat16>(), ctx.stream());
    AISP_CHECK_LAUNCH();
    launch_append_step_pages(step(), k_rot_.as<const __nv_bfloat16>(), v(), k_pages(), v_pages(),
                             block_table(), layout(), ctx.stream());
    AISP_CHECK_LAUNCH();
  }

 private:
  aisp::Tensor k_rot_;
};

}  // namespace aisp::ch13

AISP_VARIANT(aisp::ch13::RopeThenAppend)
