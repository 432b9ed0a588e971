// Optimized, compiled at run time: the same fused kernel text as optimized_ln_gelu_mask, compiled
// by NVRTC in setup with the row length baked in as a template argument (kCols = 4096), for
// exactly the GPU it runs on (sm_<major><minor>). What changed vs the ahead-of-time build: the
// specialization is made at run time, for the row length at hand, so no specialization has to be
// shipped for it. The ahead-of-time build ships a generic kernel and one prebuilt specialization
// (4096) and dispatches; for any other row length it falls back to the generic kernel, whose
// register array is sized for the longest row and whose every chunk is guarded (0.80 of
// hbm_bandwidth against this build's 0.86 in run 20261124-064421-3bfc, NVIDIA H200). Compiled
// here, the register array holds exactly the chunks a row gives a lane, every bounds test and the
// divisions by the row length fold away. This is what torch.compile's code generation (and
// cuda.core / CuPy RawKernel) buy: specialization to the shapes seen at run time. Launched like the
// ahead-of-time build: one warp per row, a grid of rows / 4 blocks of 128. The class is
// ln_gelu_mask_nvrtc_build.cuh's, one class for any register cap. The compile happens in setup,
// outside the timed region: its time (NVRTC create → cubin, host clock) and the library load are
// written to the pair's log, one line per setup. NVRTC is opened with dlopen (no link dependency);
// the cubin is loaded with cudaLibraryLoadData and launched with cudaLaunchKernel on the
// cudaKernel_t, through the CUDA runtime alone. Without libnvrtc the variant fails in setup with a
// message naming what is missing. Bytes: 320 MiB (x, mask read; y written). Ceiling: HBM bandwidth.
#include "ln_gelu_mask_nvrtc_build.cuh"

namespace aisp::ch14 {
namespace {

// 4 blocks of 128 per SM (16 warps, 128 registers): NVRTC's ptxas (sm_90, on the build machine)
// fits the kernel in 128 registers with no spills once the row length is baked in; capped at 96
// (5 blocks) it spills 108 bytes.
struct LnGeluMaskFusedNvrtc : LnGeluMaskFusedNvrtcBuild<4> {
  LnGeluMaskFusedNvrtc() : LnGeluMaskFusedNvrtcBuild<4>("ch14:ln_gelu_mask_nvrtc") {}
};

}  // namespace
}  // namespace aisp::ch14

AISP_VARIANT(aisp::ch14::LnGeluMaskFusedNvrtc)
