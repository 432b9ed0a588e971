// Baseline: LayerNorm, GELU and the mask as three kernels, the way eager PyTorch runs
// `F.gelu(F.layer_norm(x, ...)) * mask`: each operation reads its input from HBM and writes its
// result back in bf16 before the next one starts. Each kernel is a good memory-bound kernel (the
// LayerNorm keeps its row in registers and reads x once; the others are 16-byte-vector maps).
// Bytes moved: 13 per element (LayerNorm 2 + 2, GELU 2 + 2, mask 2 + 1 + 2) = 832 MiB; declared
// (the problem's minimum, x + mask + y): 320 MiB. Ceiling: HBM bandwidth.
#include "elementwise_bf16.cuh"
#include "layer_norm_bf16.cuh"
#include "ln_gelu_mask_common.cuh"

namespace aisp::ch14 {

struct LnGeluMaskThreeKernels : LnGeluMaskProblem {
  void setup(aisp::Context& ctx) override {
    LnGeluMaskProblem::setup(ctx);
    normalized_ = ctx.alloc("layer_norm_out", aisp::DType::bf16, kCount, aisp::Role::scratch);
    activated_ = ctx.alloc("gelu_out", aisp::DType::bf16, kCount, aisp::Role::scratch);
  }

  void run(aisp::Context& ctx) override {
    auto* h = normalized_.as<__nv_bfloat16>();
    auto* g = activated_.as<__nv_bfloat16>();
    launch_layer_norm_bf16(x(), gamma(), beta(), h, kRows, kCols, kEps, ctx.stream());
    launch_gelu_erf_bf16(h, g, kCount, ctx.stream());
    launch_apply_mask_bf16(g, mask(), y(), kCount, ctx.stream());
  }

 private:
  aisp::Tensor normalized_, activated_;
};

}  // namespace aisp::ch14

AISP_VARIANT(aisp::ch14::LnGeluMaskThreeKernels)
