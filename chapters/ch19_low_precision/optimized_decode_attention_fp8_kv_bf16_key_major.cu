// Optimized (control, same precision): the BF16 cache read by the key-major kernel the FP8
// variant uses (decode_attention_fp8_kv_kernel.cu): keys on the MMA's M (Sᵀ = K·Qᵀ, Oᵀ += Vᵀ·Pᵀ),
// 8 + 8 MMAs per 16 keys instead of 16 + 16, V paired by byte permutes instead of movmatrix, 128
// registers (4 blocks per SM) instead of 178 (2). What changed vs the baseline: only the kernel's
// arithmetic layout, not the bytes (2.684 GB read): it shows how much of the FP8 variant's gain
// is the restructuring and how much the halved cache. Ceiling: HBM bandwidth.
#include "decode_attention_fp8_kv_problem.cuh"

namespace aisp::ch19 {

struct DecodeBf16CacheKeyMajor : DecodeFp8KvProblem {
  void run(aisp::Context& ctx) override {
    launch_decode_key_major_bf16(shape(), tensors(k_cache(), v_cache()), ctx.stream());
    AISP_CHECK_LAUNCH();
  }
};

}  // namespace aisp::ch19

AISP_VARIANT(aisp::ch19::DecodeBf16CacheKeyMajor)
