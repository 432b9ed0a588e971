// Where the scales of an FP8 matrix live. A quantized operand of a GEMM is a rows × cols matrix,
// row-major, with cols the reduction dimension K (both operands of the "TN" GEMM are stored so);
// it comes with dequantization factors (fp8_e4m3.cuh) at one of four granularities:
//
//   per_tensor     1 factor                                        cuBLASLt SCALAR_32F
//   per_row        one per row ("outer vector", per token or per   cuBLASLt OUTER_VEC_32F
//                  output channel): index = row
//   block_1x128    one per row per 128 columns, stored with the    cuBLASLt VEC128_32F
//                  row index contiguous: index = row + (col/128)·rows
//   block_128x128  one per 128 × 128 tile, stored with the column  cuBLASLt BLK128x128_32F
//                  block contiguous and each block row padded to a
//                  multiple of 4: index = (row/128)·ld + col/128,
//                  ld = roundup(cols/128, 4)
//
// The block layouts are cuBLASLt's (the ones PyTorch's _scaled_mm hands it for its 1x128 and
// 128x128 recipes); the hand-written block-scaled GEMM reads the same buffers, so one quantization
// serves both. Block granularities need cols to be a multiple of 128 (and rows, for 128x128).
#pragma once

#include <cstddef>

namespace aisp::common {

enum class Fp8ScaleGranularity { per_tensor, per_row, block_1x128, block_128x128 };

inline const char* fp8_scale_granularity_name(Fp8ScaleGranularity g) {
  switch (g) {
  case Fp8ScaleGranularity::per_tensor:
    return "per-tensor";
  case Fp8ScaleGranularity::per_row:
    return "per-row";
  case Fp8ScaleGranularity::block_1x128:
    return "1x128 blocks";
  case Fp8ScaleGranularity::block_128x128:
    return "128x128 blocks";
  }
  return "?";
}

inline constexpr int kFp8ScaleBlock = 128;

struct Fp8ScaleLayout {
  Fp8ScaleGranularity granularity = Fp8ScaleGranularity::per_tensor;
  int rows = 0;
  int cols = 0;

  __host__ __device__ int column_blocks() const {
    return (cols + kFp8ScaleBlock - 1) / kFp8ScaleBlock;
  }
  // Leading dimension of the 128x128 layout: column blocks padded to a multiple of 4.
  __host__ __device__ int block_ld() const { return (column_blocks() + 3) / 4 * 4; }

  // Number of float factors the layout holds.
  __host__ __device__ std::size_t count() const {
    switch (granularity) {
    case Fp8ScaleGranularity::per_tensor:
      return 1;
    case Fp8ScaleGranularity::per_row:
      return static_cast<std::size_t>(rows);
    case Fp8ScaleGranularity::block_1x128:
      return static_cast<std::size_t>(rows) * static_cast<std::size_t>(column_blocks());
    case Fp8ScaleGranularity::block_128x128:
      return static_cast<std::size_t>((rows + kFp8ScaleBlock - 1) / kFp8ScaleBlock) *
             static_cast<std::size_t>(block_ld());
    }
    return 0;
  }

  // Index of the factor that covers element (row, col).
  __host__ __device__ std::size_t index(int row, int col) const {
    switch (granularity) {
    case Fp8ScaleGranularity::per_tensor:
      return 0;
    case Fp8ScaleGranularity::per_row:
      return static_cast<std::size_t>(row);
    case Fp8ScaleGranularity::block_1x128:
      return static_cast<std::size_t>(row) +
             static_cast<std::size_t>(col / kFp8ScaleBlock) * static_cast<std::size_t>(rows);
    case Fp8ScaleGranularity::block_128x128:
      return static_cast<std::size_t>(row / kFp8ScaleBlock) * static_cast<std::size_t>(block_ld()) +
             static_cast<std::size_t>(col / kFp8ScaleBlock);
    }
    return 0;
  }
};

}  // namespace aisp::common
