// The flash-attention rungs as variants of the forward problem, one class per kernel family,
// parameterised by the pair's shape and by whether masked tiles are skipped (the variant files
// name both). The kernels themselves are compiled once each (flash_attention_*.cu).
#pragma once

#include "attention_forward_common.cuh"

namespace aisp::ch18 {

// mma.sync + cp.async (flash_attention_fa2.cu).
class FlashFa2Attention : public ForwardAttentionProblem {
 public:
  FlashFa2Attention(ForwardShape shape, MaskedTiles masked)
      : ForwardAttentionProblem(shape), masked_(masked) {}
  void run(aisp::Context& ctx) override {
    launch_flash_fa2(shape(), forward_tensors(q(), k(), v(), o()), masked_, ctx.stream());
    AISP_CHECK_LAUNCH();
  }

 private:
  MaskedTiles masked_;
};

// mma.sync + TMA/mbarrier two-stage pipeline (flash_attention_fa2_tma.cu); needs sm_90. `rolled`:
// the rung that keeps the Q·Kᵀ k-loop rolled (no spills at D 128; unmasked D 128 only).
enum class QkLoop { unrolled, rolled };
class FlashFa2TmaAttention : public ForwardAttentionProblem {
 public:
  explicit FlashFa2TmaAttention(ForwardShape shape, QkLoop loop = QkLoop::unrolled)
      : ForwardAttentionProblem(shape), loop_(loop) {}
  aisp::Requirements requirements() const override {
    aisp::Requirements r;
    r.min_compute_capability = 90;
    r.features = {aisp::Feature::tma};
    return r;
  }
  void setup(aisp::Context& ctx) override {
    ForwardAttentionProblem::setup(ctx);
    maps_ = make_flash_tma_maps(shape(), forward_tensors(q(), k(), v(), o()));
  }
  void run(aisp::Context& ctx) override {
    if (loop_ == QkLoop::rolled)
      launch_flash_fa2_tma_rolled(shape(), maps_, static_cast<__nv_bfloat16*>(o()), ctx.stream());
    else
      launch_flash_fa2_tma(shape(), maps_, static_cast<__nv_bfloat16*>(o()), MaskedTiles::skip,
                           ctx.stream());
    AISP_CHECK_LAUNCH();
  }

 private:
  QkLoop loop_;
  FlashTmaMaps maps_{};
};

// mma.sync + TMA ring with per-warp release, XOR-form ldmatrix addresses
// (flash_attention_fa2_rows.cu); sm_90. rows32: 4 warps × 32 query rows, two blocks per SM.
// rows16_pipelined: 8 warps × 16 rows, Q in registers, S_{t+1} = Q·K_{t+1}ᵀ issued before tile
// t's softmax. Unmasked only; head_dim 64 or 128.
enum class RowsKernel { rows32, rows16_pipelined };
void launch_flash_fa2_rows(const ForwardShape& shape, const FlashTmaMaps& maps, __nv_bfloat16* o,
                           RowsKernel kernel, cudaStream_t stream);
class FlashFa2RowsAttention : public ForwardAttentionProblem {
 public:
  FlashFa2RowsAttention(ForwardShape shape, RowsKernel kernel)
      : ForwardAttentionProblem(shape), kernel_(kernel) {}
  aisp::Requirements requirements() const override {
    aisp::Requirements r;
    r.min_compute_capability = 90;
    r.features = {aisp::Feature::tma};
    return r;
  }
  void setup(aisp::Context& ctx) override {
    ForwardAttentionProblem::setup(ctx);
    maps_ = make_flash_tma_maps(shape(), forward_tensors(q(), k(), v(), o()));
  }
  void run(aisp::Context& ctx) override {
    launch_flash_fa2_rows(shape(), maps_, static_cast<__nv_bfloat16*>(o()), kernel_, ctx.stream());
    AISP_CHECK_LAUNCH();
  }

 private:
  RowsKernel kernel_;
  FlashTmaMaps maps_{};
};

// wgmma + TMA, producer warpgroup and two consumer warpgroups (flash_attention_fa3.cu); sm_90a.
// `pingpong`: the rung whose consumer warpgroups take turns issuing GEMMs (unmasked D 64).
// Fa3D64Kernel: the D 64 rungs, CausalPairs: the causal kernel in pairs of query blocks
// (attention_kernels.cuh, launch_flash_fa3_d64 and launch_flash_fa3_causal_pairs).
enum class Fa3Schedule { overlap, pingpong };
class FlashFa3Attention : public ForwardAttentionProblem {
 public:
  FlashFa3Attention(ForwardShape shape, MaskedTiles masked,
                    Fa3Schedule schedule = Fa3Schedule::overlap)
      : ForwardAttentionProblem(shape), masked_(masked), schedule_(schedule) {}
  FlashFa3Attention(ForwardShape shape, Fa3D64Kernel d64)
      : ForwardAttentionProblem(shape), masked_(MaskedTiles::skip), schedule_(Fa3Schedule::overlap),
        launcher_(Launcher::d64), d64_(d64) {}
  struct CausalPairs {};
  FlashFa3Attention(ForwardShape shape, CausalPairs)
      : ForwardAttentionProblem(shape), masked_(MaskedTiles::skip), schedule_(Fa3Schedule::overlap),
        launcher_(Launcher::causal_pairs) {}
  aisp::Requirements requirements() const override {
    aisp::Requirements r;
    r.min_compute_capability = 90;
    r.features = {aisp::Feature::wgmma, aisp::Feature::tma};
    return r;
  }
  void setup(aisp::Context& ctx) override {
    ForwardAttentionProblem::setup(ctx);
    if (!flash_fa3_built_for_sm90a())
      throw std::runtime_error("flash FA3: this binary has no sm_90a code for the GPU (wgmma); "
                               "build with CMAKE_CUDA_ARCHITECTURES including 90a");
    maps_ = make_flash_wgmma_maps(shape(), forward_tensors(q(), k(), v(), o()));
  }
  void run(aisp::Context& ctx) override {
    auto* out = static_cast<__nv_bfloat16*>(o());
    if (launcher_ == Launcher::d64)
      launch_flash_fa3_d64(shape(), maps_, out, d64_, ctx.stream());
    else if (launcher_ == Launcher::causal_pairs)
      launch_flash_fa3_causal_pairs(shape(), maps_, out, ctx.stream());
    else if (schedule_ == Fa3Schedule::pingpong)
      launch_flash_fa3_pingpong(shape(), maps_, out, ctx.stream());
    else
      launch_flash_fa3(shape(), maps_, out, masked_, ctx.stream());
    AISP_CHECK_LAUNCH();
  }

 private:
  enum class Launcher { general, d64, causal_pairs };
  MaskedTiles masked_;
  Fa3Schedule schedule_;
  Launcher launcher_ = Launcher::general;
  Fa3D64Kernel d64_{};
  FlashWgmmaMaps maps_{};
};

}  // namespace aisp::ch18
