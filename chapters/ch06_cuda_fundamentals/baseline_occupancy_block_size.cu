// Baseline: the axpy kernel launched with 32 threads per block, a size picked by hand ("one warp
// per block, the hardware's natural unit"). On Hopper an SM holds at most 32 resident blocks, so
// one-warp blocks cap it at 32 resident warps of the 64 it could hold: 50% occupancy, whatever
// the registers and shared memory would allow. With half the warps there are half the loads in
// flight per SM (32 warps × 32 lanes × 8 B = 8 KiB), too few to cover HBM latency; on top of
// that, 2^27 / 32 = 4 Mi one-warp blocks each live for little more than one memory round trip,
// so the block scheduler has to refill 132 × 32 slots continually.
// Bytes: 3·n·4 = 1.5 GiB; 2·n FLOPs. Ceiling: HBM bandwidth.
#include "occupancy_block_size_common.cuh"

namespace aisp::ch06 {

struct AxpyBlock32 : OccupancyBlockSizeProblem {
  static constexpr int kThreadsPerBlock = 32;

  void run(aisp::Context& ctx) override { launch(kThreadsPerBlock, ctx.stream()); }
};

}  // namespace aisp::ch06

AISP_VARIANT(aisp::ch06::AxpyBlock32)
