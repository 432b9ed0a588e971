// The TMA transpose of pair tile_transpose (tile_transpose_tma_kernel.cu), compiled once and run
// by two variants that differ only in the tile side: 128 (optimized_tile_transpose_tma.cpp) and
// 64, the baseline's tile (optimized_tile_transpose_tma_64.cpp).
//   prepare_tile_transpose_tma(...)  in setup: checks the shape and the shared memory, raises the
//                                    kernel's shared-memory limit, encodes both tensor maps, sizes
//                                    the grid (std::invalid_argument naming what to change);
//   launch_tile_transpose_tma(...)   in run: one launch; returns its cudaError_t.
// out = inᵀ for a square n×n fp32 matrix, both row-major; n a multiple of the tile side.
// Depends on CUDA and chapters/common only.
#pragma once

#include <cuda.h>  // CUtensorMap (a type only)
#include <cuda_runtime_api.h>

namespace aisp::ch10 {

struct TileTransposeTmaLaunch {
  CUtensorMap in_map{};   // in, boxes of tile × tile, no swizzle
  CUtensorMap out_map{};  // out, likewise
  int n = 0;
  int tile = 0;  // 64 or 128
  dim3 grid{1, 1, 1};
  dim3 block{1, 1, 1};
  unsigned shared_bytes = 0;
};

// tile: 64 or 128 floats per side.
TileTransposeTmaLaunch prepare_tile_transpose_tma(int tile, const float* in, float* out, int n,
                                                  const cudaDeviceProp& device);
cudaError_t launch_tile_transpose_tma(const TileTransposeTmaLaunch& launch, cudaStream_t stream);

}  // namespace aisp::ch10
