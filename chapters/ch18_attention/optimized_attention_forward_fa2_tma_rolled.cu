// Optimized rung 2b: rung 2 (FA2 arithmetic, TMA two-stage K/V pipeline) with the Q·Kᵀ k-loop
// kept rolled (flash_attention_fa2_tma.cu, kStepUnroll 1; flash_tile_mma_sync.cuh, warp_scores).
// What changed vs rung 2: one pragma. Fully unrolled, ptxas hoists later k-steps' ldmatrix
// fragments ahead of earlier MMAs; with O (128 registers) and S (64) live it runs out of 255 and
// spills 136 bytes per thread (ptxas -v, sm_90a); rolled it uses 255 without spilling. The
// shared-memory traffic of the spills goes away; the price is no cross-k-step prefetch within a
// warp (other warps hide that latency). B 4, H 16, S 4096, D 128: FLOPs 550 G. Ceiling: BF16
// tensor. sm_90+. Not yet measured (prediction in the chapter README).
#include "attention_flash_variants.cuh"

namespace aisp::ch18 {

struct FlashFa2TmaRolledD128 : FlashFa2TmaAttention {
  FlashFa2TmaRolledD128() : FlashFa2TmaAttention(kForwardD128, QkLoop::rolled) {}
};

}  // namespace aisp::ch18

AISP_VARIANT(aisp::ch18::FlashFa2TmaRolledD128)
