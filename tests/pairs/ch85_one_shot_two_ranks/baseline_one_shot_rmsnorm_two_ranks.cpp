// Test-only baseline: the two ranks' partials added (bf16(a + b), what NCCL's bf16 all-reduce
// returns on 2 GPUs), then ch04's residual + RMSNorm kernel once per rank, all on GPU 0.
#include "one_shot_rmsnorm_two_ranks_problem.hpp"

namespace aisp::test_pairs {

struct AddThenRmsNormTwoRanks : OneShotRmsNormTwoRanks {
  void setup(Context& ctx) override {
    OneShotRmsNormTwoRanks::setup(ctx);
    reduced = ctx.alloc("reduced", DType::bf16, kElements, Role::scratch);
  }
  void run(Context& ctx) override {
    launch_add_bf16(partial[0].as<const __nv_bfloat16>(), partial[1].as<const __nv_bfloat16>(),
                    reduced.as<__nv_bfloat16>(), kElements, ctx.stream());
    for (int r = 0; r < kRanks; ++r)
      ch04::launch_residual_rmsnorm(reduced.as<const __nv_bfloat16>(), norm_operands(r),
                                    ctx.stream());
  }
  Tensor reduced;
};

}  // namespace aisp::test_pairs

AISP_VARIANT(aisp::test_pairs::AddThenRmsNormTwoRanks)
