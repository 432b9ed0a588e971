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

// flash_attention_fa3.cu: the unmasked D 64 rungs beyond attention_forward_d64_fa3(_pingpong):
// `poly_every` > 0 computes one in that many of the softmax's exponentials with a polynomial on
// the FMA pipe instead of the MUFU; `consumers` 3 gives a block three consumer warpgroups (192
// query rows); `stages` the depth of the K and V rings. The combinations built are those of the
// variant files (launch_flash_fa3_d64 says).
struct Fa3D64Build {
  bool pingpong = false;
  int poly_every = 0;
  int consumers = 2;
  int stages = 2;
};
void launch_flash_fa3_d64(const ForwardShape& shape, const FlashWgmmaMaps& maps, __nv_bfloat16* o,
                          bool pingpong, int poly_every, int consumers, int stages,
                          cudaStream_t stream);

// flash_attention_fa3.cu: the causal kernel skipping masked tiles with its blocks head by head
// (the order before the grouped one; kept as its A/B reference).
void launch_flash_fa3_causal_by_head(const ForwardShape& shape, const FlashWgmmaMaps& maps,
                                     __nv_bfloat16* o, cudaStream_t stream);

// wgmma + TMA, producer warpgroup and two consumer warpgroups (flash_attention_fa3.cu); sm_90a.
// `pingpong`: the rung whose consumer warpgroups take turns issuing GEMMs (unmasked D 64).
// `d64`: one of the further unmasked D 64 rungs (Fa3D64Build above).
enum class Fa3Schedule { overlap, pingpong };
class FlashFa3Attention : public ForwardAttentionProblem {
 public:
  FlashFa3Attention(ForwardShape shape, MaskedTiles masked,
                    Fa3Schedule schedule = Fa3Schedule::overlap)
      : ForwardAttentionProblem(shape), masked_(masked), schedule_(schedule) {}
  struct CausalByHead {};
  FlashFa3Attention(ForwardShape shape, CausalByHead)
      : ForwardAttentionProblem(shape), masked_(MaskedTiles::skip),
        schedule_(Fa3Schedule::overlap), causal_by_head_(true) {}
  FlashFa3Attention(ForwardShape shape, Fa3D64Build d64)
      : ForwardAttentionProblem(shape), masked_(MaskedTiles::skip),
        schedule_(d64.pingpong ? Fa3Schedule::pingpong : Fa3Schedule::overlap), d64_(d64),
        d64_rung_(true) {}
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
    if (causal_by_head_)
      launch_flash_fa3_causal_by_head(shape(), maps_, static_cast<__nv_bfloat16*>(o()),
                                      ctx.stream());
    else if (d64_rung_)
      launch_flash_fa3_d64(shape(), maps_, static_cast<__nv_bfloat16*>(o()), d64_.pingpong,
                           d64_.poly_every, d64_.consumers, d64_.stages, ctx.stream());
    else if (schedule_ == Fa3Schedule::pingpong)
      launch_flash_fa3_pingpong(shape(), maps_, static_cast<__nv_bfloat16*>(o()), ctx.stream());
    else
      launch_flash_fa3(shape(), maps_, static_cast<__nv_bfloat16*>(o()), masked_, ctx.stream());
    AISP_CHECK_LAUNCH();
  }

 private:
  MaskedTiles masked_;
  Fa3Schedule schedule_;
  Fa3D64Build d64_{};
  bool d64_rung_ = false;
  bool causal_by_head_ = false;
  FlashWgmmaMaps maps_{};
};

}  // namespace aisp::ch18
