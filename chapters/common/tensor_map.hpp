// TMA: host side. Encodes a CUtensorMap describing a 2D row-major matrix in device memory and
// the box (tile) a kernel copies at a time (tma.cuh copies with it). Call it in setup, never in
// the timed region, and pass the map to the kernel as `const __grid_constant__ CUtensorMap`.
//
// cuTensorMapEncodeTiled is a driver API function. The suite must start on machines without an
// NVIDIA driver (CI runs its CPU pairs there), so nothing links libcuda: the function is looked
// up at run time through the CUDA runtime (cudaGetDriverEntryPointByVersion), which loads the
// driver itself. Only <cuda.h>'s types and enums are used at compile time.
#pragma once

#include <cuda.h>
#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled_v12000
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace aisp::common {

// The driver's cuTensorMapEncodeTiled, found once per process. Throws when the driver lacks it.
inline PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder() {
  static const PFN_cuTensorMapEncodeTiled_v12000 encoder = [] {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    const cudaError_t status = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn,
                                                                12000, cudaEnableDefault, &found);
    if (status != cudaSuccess || found != cudaDriverEntryPointSuccess || fn == nullptr)
      throw std::runtime_error(
          std::string("cuTensorMapEncodeTiled not found in the CUDA driver (") +
          cudaGetErrorString(status) +
          "): TMA tensor maps need a driver for CUDA 12.0 or later; update the driver");
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
  }();
  return encoder;
}

// What a 2D tiled tensor map describes: a rows × cols row-major matrix of `element_bytes`-byte
// elements at `base` (rows `row_pitch_bytes` apart), copied in boxes of box_rows × box_cols.
struct TiledMatrix2d {
  const void* base = nullptr;
  CUtensorMapDataType dtype = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  std::size_t element_bytes = 2;
  std::uint64_t rows = 0;
  std::uint64_t cols = 0;
  std::uint64_t row_pitch_bytes = 0;  // 0: cols · element_bytes (packed rows)
  std::uint32_t box_rows = 0;
  std::uint32_t box_cols = 0;
  CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_128B;
  CUtensorMapL2promotion l2_promotion = CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
};

// Encodes the map, checking first what the hardware requires so a mistake is named plainly
// rather than as CUDA_ERROR_INVALID_VALUE: a 16-byte aligned base, a pitch that is a multiple of
// 16 bytes, boxes of at most 256 elements per dimension, and with a swizzle a box row no wider
// than the swizzle span (128 bytes for 128B swizzle). Elements outside the matrix read as zeros.
inline CUtensorMap encode_tiled_matrix_2d(const TiledMatrix2d& m) {
  const std::uint64_t pitch = m.row_pitch_bytes ? m.row_pitch_bytes : m.cols * m.element_bytes;
  const std::uint64_t box_row_bytes = std::uint64_t{m.box_cols} * m.element_bytes;
  const std::uint64_t swizzle_span = m.swizzle == CU_TENSOR_MAP_SWIZZLE_128B  ? 128
                                     : m.swizzle == CU_TENSOR_MAP_SWIZZLE_64B ? 64
                                     : m.swizzle == CU_TENSOR_MAP_SWIZZLE_32B ? 32
                                                                              : 0;
  const auto fail = [&](const std::string& what) {
    throw std::invalid_argument("tensor map for a " + std::to_string(m.rows) + "x" +
                                std::to_string(m.cols) + " matrix, box " +
                                std::to_string(m.box_rows) + "x" + std::to_string(m.box_cols) +
                                ": " + what);
  };
  if (m.base == nullptr || reinterpret_cast<std::uintptr_t>(m.base) % 16 != 0)
    fail("the base address must be non-null and 16-byte aligned");
  if (pitch % 16 != 0)
    fail("the row pitch must be a multiple of 16 bytes");
  if (m.box_rows == 0 || m.box_cols == 0 || m.box_rows > 256 || m.box_cols > 256)
    fail("each box dimension must be 1..256 elements");
  if (box_row_bytes % 16 != 0)
    fail("a box row must be a multiple of 16 bytes");
  if (swizzle_span != 0 && box_row_bytes > swizzle_span)
    fail("a swizzled box row must not be wider than the swizzle span (" +
         std::to_string(swizzle_span) + " bytes): split the box along its columns");

  CUtensorMap map{};
  const cuuint64_t dims[2] = {m.cols, m.rows};  // innermost first
  const cuuint64_t strides[1] = {pitch};        // bytes between rows; the innermost is implied
  const cuuint32_t box[2] = {m.box_cols, m.box_rows};
  const cuuint32_t element_strides[2] = {1, 1};
  const CUresult status = tensor_map_encoder()(
      &map, m.dtype, 2, const_cast<void*>(m.base), dims, strides, box, element_strides,
      CU_TENSOR_MAP_INTERLEAVE_NONE, m.swizzle, m.l2_promotion, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (status != CUDA_SUCCESS)
    fail("cuTensorMapEncodeTiled returned CUresult " + std::to_string(static_cast<int>(status)));
  return map;
}

}  // namespace aisp::common
