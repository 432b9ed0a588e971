// Baseline: naive matmul, one thread per element of C, every operand read from global memory.
// A 32×32 block of threads covers a 32×32 tile of C; thread (x, y) computes C[row][col] with
// row = 32·blockIdx.y + y, col = 32·blockIdx.x + x, as a 4096-step loop over k. The accesses are
// coalesced (it is not copy_coalesced's baseline): a warp is one row y of the block, so its 32
// lanes read the same A[row][k] (one broadcast) and 32 consecutive B[k][col] (one 128-byte line).
// What makes it slow is reuse: each A element is needed by the 4096 threads of a row of C and
// each B element by 4096 threads of a column, and here every one of them loads it again. The L1
// and L2 catch most of those loads, but each fused multiply-add still costs two load instructions
// and ~5 L1 sectors per warp, so the load/store unit, not the FMA units, sets the pace.
// Bytes: 3 · 4096² · 4 = 192 MiB at the least; FLOPs 2 · 4096³ = 137 G. Ceiling: FP32 SIMT.
#include "matmul_tiled_common.cuh"

namespace aisp::ch07 {
namespace {

constexpr int kTile = 32;  // threads per block side

__global__ void __launch_bounds__(kTile* kTile)
    matmul_naive(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                 int n, int k) {
  const int col = static_cast<int>(blockIdx.x) * kTile + static_cast<int>(threadIdx.x);
  const int row = static_cast<int>(blockIdx.y) * kTile + static_cast<int>(threadIdx.y);
  const float* a_row = a + static_cast<std::size_t>(row) * k;
  float acc = 0.0f;
  for (int kk = 0; kk < k; ++kk)
    acc = fmaf(a_row[kk], b[static_cast<std::size_t>(kk) * n + col], acc);
  c[static_cast<std::size_t>(row) * n + col] = acc;
}

}  // namespace

struct MatmulNaive : MatmulTiledProblem {
  void run(aisp::Context& ctx) override {
    const dim3 grid(n() / kTile, m() / kTile);
    const dim3 block(kTile, kTile);
    matmul_naive<<<grid, block, 0, ctx.stream()>>>(a(), b(), c(), n(), k());
    AISP_CHECK_LAUNCH();
  }
};

}  // namespace aisp::ch07

AISP_VARIANT(aisp::ch07::MatmulNaive)
