// A/B beside optimized_ln_gelu_mask_nvrtc: the same NVRTC build of the same kernel text, compiled
// under a looser register cap: 3 blocks of 128 per SM (12 warps, up to 168 registers) instead of
// 5 (20 warps, 96 registers). With the room, ptxas schedules loads earlier and keeps more values
// live; the pair asks whether that buys more than the 8 warps per SM it costs.
// Bytes: 320 MiB (x, mask read; y written). Ceiling: HBM bandwidth.
#include "ln_gelu_mask_nvrtc_build.cuh"

namespace aisp::ch14 {
namespace {

struct LnGeluMaskFusedNvrtc3Blocks : LnGeluMaskFusedNvrtcBuild<3> {
  LnGeluMaskFusedNvrtc3Blocks()
      : LnGeluMaskFusedNvrtcBuild<3>("ch14:ln_gelu_mask_nvrtc_3_blocks") {}
};

}  // namespace
}  // namespace aisp::ch14

AISP_VARIANT(aisp::ch14::LnGeluMaskFusedNvrtc3Blocks)
