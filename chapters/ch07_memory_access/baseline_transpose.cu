// Baseline: naive transpose. A block of 32×8 threads covers a 32×32 tile, each thread 4 elements
// (rows j, j+8, j+16, j+24). Each thread reads in[r][c] and writes out[c][r] straight from a
// register: the reads are coalesced (a warp reads 32 consecutive floats of one row), but the
// writes are not: the warp's 32 stores land in 32 different rows of out, n·4 = 64 KiB apart,
// one 32-byte sector each for 4 useful bytes.
// Bytes: 2·n²·4 = 2 GiB; 0 FLOPs. Ceiling: HBM bandwidth.
#include "transpose_common.cuh"

namespace aisp::ch07 {
namespace {

constexpr int kTile = 32;
constexpr int kBlockRows = 8;

__global__ void transpose_naive(const float* __restrict__ in, float* __restrict__ out, int n) {
  const std::size_t col = static_cast<std::size_t>(blockIdx.x) * kTile + threadIdx.x;
  const std::size_t row = static_cast<std::size_t>(blockIdx.y) * kTile + threadIdx.y;
#pragma unroll
  for (int j = 0; j < kTile; j += kBlockRows)
    out[col * n + row + j] = in[(row + j) * n + col];
}

}  // namespace

struct TransposeNaive : TransposeProblem {
  void run(aisp::Context& ctx) override {
    const dim3 grid(n() / kTile, n() / kTile);
    const dim3 block(kTile, kBlockRows);
    transpose_naive<<<grid, block, 0, ctx.stream()>>>(in(), out(), n());
    AISP_CHECK_LAUNCH();
  }
};

}  // namespace aisp::ch07

AISP_VARIANT(aisp::ch07::TransposeNaive)
