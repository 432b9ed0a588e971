// Weight-only quantized linear layers for decode (INT4 / INT8 weights, bf16 activations): the
// storage format, shared by the kernels that read it and by the float64 references.
//
// A weight matrix W (N rows = output features, K columns = input features) is stored as integers
// q with one bf16 scale per row per group of 128 k (symmetric: w = q · scale):
//   INT8  q in [-127, 127], one signed byte per weight, row-major (k ascending);
//   INT4  q in [-8, 7], stored as q + 8 in a nibble, two per byte, row-major by 32-bit word:
//         word w of a row holds k = 8w .. 8w+7, with nibble p (bits 4p..4p+3) holding
//         k = 8w + 2p for p < 4 and k = 8w + 2(p-4) + 1 for p >= 4. The interleave lets a kernel
//         turn a word into bf16 pairs (k, k+1) with one mask per pair: (word >> 4p) & 0x000F000F
//         puts nibbles p and p+4 (k = 2p, 2p+1) in the two halves.
//   scales  bf16, [N][K/128] row-major.
// K must be a multiple of 128.
#pragma once

#include <cstddef>
#include <cstdint>

namespace aisp::common {

inline constexpr int kWeightOnlyGroup = 128;

// Bytes of one stored row of K weights.
__host__ __device__ inline std::size_t weight_only_row_bytes(int bits, int k) {
  return static_cast<std::size_t>(k) * static_cast<std::size_t>(bits) / 8;
}

// The integer weight q at (row, k) of a stored matrix (host or device).
__host__ __device__ inline int weight_only_q(const std::uint8_t* stored, int bits, int k_total,
                                             int row, int k) {
  const std::uint8_t* row_bytes =
      stored + static_cast<std::size_t>(row) * weight_only_row_bytes(bits, k_total);
  if (bits == 8)
    return static_cast<int>(static_cast<std::int8_t>(row_bytes[k]));
  const int word = k / 8, r = k % 8;
  const int nibble = (r % 2 == 0) ? r / 2 : 4 + r / 2;
  const std::uint8_t byte = row_bytes[4 * word + nibble / 2];
  return static_cast<int>((byte >> (4 * (nibble % 2))) & 0xF) - 8;
}

}  // namespace aisp::common
