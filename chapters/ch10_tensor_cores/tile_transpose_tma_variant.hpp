// The two TMA variants of pair tile_transpose: the same kernel (tile_transpose_tma_kernel.cu) with
// tiles of kTile × kTile, prepared in setup (tensor maps encoded, shared-memory limit raised),
// one launch in run().
#pragma once

#include "tile_transpose_common.cuh"
#include "tile_transpose_tma.cuh"

namespace aisp::ch10 {

template <int kTile>
class TileTransposeTmaVariant : public TileTransposeProblem {
 public:
  aisp::Requirements requirements() const override {
    aisp::Requirements r;
    r.min_compute_capability = 90;
    r.features = {aisp::Feature::tma};
    return r;
  }

  void setup(aisp::Context& ctx) override {
    TileTransposeProblem::setup(ctx);
    launch_ = prepare_tile_transpose_tma(kTile, in(), out(), n(), ctx.device_properties());
  }

  void run(aisp::Context& ctx) override {
    AISP_CUDA_CHECK(launch_tile_transpose_tma(launch_, ctx.stream()));
  }

 private:
  TileTransposeTmaLaunch launch_;
};

}  // namespace aisp::ch10
